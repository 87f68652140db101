"""The replay page of a 1,000-game records file: its size, the time to write it, the time it
takes Chromium to open it and to move one ply (playwright driving Debian's chromium).

    python benchmarks/bench_viewer.py [--records FILE] [--games 1000] [--json OUT]

Default records: experiments/variants/records/tolkuchka-standard-random.jsonl.gz, random
Tolkuchka games (the longest recorded games). Prints a table and writes JSON
(default benchmarks/results/viewer.json)."""
import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import machine  # noqa: E402

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
STEP = """() => { const n = 200, t = performance.now();
  for (let i = 0; i < n; i++) { document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight'}));
    document.querySelector('.lfv-board svg').getBoundingClientRect(); }
  return (performance.now() - t) / n; }"""


def measure(html, repeats=3):
    """Return (open seconds: navigation to the viewer mounted, ms a ply) medians in Chromium."""
    from playwright.sync_api import sync_playwright
    opens, plies = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        for _ in range(repeats):
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            start = time.perf_counter()
            page.goto(html.as_uri(), wait_until="load")
            while not page.evaluate("() => window.lfvReady !== undefined"):
                time.sleep(0.005)
            opens.append(time.perf_counter() - start)
            page.evaluate("() => document.querySelectorAll('.lfv-games tbody tr')[500].click()")
            plies.append(page.evaluate(STEP))
            page.close()
        browser.close()
    return statistics.median(opens), statistics.median(plies)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", default=str(HERE.parent / "experiments/variants/records/"
                                                 "tolkuchka-standard-random.jsonl.gz"))
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--json", default=str(HERE / "results" / "viewer.json"))
    args = parser.parse_args()
    from agents.records import load_records
    from agents.viewer import write_html
    records = load_records(args.records)[:args.games]
    plies = sum(len(r.get("moves", [])) + len(r.get("opening", [])) for r in records)
    with tempfile.TemporaryDirectory() as folder:
        html = Path(folder) / "replay.html"
        start = time.perf_counter()
        size = write_html(records, html)
        written = time.perf_counter() - start
        opened, per_ply = measure(html)
    result = {"records": Path(args.records).name, "games": len(records), "positions": plies + len(records),
              "page_mb": round(size / 1e6, 2), "write_s": round(written, 2), "open_s": round(opened, 3),
              "ply_ms": round(per_ply, 3), "machine": machine()}
    print(f"{'games':>6} {'positions':>10} {'page MB':>8} {'write s':>8} {'open s':>7} {'ms/ply':>7}")
    print(f"{result['games']:>6} {result['positions']:>10} {result['page_mb']:>8} {result['write_s']:>8} "
          f"{result['open_s']:>7} {result['ply_ms']:>7}")
    Path(args.json).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
