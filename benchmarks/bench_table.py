"""Print a `ludo-flow bench` result as a Markdown table (Flow and Tolkuchka side by side), or write docs/speed.md.

    python benchmarks/bench_table.py [RESULT]          # print the table of RESULT
    python benchmarks/bench_table.py --doc [RESULT]    # write docs/speed.md from RESULT
    python benchmarks/bench_table.py --check [RESULT]  # exit 1 if docs/speed.md is not what --doc would write

RESULT is a `ludo-flow bench` JSON file, by default benchmarks/results/bench.json (what a full
`ludo-flow bench` writes). Measures nothing: run `ludo-flow bench` first to measure again.
"""
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import batch_key, figure  # noqa: E402

HERE = Path(__file__).resolve().parent
RESULT = HERE / "results" / "bench.json"
DOC = HERE.parent / "docs" / "speed.md"
GAMES = ("flow", "tolkuchka")
RATIOS = (  # (ratio key after "GAME.", label)
    ("mcts_over_openspiel_cpp", "our MCTS / OpenSpiel's C++ MCTSBot, equal simulations"),
    ("mcts_over_openspiel_python", "our MCTS / OpenSpiel's Python MCTSBot, equal simulations"),
    ("kernels_over_reference", "kernels / reference engine, random playouts"),
    ("kernels_over_adapter", "kernels / the OpenSpiel adapter played from Python, random playouts"),
    ("all_cores_over_one_core", "random playouts, all cores / one core"),
    ("playouts_over_breakthrough", "our random playouts / OpenSpiel's C++ ones on breakthrough"),
    ("mcts_over_breakthrough", "our MCTS / OpenSpiel's C++ MCTS on breakthrough"),
    ("batch_over_pgx_connect_four", "batched random self-play / pgx's connect_four, batch 8,192"),
    ("batch_over_pgx_othello", "batched random self-play / pgx's othello, batch 8,192"),
)
PGX_GAMES = ("othello", "connect_four")
ROWS = (  # (row key after "GAME.", label)
    ("perft", "perft from the start, leaves/s"),
    ("playouts", "random playouts, plies/s, 1 core"),
    ("playouts_all_cores", "random playouts, plies/s, all cores"),
    ("reference_playouts", "random playouts, plies/s, reference engine"),
    ("mcts", "our MCTS, simulations/s (from the start)"),
    ("alphabeta", "our alpha-beta, nodes/s (from the start)"),
    ("mcts_equal", "our MCTS, simulations/s (equal simulations)"),
    ("openspiel_cpp_mcts", "OpenSpiel C++ MCTSBot via the adapter, simulations/s"),
    ("openspiel_python_mcts", "OpenSpiel Python MCTSBot via the adapter, simulations/s"),
    ("openspiel_adapter_playouts", "random playouts via the adapter from Python, plies/s"),
    ("compile.perft", "first run, engine and perft: compile CPU s (wall s), fresh cache"),
    ("compile.tournament", "first run, everything a tournament needs: compile CPU s (wall s)"),
    ("cached_start", "cached start of `ludo-flow warmup GAME`, wall s"),
    ("cached.perft", "second run, engine and perft loaded from the cache: whole process, wall s"),
    ("cached.tournament", "second run, everything a tournament needs, from the cache: whole process, wall s"),
)


def cell(row, times=""):
    """Return `median (min–max)` of a row (a first run's wall seconds too), or a dash if it was
    not measured."""
    if row is None:
        return "–"
    if row.get("wall_s") is not None:
        return f"{figure(row['median'])}{times} (wall {figure(row['wall_s'])})"
    if row["min"] == row["max"]:
        return f"{figure(row['median'])}{times}"
    return f"{figure(row['median'])}{times} ({figure(row['min'])}–{figure(row['max'])})"


def batch_table(payload):
    """Return the lines of the batched random self-play table (ours on 1 and 2 threads, pgx's
    games; a column per batch size), after a blank line; none if the run had no batched rows."""
    sizes = payload.get("sizes", {}).get("batch_sizes") or []
    rows = payload["rows"]
    found = [(f"{game.capitalize()}, {threads} thread{'s' * (threads > 1)}",
              [batch_key(game, n, threads) for n in sizes]) for game in GAMES for threads in (1, 2)]
    found += [(f"pgx {game} (jax on the CPU)", [batch_key(game, n) for n in sizes]) for game in PGX_GAMES]
    found = [(label, keys) for label, keys in found if any(k in rows for k in keys)]
    if not found:
        return []
    lines = ["", "| batched random self-play, steps/s (observation and mask included) | "
             + " | ".join(f"batch {n:,}" for n in sizes) + " |", "|---|" + "---:|" * len(sizes)]
    lines += [f"| {label} | " + " | ".join(cell(rows.get(k)) for k in keys) + " |" for label, keys in found]
    return lines


def markdown(payload):
    """Return the Markdown table and the line describing the run and the machine."""
    info = payload["machine"]
    lines = ["| | Flow | Tolkuchka |", "|---|---:|---:|"]
    for key, label in RATIOS:
        lines.append(f"| **{label}** | " + " | ".join(
            cell(payload["ratios"].get(f"{game}.{key}"), "×") for game in GAMES) + " |")
    for key, label in ROWS:
        if any(f"{game}.{key}" in payload["rows"] for game in GAMES):
            lines.append(f"| {label} | " + " | ".join(
                cell(payload["rows"].get(f"{game}.{key}")) for game in GAMES) + " |")
    lines += batch_table(payload)
    yardstick = [payload["rows"].get(k) for k in ("breakthrough.cpp_playouts", "breakthrough.cpp_mcts")]
    libraries = ", ".join(f"{k} {v}" for k, v in info.get("libraries", {}).items())
    load, end = (" ".join(f"{x:.1f}" for x in values or ()) or "unknown"
                 for values in (info["load_average"], payload["load_average_end"]))
    about = (f"`{payload['command']}` ({payload['repeats']} rounds; medians with min–max), "
             f"{info['date']}, on {info['cpu']} ({info['cores']} cores), {info['platform']}, "
             f"python {info['python']}, numba {info['numba']}, numpy {info['numpy']}, {libraries}; "
             f"load average {load} at the start, {end} at the end.")
    if all(yardstick):
        about += (f" The yardstick, OpenSpiel's C++ on breakthrough: random playouts "
                  f"{cell(yardstick[0])} plies/s, MCTSBot {cell(yardstick[1])} simulations/s.")
    return "\n".join(lines) + "\n\n" + about


def document(payload):
    """Return the text of docs/speed.md: how it is made, the table, and what the run was."""
    return "\n".join([
        "# Speed",
        "",
        "Generated by `python benchmarks/bench_table.py --doc` from benchmarks/results/bench.json,",
        "the result of the last full `ludo-flow bench` run (it measures nothing); edit that script,",
        "not this file. To measure again: `ludo-flow bench`, then `python benchmarks/bench_table.py",
        "--doc`. docs/benchmarks.md says what each row measures and how.",
        "",
        "Ratios (bold) are medians of the per-round ratios of two rows measured in the same round;",
        "they move much less than the absolute figures, which drift by up to a third between runs",
        "on a shared VM. Every cell is the median of the rounds, with their min–max.",
        "",
        markdown(payload),
        "",
    ])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("result", nargs="?", default=str(RESULT),
                        help="a `ludo-flow bench` JSON file (default benchmarks/results/bench.json)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--doc", action="store_true", help="write docs/speed.md instead of printing the table")
    mode.add_argument("--check", action="store_true", help="exit 1 if docs/speed.md is out of date")
    parser.add_argument("--out", default=str(DOC), help="the file --doc writes and --check reads (default docs/speed.md)")
    args = parser.parse_args(argv)
    payload = json.loads(Path(args.result).read_text(encoding="utf-8"))
    if not (args.doc or args.check):
        print(markdown(payload))
        return
    text = document(payload)
    if args.check:
        try:
            current = Path(args.out).read_text(encoding="utf-8")
        except OSError:
            current = None
        if current != text:
            sys.exit(f"{args.out} is out of date: run python benchmarks/bench_table.py --doc")
        return
    Path(args.out).write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
