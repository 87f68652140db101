"""Print a `ludo-flow bench` result as the README's Markdown table (Flow and Tolkuchka side by side).

    python benchmarks/bench_table.py [benchmarks/results/bench.json]
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import figure  # noqa: E402

GAMES = ("flow", "tolkuchka")
RATIOS = (  # (ratio key after "GAME.", label)
    ("mcts_over_openspiel_cpp", "our MCTS / OpenSpiel's C++ MCTSBot, equal simulations"),
    ("mcts_over_openspiel_python", "our MCTS / OpenSpiel's Python MCTSBot, equal simulations"),
    ("kernels_over_reference", "kernels / reference engine, random playouts"),
    ("kernels_over_adapter", "kernels / the OpenSpiel adapter played from Python, random playouts"),
    ("all_cores_over_one_core", "random playouts, all cores / one core"),
    ("playouts_over_breakthrough", "our random playouts / OpenSpiel's C++ ones on breakthrough"),
    ("mcts_over_breakthrough", "our MCTS / OpenSpiel's C++ MCTS on breakthrough"),
)
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
    ("compile.perft", "first run, engine and perft: compile CPU s (fresh cache)"),
    ("compile.tournament", "first run, everything a tournament needs: compile CPU s"),
    ("cached_start", "cached start of `ludo-flow warmup GAME`, wall s"),
)


def cell(row, times=""):
    """Return `median (min–max)` of a row, or a dash if it was not measured."""
    if row is None:
        return "–"
    if row["min"] == row["max"]:
        return f"{figure(row['median'])}{times}"
    return f"{figure(row['median'])}{times} ({figure(row['min'])}–{figure(row['max'])})"


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


if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent / "results" / "bench.json"
    print(markdown(json.loads(Path(path).read_text())))
