"""`ludo-flow serve`'s server on 127.0.0.1: a move played over HTTP, the agent's reply, undo,
swap, and every bad request answered by a 4xx with a JSON message."""
import contextlib
import http.client
import json
import socket
import threading
import time

import pytest

import ludo_flow
from agents.cli import main
from agents.records import load_records, state_at
from agents.viewer.server import PlayConfig, make_server

pytestmark = pytest.mark.slow


@contextlib.contextmanager
def serving(tmp_path, **config):
    """Serve Flow's fountain (max_turns=6) against `random` on a free port, in a thread."""
    game = ludo_flow.load_game("flow", "fountain", max_turns=6)
    srv = make_server(PlayConfig(game=game, agent="random", out=str(tmp_path / "played.jsonl"),
                                 host="127.0.0.1", port=0, **config), quiet=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(5)


@pytest.fixture
def server(tmp_path):
    with serving(tmp_path) as srv:
        yield srv


def call(srv, method, path, body=None, headers=None, raw=None):
    conn = http.client.HTTPConnection("127.0.0.1", srv.server_address[1], timeout=30)
    head = {"Content-Type": "application/json"} if body is not None or raw is not None else {}
    head.update(headers or {})
    conn.request(method, path, body=raw if raw is not None else (json.dumps(body) if body is not None else None),
                 headers=head)
    response = conn.getresponse()
    status, kind, data = response.status, response.getheader("Content-Type"), response.read()
    conn.close()
    return status, kind, data


def api(srv, method, path, body=None):
    status, kind, data = call(srv, method, path, body)
    assert kind.startswith("application/json"), data[:200]
    return status, json.loads(data)


def wait_for_human(srv, sid):
    for _ in range(600):
        status, view = api(srv, "GET", f"/api/state?s={sid}")
        assert status == 200 and view["error"] is None
        if view["over"] or (view["thinking"] is None and view["to_move"] == view["human"]):
            return view
        time.sleep(0.05)
    raise AssertionError("the agent did not answer")


def play_to_the_end(srv, sid):
    """Play the first legal move until the game is over; return the last view."""
    while True:
        view = wait_for_human(srv, sid)
        if view["over"]:
            return view
        status, view = api(srv, "POST", "/api/move", {"session": sid, "move": view["legal"][0][0]})
        assert status == 200


def test_a_game_over_http_is_saved_as_a_record(server, capsys):
    assert server.server_address[0] == "127.0.0.1"
    status, kind, page = call(server, "GET", "/")
    assert status == 200 and kind.startswith("text/html") and b"LudoViewer" in page
    status, view = api(server, "POST", "/api/new", {"human": "black"})
    assert status == 200 and view["human"] == "black"
    sid = view["session"]
    view = wait_for_human(server, sid)
    assert len(view["moves"]) >= 1 and view["moves"][0][1] is not None  # the agent moved first
    played = len(view["moves"])
    status, view = api(server, "POST", "/api/move", {"session": sid, "move": view["legal"][0][0]})
    assert status == 200 and len(view["moves"]) == played + 1
    status, view = api(server, "POST", "/api/undo", {"session": sid})
    assert status == 200 and len(view["moves"]) == played
    view = play_to_the_end(server, sid)  # max_turns=6 keeps it short
    first = view["saved"]["id"]
    (record,) = load_records(server.config.out)
    assert record["black"] == "human" and record["white"] == "random"
    assert record["moves"] == [m[0] for m in view["moves"]]
    assert state_at(record).to_string() is not None and record["result"] == view["result"]
    # undo after the end, then another end: a second record with an id of its own
    status, view = api(server, "POST", "/api/undo", {"session": sid})
    assert status == 200 and not view["over"] and view["saved"] is None and first in view["message"]
    view = play_to_the_end(server, sid)
    assert view["saved"]["id"] != first
    records = load_records(server.config.out)
    assert [r["id"] for r in records] == [first, view["saved"]["id"]]
    for r in records:
        assert main(["replay", server.config.out, "--game", r["id"]]) == 0
        assert capsys.readouterr().out.rstrip().endswith(r["result"])


def test_a_page_that_pings_keeps_its_game_however_long_the_person_thinks(tmp_path):
    with serving(tmp_path, idle=0.5) as srv:
        status, kept = api(srv, "POST", "/api/new", {})
        status, gone = api(srv, "POST", "/api/new", {})
        for _ in range(6):  # 1.2 s: over twice the idle time
            assert api(srv, "POST", "/api/ping", {"session": kept["session"]}) == (200, {"open": True})
            time.sleep(0.2)
        status, view = api(srv, "POST", "/api/move", {"session": kept["session"], "move": kept["legal"][0][0]})
        assert status == 200 and len(view["moves"]) >= 1
        assert api(srv, "POST", "/api/ping", {"session": gone["session"]}) == (200, {"open": False})
        status, answer = api(srv, "POST", "/api/move", {"session": gone["session"], "move": gone["legal"][0][0]})
        assert status == 404 and "reload" in answer["error"]  # its page stopped pinging: dropped


def test_a_game_whose_answer_takes_longer_than_the_idle_time_is_kept(tmp_path, monkeypatch):
    # A fresh cache compiles the kernels while the first game's view is built, for longer than
    # the idle time, and the page cannot ping before it has its answer: the reaper dropped the
    # game it was building. Idle time counts from the answer; a session being answered is busy.
    from agents.viewer import server as server_module
    slow = server_module.Session.view

    def view(session):
        time.sleep(1.0)
        return slow(session)
    monkeypatch.setattr(server_module.Session, "view", view)
    with serving(tmp_path, idle=0.3) as srv:
        status, kept = api(srv, "POST", "/api/new", {})
        assert status == 200
        time.sleep(0.15)  # the page pings within half the idle time of its answer
        assert api(srv, "POST", "/api/ping", {"session": kept["session"]}) == (200, {"open": True})
        time.sleep(1.0)  # no ping for over three idle times: now it goes
        assert api(srv, "POST", "/api/ping", {"session": kept["session"]}) == (200, {"open": False})


def test_bad_requests_get_4xx_json(server):
    status, view = api(server, "POST", "/api/new", {})
    sid = view["session"]
    cases = [
        ("POST", "/api/move", {"session": sid, "move": "z9-z9"}, 422),
        ("POST", "/api/move", {"session": sid, "move": "a1-a5"}, 422),
        ("POST", "/api/move", {"session": sid, "move": 7}, 400),
        ("POST", "/api/move", {"session": "nope", "move": "a2-a3"}, 404),
        ("POST", "/api/new", {"human": "green"}, 400),
        ("POST", "/api/new", {"agent": "alphabeta:depht=2"}, 400),
        ("POST", "/api/nothing", {"session": sid}, 404),
        ("GET", "/etc/passwd", None, 404),
        ("GET", "/api/state?s=", None, 404),
    ]
    for method, path, body, expected in cases:
        status, answer = api(server, method, path, body)
        assert status == expected and answer["error"], (path, body, answer)
    status, kind, data = call(server, "POST", "/api/move", raw=b"{not json")
    assert status == 400 and json.loads(data)["error"]
    status, kind, data = call(server, "POST", "/api/move", raw=b"[1]")
    assert status == 400
    status, kind, data = call(server, "POST", "/api/move", raw=b"x" * 10000)
    assert status == 413
    status, kind, data = call(server, "POST", "/api/move", raw=b"{}", headers={"Content-Type": "text/plain"})
    assert status == 415
    status, kind, data = call(server, "GET", "/", headers={"Host": "evil.example:80"})
    assert status == 403
    status, view = api(server, "GET", f"/api/state?s={sid}")
    assert status == 200  # still serving


def raw(srv, data):
    """Send raw bytes; return (status, head, body) of the answer."""
    with socket.create_connection(("127.0.0.1", srv.server_address[1]), timeout=30) as conn:
        conn.sendall(data)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), head.decode("latin-1"), body


def test_every_error_is_json_those_of_http_parsing_and_other_methods_included(server):
    for method in ("PUT", "DELETE", "PATCH", "OPTIONS"):
        status, kind, data = call(server, method, "/api/new", body={})
        assert status == 405 and kind.startswith("application/json") and json.loads(data)["error"], method
    status, head, body = raw(server, b"HEAD / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert status == 405 and "application/json" in head and body == b""  # no body to a HEAD
    cases = [(b"GARBAGE\r\n\r\n", 400), (b"GET / HTTP/9.x\r\n\r\n", 400), (b"GET / HTTP/2.0\r\n\r\n", 505),
             (b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n", 414),
             (b"GET / HTTP/1.1\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(120)) + b"\r\n", 431),
             (b"GET / HTTP/1.1\r\nX-Long: " + b"a" * 70000 + b"\r\n\r\n", 431),
             (b"BREW / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 501)]
    for data, expected in cases:
        status, head, body = raw(server, data)
        assert status == expected and "application/json" in head, (data[:30], head)
        assert json.loads(body)["error"]
    assert api(server, "POST", "/api/new", {})[0] == 200  # still serving


def test_swap_starts_the_agent_and_close_stops_its_process(server):
    status, view = api(server, "POST", "/api/new", {"human": "white", "agent": "mcts:time=30"})
    sid = view["session"]
    status, view = api(server, "POST", "/api/swap", {"session": sid})
    assert view["human"] == "black" and view["thinking"] is not None
    session = server.sessions[sid]
    process = session.searcher.process
    assert process.is_alive()
    status, answer = api(server, "POST", "/api/close", {"session": sid})
    assert status == 200 and sid not in server.sessions
    process.join(5)
    assert not process.is_alive()


@pytest.mark.parametrize("spec, figure", [("mcts:time=1,simulations=0", "simulations"),
                                          ("alphabeta:depth=60,time=1", "depth")])
def test_the_search_is_shown_while_it_runs(server, spec, figure):
    # The person plays Black: the agent's searches are watched from their start to their move.
    # The first search of a worker may spend its time compiling; a later one reports its search
    # as it goes (MCTS every slice, alpha-beta every finished depth).
    status, view = api(server, "POST", "/api/new", {"human": "black", "agent": spec})
    assert status == 200
    sid = view["session"]
    seen, searches = [], []
    played = len(view["moves"])
    for _ in range(2000):
        status, view = api(server, "GET", f"/api/state?s={sid}")
        assert status == 200 and view["error"] is None
        if view["thinking"] is not None:
            if view["progress"] is not None and view["progress"] not in seen:
                seen.append(view["progress"])
        else:
            assert view["progress"] is None
        if len(view["moves"]) > played:  # the agent moved: what was seen before the move
            move, stats = view["moves"][played]
            searches.append((seen, stats))
            if len(seen) >= 3:
                break
            seen, played = [], len(view["moves"])
        if view["over"]:
            break
        if view["thinking"] is None and view["to_move"] == view["human"]:
            status, view = api(server, "POST", "/api/move", {"session": sid, "move": view["legal"][0][0]})
            assert status == 200
            played = len(view["moves"])
        time.sleep(0.02)
    reports, stats = searches[-1]
    assert len(reports) >= 3, searches
    values = [r[figure] for r in reports]
    assert values == sorted(values) and values[0] < values[-1]  # growing while it searched
    assert [r["elapsed"] for r in reports] == sorted(r["elapsed"] for r in reports)
    assert stats[figure] >= values[-1]  # ...before the move, which came with its statistics
    for r in reports:
        assert r["agent"] == spec.split(":")[0] and isinstance(r["best"], str)
        assert r["pv"].split()[0] == r["best"] and r["nodes"] > 0
        assert r["score"] is None or isinstance(r["score"], float)


def test_progress_reports_are_sent_in_notation_and_bad_ones_left_out():
    from agents.base import SearchProgress
    from agents.viewer.server import _progress_sender
    game = ludo_flow.load_game("flow", "fountain", max_turns=6)
    state = game.new_initial_state()
    a = state.legal_actions()[0]
    sent = []

    class Pipe:
        def send(self, message):
            sent.append(message)

    report = _progress_sender(Pipe(), state)
    report(SearchProgress("mcts", 0.2, a, 0.25, (a,), 3, 40, 100, 0.5))
    report("not a report")
    report(SearchProgress("mcts", 0.3, 10 ** 9, 0.25, (10 ** 9,), 3, 40, 100, 0.5))  # no such action
    assert sent == [("progress", {"agent": "mcts", "elapsed": 0.2, "best": state.action_to_string(a),
                                  "score": 0.25, "pv": state.action_to_string(a), "depth": 3,
                                  "nodes": 40, "simulations": 100, "share": 0.5})]


def test_serving_beyond_this_machine_is_said_in_a_warning():
    # the page has no login: --host 0.0.0.0 lets anyone on the network play on this machine
    from agents.viewer.server import exposure_warning
    game = ludo_flow.load_game("flow")
    for host in ("127.0.0.1", "localhost", "::1"):
        assert exposure_warning(PlayConfig(game=game, agent="random", host=host)) is None
    line = exposure_warning(PlayConfig(game=game, agent="random", host="0.0.0.0", port=8765,
                                       out="played.jsonl"))
    assert line.startswith("# warning: listening on 0.0.0.0") and "8765" in line
    assert "played.jsonl" in line and "--host 127.0.0.1" in line
