"""`ludo-flow serve`'s server on 127.0.0.1: a move played over HTTP, the agent's reply, undo,
swap, and every bad request answered by a 4xx with a JSON message."""
import http.client
import json
import threading
import time

import pytest

import ludo_flow
from agents.records import load_records, state_at
from agents.viewer.server import PlayConfig, make_server

pytestmark = pytest.mark.slow


@pytest.fixture
def server(tmp_path):
    game = ludo_flow.load_game("flow", "fountain", max_turns=6)
    srv = make_server(PlayConfig(game=game, agent="random", out=str(tmp_path / "played.jsonl"),
                                 host="127.0.0.1", port=0), quiet=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(5)


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


def test_a_game_over_http_is_saved_as_a_record(server):
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
    while True:  # play the first legal move to the end (max_turns=6 keeps it short)
        view = wait_for_human(server, sid)
        if view["over"]:
            break
        status, view = api(server, "POST", "/api/move", {"session": sid, "move": view["legal"][0][0]})
        assert status == 200
    assert view["saved"]["id"]
    (record,) = load_records(server.config.out)
    assert record["black"] == "human" and record["white"] == "random"
    assert record["moves"] == [m[0] for m in view["moves"]]
    assert state_at(record).to_string() is not None and record["result"] == view["result"]


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
