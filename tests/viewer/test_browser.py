"""The replay page and the play page in a real headless Chromium (one browser for all tests).

The replay page, opened from a file written by `ludo-flow replay --html`, steps through every
ply of every game by keyboard, and the board read from the DOM equals the record's position
at that ply; no console errors; no request leaves the page. The play page: a whole game
against `random` played by clicks, whose saved record replays to the final position shown.
Screenshots go to the test's output folder (printed)."""
import contextlib
import math
import multiprocessing.connection
import random
import threading
import time

import pytest

import ludo_flow
from agents.cli import main
from agents.records import load_records, record_line, start_state, state_at
from agents.viewer import view
from agents.viewer.server import PlayConfig, make_server

pytestmark = pytest.mark.slow

READ_BOARD = """() => {
  const svg = document.querySelector('.lfv-board svg');
  const pieces = {};
  for (const c of svg.querySelectorAll('circle.piece')) {
    const t = svg.querySelector('text.letter[data-square="' + c.dataset.square + '"]');
    pieces[c.dataset.square] = [c.getAttribute('fill'), c.getAttribute('stroke'), t ? t.textContent : ''];
  }
  const squares = sel => [...svg.querySelectorAll(sel)].map(e => e.dataset.square).sort();
  return {ply: Number(svg.dataset.ply), index: Number(svg.dataset.index), pieces,
          last: squares('rect.last-move'), changed: squares('rect.changed'), rings: squares('circle.ring'),
          barred: svg.querySelectorAll('line.barred').length};
}"""


def expected(state):
    """Return what the DOM should show of a state's board picture."""
    from ludo_flow.render import square_name
    p = state.board_picture()
    names = lambda squares: sorted(square_name(s) for s in squares)  # noqa: E731
    return {"pieces": {square_name(sq): list(t) for sq, t in p["pieces"].items()},
            "last": names(p["last_move"]), "changed": names(p["changed"]), "rings": names(p["rings"]),
            "barred": int(p["barred"] is not None)}


def watch(page, base):
    """Collect console errors, page errors and requests to anything but `base`."""
    problems = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("request", lambda r: None if r.url.startswith(base) else problems.append(f"request {r.url}"))
    return problems


def with_search(record):
    """Return the record with a plausible `search` field (a score from the mover's view a move)."""
    n = len(record["moves"])
    return dict(record, search={"score": [round(math.sin(k / 5), 3) for k in range(n)],
                                "depth": [3 + k % 4 for k in range(n)], "nodes": [100 * (k + 1) for k in range(n)],
                                "pv": [record["moves"][k:k + 2] for k in range(n)]})


def board_index(page):
    return page.evaluate("() => Number(document.querySelector('.lfv-board svg').dataset.index)")


def test_replay_page_steps_through_every_ply(browser, records, tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_text("".join(record_line(r) for r in records[:3]) + record_line(with_search(records[3])))
    html = tmp_path / "replay.html"
    assert main(["replay", str(path), "--html", str(html)]) == 0
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    url = html.as_uri()
    problems = watch(page, url)
    start = time.perf_counter()
    page.goto(url)
    opened = time.perf_counter() - start
    for number, record in enumerate(records):
        page.click(f'.lfv-games tr[data-index="{number}"]')
        state = start_state(dict(record, opening=[]))
        words = record["opening"] + record["moves"]
        for index in range(len(words) + 1):
            if index:
                state.apply(state.parse_action(words[index - 1]))
                page.keyboard.press("ArrowRight")
            shown = page.evaluate(READ_BOARD)
            assert shown["index"] == index and shown["ply"] == index - len(record["opening"])
            assert {k: shown[k] for k in expected(state)} == expected(state), (record["id"], index)
        page.keyboard.press("ArrowRight")  # past the end: stays
        assert page.evaluate(READ_BOARD)["index"] == len(words)
        page.keyboard.press("Home")
        assert page.evaluate(READ_BOARD)["index"] == 0
    per_ply = page.evaluate("""() => { const t = performance.now();
      for (let i = 0; i < 50; i++) { document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight'}));
        document.querySelector('.lfv-board svg').getBoundingClientRect(); }
      return (performance.now() - t) / 50; }""")
    page.fill(".lfv-filter-agent", "seed=3")
    assert page.locator(".lfv-games tbody tr").count() == 1
    page.fill(".lfv-filter-agent", "")
    def rows():
        return page.locator(".lfv-games tbody tr").count()
    for select, key in ((".lfv-filter-result", "result"), (".lfv-filter-termination", "termination")):
        for value in {r[key] for r in records}:
            page.select_option(select, value)
            assert rows() == sum(r[key] == value for r in records), (key, value)
            assert page.locator(".lfv-count").text_content() == f"{rows()} of {len(records)} games"
        page.select_option(select, "")
    assert rows() == len(records)
    # the header, the move list, the slider, flip
    record = records[2]
    page.click('.lfv-games tr[data-index="2"]')
    header = page.locator(".lfv-header").text_content()
    for text in (f"White {record['white']}", f"Black {record['black']}", record["result"], record["termination"],
                 f"game {record['id']}", f"{record['plies']} plies", "opening: " + " ".join(record["opening"])):
        assert text in header, (text, header)
    page.click('.lfv-move[data-ply="5"]')
    assert board_index(page) == 5 and page.locator(".lfv-move.lfv-current").get_attribute("data-ply") == "5"
    page.evaluate("() => { const s = document.querySelector('.lfv-slider'); s.value = 9; s.dispatchEvent(new Event('input')); }")
    assert board_index(page) == 9
    a1 = "() => document.querySelector('.lfv-board rect.sq[data-square=\"a1\"]').getAttribute('y')"
    low = float(page.evaluate(a1))
    page.click('button[title="flip the board (f)"]')
    assert float(page.evaluate(a1)) < low and page.evaluate(READ_BOARD)["index"] == 9  # a1 at the top
    page.keyboard.press("f")
    assert float(page.evaluate(a1)) == low
    # autoplay: a ply at a time to the end (from near it, to be quick), paused by the button
    end = len(record["moves"]) + len(record["opening"])
    page.click(f'.lfv-move[data-ply="{end - 8}"]')
    page.select_option(".lfv-speed", "16")
    page.click(".lfv-play")
    page.wait_for_function(f"() => Number(document.querySelector('.lfv-board svg').dataset.index) >= {end - 6}")
    page.click(".lfv-play")
    assert page.locator(".lfv-play").text_content() == "play" and page.get_attribute(".lfv", "data-playing") is None
    paused = board_index(page)
    page.wait_for_timeout(200)
    assert board_index(page) == paused and end - 6 <= paused < end
    page.keyboard.press("Space")
    page.wait_for_function("() => !document.querySelector('.lfv').hasAttribute('data-playing')")
    assert board_index(page) == end  # played to the end, and stopped there
    # the evaluation graph of the record with search data: a click goes to its ply
    page.click('.lfv-games tr[data-index="3"]')
    positions = len(records[3]["moves"]) + len(records[3]["opening"])
    graph = page.locator(".lfv-graph")
    box = graph.bounding_box()
    graph.click(position={"x": box["width"] / 2, "y": 10})
    assert board_index(page) == math.floor(positions / 2 + 0.5)
    assert "score" in page.locator(".lfv-status").text_content()
    # the address names the game and ply shown; a link opens them
    page.keyboard.press("ArrowRight")
    ply = board_index(page) - len(records[3]["opening"])
    page.wait_for_function(f"() => location.hash === '#game={records[3]['id']}&ply={ply}'")
    page.evaluate(f"() => {{ location.hash = '#game={records[1]['id']}&ply=4'; }}")
    page.wait_for_function(f"() => document.querySelector('.lfv-board svg').dataset.game === '{records[1]['id']}'")
    assert page.evaluate(READ_BOARD)["ply"] == 4
    page.reload()
    shown = page.evaluate(READ_BOARD)
    assert (shown["ply"], page.get_attribute(".lfv-board svg", "data-game")) == (4, records[1]["id"])
    shots = tmp_path / "replay.png"
    page.screenshot(path=str(shots))
    print(f"\nreplay page: opened in {opened:.2f} s, {per_ply:.2f} ms a ply; screenshot {shots}")
    assert problems == []
    page.close()


def test_notebook_fragment_mounts_in_a_page(browser, records):
    page = browser.new_page()
    problems = watch(page, "about:")
    bad = dict(records[0], moves=["a1-a1"], plies=1, id="broken")
    page.set_content("<html><body>" + view(records)._repr_html_() + view(records[1])._repr_html_()
                     + view([bad, records[2]])._repr_html_() + view(bad)._repr_html_() + "</body></html>")
    assert page.locator(".lfv .lfv-board svg").count() == 3
    page.locator(".lfv").nth(1).focus()
    page.keyboard.press("ArrowRight")
    assert page.locator(".lfv-board svg").nth(1).get_attribute("data-index") == "1"
    assert page.locator(".lfv-board svg").nth(0).get_attribute("data-index") == "0"
    # a record that does not replay is named where it is seen, with one game or none left
    for k in (2, 3):
        errors = page.locator(".lfv").nth(k).locator(".lfv-errors")
        assert errors.is_visible() and "broken" in errors.text_content()
    assert page.locator(".lfv").nth(3).locator(".lfv-header").text_content() == "no game can be replayed"
    assert problems == []
    page.close()


@contextlib.contextmanager
def serving(game, agent, out, **config):
    """Serve `game` against `agent` on a free port in a thread; yield (server, its address)."""
    server = make_server(PlayConfig(game=game, agent=agent, out=str(out), port=0, **config), quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server, f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


READY = ("() => { const v = window.lfvPlay && window.lfvPlay.view(); return !!v && !window.lfvPlay.busy()"
         " && (v.over || (v.thinking === null && v.to_move === v.human)); }")


def square(sq):
    return "abcdefgh"[sq & 7] + str((sq >> 3) + 1)


def wait_ready(page):
    """Wait until the person may move (or the game is over); return the page's view."""
    page.wait_for_function(READY, timeout=60000, polling=20)
    return page.evaluate("() => window.lfvPlay.view()")


def searching(page, server, sid=None):
    """Wait until the agent of the page's game thinks; return its worker process."""
    page.wait_for_function("() => !window.lfvPlay.busy() && window.lfvPlay.view().thinking !== null",
                           timeout=60000, polling=20)
    sid = page.evaluate("() => window.lfvPlay.view().session")
    process = server.sessions[sid].searcher.process
    assert process.is_alive()
    return process


def ended(process):
    """Whether the worker `process` has exited within 10 s. Waits on its sentinel, not with
    `join`: the server's thread joins the same process, and when two threads' waitpid race the
    loser sees ECHILD, which multiprocessing reports as still alive."""
    return bool(multiprocessing.connection.wait([process.sentinel], 10))


def test_a_whole_game_against_random_by_clicks(browser, tmp_path):
    # Flow's standard start: the person's b2-b3 makes a wall at the edge whose two pieces a3
    # and b3 are the wash candidates White chooses between. The idle time is lowered to a
    # second: the page's pings keep the game while the person thinks for longer.
    game = ludo_flow.load_game("flow", "standard", max_turns=10)
    out = tmp_path / "played.jsonl"
    with serving(game, "random", out, idle=1.0) as (server, base):
        page = browser.new_page(viewport={"width": 1100, "height": 700})
        problems = watch(page, base)
        page.goto(base)
        wait_ready(page)
        page.click('.hit[data-square="b2"]')
        page.wait_for_selector('.lfv-board rect.selected[data-square="b2"]', timeout=5000)
        page.click('.hit[data-square="b3"]')
        # the first move the server applies may compile the kernels (a fresh cache): 60 s
        page.wait_for_function("() => window.lfvPlay.view().moves.length === 1", timeout=60000)
        v = wait_ready(page)
        assert sorted(m[0] for m in v["legal"]) == ["~a3", "~b3"]
        assert page.evaluate("() => [...document.querySelectorAll('.lfv-board circle.ring')]"
                             ".map(e => e.dataset.square).sort()") == ["a3", "b3"]
        page.click('.hit[data-square="a3"]')
        v = wait_ready(page)
        assert [m[0] for m in v["moves"][:2]] == ["b2-b3", "~a3"]
        page.wait_for_timeout(1500)  # the person thinks past the idle time (and the reaper's next look)
        rng = random.Random(5)
        clicks = 2
        while True:
            v = wait_ready(page)
            assert page.locator(".lfv-message").text_content() == "" and clicks < 200  # no refusal
            if v["over"]:
                break
            word, src, dst = rng.choice(v["legal"])
            page.click(f'.hit[data-square="{square(src)}"]')
            if src != dst:
                page.click(f'.hit[data-square="{square(dst)}"]')
            clicks += 1
        assert v["saved"] and v["error"] is None and page.locator(".lfv-message").text_content() == ""
        shot = tmp_path / "play.png"
        page.screenshot(path=str(shot))
        print(f"\nplay page: {clicks} moves by clicks, {len(v['moves'])} plies; screenshot {shot}")
        (record,) = load_records(str(out))
        final = state_at(record).board_picture()["pieces"]
        assert {sq: list(t) for sq, t in final.items()} == {p[0]: p[1:] for p in v["pieces"]}
        assert record["result"] == v["result"]
        # a second page at once: a game of its own, the first one left as it was
        other = browser.new_page(viewport={"width": 1100, "height": 700})
        problems += watch(other, base)
        other.goto(base)
        w = wait_ready(other)
        assert w["session"] != v["session"] and w["moves"] == [] and len(server.sessions) == 2
        other.click(f'.hit[data-square="{square(w["legal"][0][1])}"]')
        other.click(f'.hit[data-square="{square(w["legal"][0][2])}"]')
        assert len(wait_ready(other)["moves"]) >= 1
        assert page.evaluate("() => window.lfvPlay.view().moves.length") == len(v["moves"])
        assert len(server.sessions[v["session"]].words) == len(v["moves"])
        with other.expect_event("close"):
            other.close(run_before_unload=True)
        # undo, new game and swap clicked while the agent searches end its worker; so does closing
        page.fill(".lfv-agent", "mcts:time=30")
        page.click(".lfv-new")
        assert wait_ready(page)["agent"] == "mcts:time=30"
        page.click(".lfv-swap")
        first = searching(page, server)
        page.click(".lfv-undo")  # nothing of the person's to take back: the agent starts again
        second = searching(page, server)
        assert ended(first) and second is not first
        # the person keeps Black: the agent searches the new game. The page's state request in
        # flight is held till after the click: the new game waits for it (sent after the new
        # game closed the old one, it got a 404, and its error was shown over the new game)
        held = []

        def hold(route):
            held.append(route)
        page.route("**/api/state*", hold)
        while not held:
            page.wait_for_timeout(20)
        page.click(".lfv-new")
        page.wait_for_timeout(100)
        held[0].continue_()
        page.unroute("**/api/state*", hold)
        third = searching(page, server)
        assert ended(second) and third is not second
        assert page.locator(".lfv-message").text_content() == ""
        page.click(".lfv-swap")  # the person takes White, to move: no search
        assert wait_ready(page)["thinking"] is None and ended(third)
        page.click(".lfv-swap")
        fourth = searching(page, server)
        assert problems == []
        with page.expect_event("close"):  # its pagehide says so; without it, it stops pinging
            page.close(run_before_unload=True)
        assert ended(fourth)
        deadline = time.monotonic() + 10
        while server.sessions and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.sessions == {}  # both pages said they left (or stopped pinging)


@pytest.mark.parametrize("agent, key, needed", [("mcts:time=0.8,simulations=0", "simulations", 3),
                                                ("alphabeta:time=1,depth=64", "depth", 2)])
def test_the_thinking_panel_shows_the_search_as_it_runs(browser, tmp_path, agent, key, needed):
    # MCTS reports every slice of its search (0.15 s: five in its 0.8 s), alpha-beta every
    # finished depth (its first depths end within one poll of the page, so fewer distinct values
    # are seen). The first search of a page's game is watched: its worker starts with it.
    game = ludo_flow.load_game("flow", "fountain", max_turns=12)
    with serving(game, agent, tmp_path / "played.jsonl") as (_, base):
        page = browser.new_page(viewport={"width": 1100, "height": 700})
        problems = watch(page, base)
        page.goto(base)
        read = """key => { const v = window.lfvPlay && window.lfvPlay.view();
          const cell = document.querySelector('.lfv-progress td[data-key="' + key + '"]');
          const best = document.querySelector('.lfv-progress td[data-key="best"]');
          return {ready: !!v && !window.lfvPlay.busy(), over: !!v && v.over,
                  thinking: !!v && v.thinking !== null, human: !!v && v.to_move === v.human,
                  moves: v ? v.moves.length : 0, legal: v ? v.legal : [],
                  figure: cell ? Number(cell.textContent) : null, best: best ? best.textContent : null}; }"""
        shown, shot, searched = [], tmp_path / "thinking.png", None
        deadline = time.monotonic() + 120  # room for the worker to compile its search from a cold cache
        while time.monotonic() < deadline:
            now = page.evaluate(read, key)
            if now["moves"] != searched:  # a move was played: a new search (or none) follows
                if len(shown) >= needed:
                    break
                shown, searched = [], now["moves"]
            if now["thinking"] and now["figure"] is not None:
                if not shown or shown[-1] != now["figure"]:
                    shown.append(now["figure"])  # the figure under `key`
                    assert now["best"]
                if len(shown) == needed and not shot.exists():
                    page.screenshot(path=str(shot))
            elif now["ready"] and now["human"] and not now["thinking"] and not now["over"]:
                page.evaluate("w => window.lfvPlay.send(w)", now["legal"][0][0])
            if now["over"]:
                break
            time.sleep(0.03)
        assert len(shown) >= needed and shown == sorted(shown), shown  # the numbers grew as it searched
        page.wait_for_function("() => !window.lfvPlay.view().thinking")
        assert page.locator(".lfv-progress").is_hidden()  # the panel goes with the search
        print(f"\nthinking panel of {agent}: {key} shown {shown}; screenshot {shot}")
        assert problems == []
        page.close()
