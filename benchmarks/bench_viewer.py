"""The replay page of 1,000-game records files: its size, the time to write it, the time it
takes Chromium to open it and to move one ply (playwright driving Debian's chromium).

    python benchmarks/bench_viewer.py [--games 1000] [--json OUT]

Three files: experiments/variants/records/tolkuchka-standard-random.jsonl.gz (random Tolkuchka
games, the longest recorded), flow-standard-random.jsonl.gz, and the Tolkuchka games again with
per-move `search` columns added (score, depth, nodes, time, pv as alpha-beta records them: the
numbers made up, the pv the game's next moves), which give the page an evaluation graph and
the most data a ply. Prints a table and writes JSON (default benchmarks/results/viewer.json).

"open" is from the start of the navigation to the first frame painted with the viewer
mounted (all data parsed, the list and the first board drawn); "one ply" is one arrow key,
pressed at the start of a frame, to the end of that frame's rendering (handled, laid out and
painted): every ply of one game forward then back, the median, the 95th percentile and the
slowest."""
import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import machine  # noqa: E402

RECORDS = HERE.parent / "experiments" / "variants" / "records"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
# The page's own clock: performance.now() counts from the start of the navigation.
OPENED = """() => new Promise(done => requestAnimationFrame(() => {
  const c = new MessageChannel(); c.port1.onmessage = () => done(performance.now()); c.port2.postMessage(0); }))"""
STEP = """async () => {
  const n = Number(document.querySelector('.lfv-slider').max), times = [];
  const frame = () => new Promise(r => requestAnimationFrame(r));
  const rendered = () => new Promise(r => { const c = new MessageChannel(); c.port1.onmessage = r; c.port2.postMessage(0); });
  for (let k = 0; k < 2 * n; k++) {
    await frame();
    const t = performance.now();
    document.dispatchEvent(new KeyboardEvent('keydown', {key: k < n ? 'ArrowRight' : 'ArrowLeft'}));
    await rendered();
    times.push(performance.now() - t);
  }
  return {plies: n, index: Number(document.querySelector('.lfv-board svg').dataset.index), times: times};
}"""


def with_search(record, rng):
    """Return the record with plausible alpha-beta `search` columns: a wandering score from the
    mover's view, depths 4-9, nodes and times that grow with the depth, the pv the game's next
    four moves."""
    moves = record.get("moves", [])
    score, columns = 0.0, {"score": [], "depth": [], "nodes": [], "time": [], "pv": []}
    for k in range(len(moves)):
        score = max(-3.0, min(3.0, score + rng.gauss(0, 0.25)))
        depth = rng.randint(4, 9)
        columns["score"].append(round(score if k % 2 == 0 else -score, 5))
        columns["depth"].append(depth)
        columns["nodes"].append(int(2 ** (depth + rng.uniform(4, 8))))
        columns["time"].append(round(0.004 * 2 ** (depth - 4) * rng.uniform(0.5, 2), 4))
        columns["pv"].append(moves[k:k + 4])
    return dict(record, search=columns)


def measure(html, game=500, repeats=3):
    """Return (open seconds, ply times in ms over every ply of game number `game` and back, its
    plies, Chromium's version): the opening's median, the ply times of the run of the median
    median."""
    from playwright.sync_api import sync_playwright
    opens, runs = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        version = browser.version
        for _ in range(repeats):
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(html.as_uri(), wait_until="commit")
            page.wait_for_function("() => window.lfvReady !== undefined", polling=5)
            opens.append(page.evaluate(OPENED) / 1000)
            page.evaluate("k => document.querySelectorAll('.lfv-games tbody tr')[k].click()", game)
            run = page.evaluate(STEP)
            assert run["index"] == 0 and len(run["times"]) == 2 * run["plies"], run["index"]
            runs.append(run)
            page.close()
        browser.close()
    run = sorted(runs, key=lambda r: statistics.median(r["times"]))[len(runs) // 2]
    return statistics.median(opens), run["times"], run["plies"], version


def bench(label, records):
    """Return the row of one records list: page size, write time, open and ply times."""
    from agents.viewer import write_html
    positions = sum(len(r.get("moves", [])) + len(r.get("opening", [])) + 1 for r in records)
    with tempfile.TemporaryDirectory() as folder:
        html = Path(folder) / "replay.html"
        start = time.perf_counter()
        written = write_html(records, html)
        seconds = time.perf_counter() - start
        opened, times, plies, version = measure(html, game=min(500, len(records) - 1))
    return {"records": label, "games": written.games, "positions": positions,
            "search": any("search" in r for r in records), "page_mb": round(written.size / 1e6, 2),
            "write_s": round(seconds, 2), "open_s": round(opened, 3), "plies_stepped": len(times),
            "game_plies": plies, "ply_ms": round(statistics.median(times), 3),
            "ply_p95_ms": round(statistics.quantiles(times, n=20)[-1], 3), "ply_max_ms": round(max(times), 3),
            "chromium": version}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--json", default=str(HERE / "results" / "viewer.json"))
    args = parser.parse_args()
    from agents.records import load_records
    tolkuchka = load_records(RECORDS / "tolkuchka-standard-random.jsonl.gz")[:args.games]
    flow = load_records(RECORDS / "flow-standard-random.jsonl.gz")[:args.games]
    rng = random.Random(1)
    searched = [with_search(r, rng) for r in tolkuchka]
    rows = [bench("tolkuchka-standard-random", tolkuchka), bench("flow-standard-random", flow),
            bench("tolkuchka-standard-random + search columns", searched)]
    print(f"{'records':<44} {'games':>6} {'positions':>10} {'page MB':>8} {'write s':>8} {'open s':>7} "
          f"{'ms/ply':>7} {'p95 ms':>7} {'max ms':>7}")
    for r in rows:
        print(f"{r['records']:<44} {r['games']:>6} {r['positions']:>10} {r['page_mb']:>8} {r['write_s']:>8} "
              f"{r['open_s']:>7} {r['ply_ms']:>7} {r['ply_p95_ms']:>7} {r['ply_max_ms']:>7}")
    Path(args.json).write_text(json.dumps({"rows": rows, "machine": machine()}, indent=2) + "\n")


if __name__ == "__main__":
    main()
