"""What every benchmark script shares: the machine description, medians, tables, JSON output."""
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path


def machine():
    """Return a description of this machine and the software versions that matter for speed."""
    import numba
    import numpy
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"platform": platform.platform(), "cpu": cpu, "cores": os.cpu_count(),
            "python": platform.python_version(), "numba": numba.__version__, "numpy": numpy.__version__,
            "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
            "date": time.strftime("%Y-%m-%d %H:%M:%S")}


def median_rate(fn, repeats):
    """Call fn() `repeats` times; fn returns a work count; return (median per second, all rates)."""
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        work = fn()
        rates.append(work / (time.perf_counter() - start))
    return statistics.median(rates), rates


def spread(values):
    """Return {"median", "min", "max", "runs"} of a list of measurements."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "runs": list(values)}


def figure(value):
    """Return a measured figure written for a table: 7.31 M, 104,000, 0.92."""
    if value >= 1e6:
        return f"{value / 1e6:,.2f} M"
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def batch_key(game, size, threads=None):
    """Return the `ludo-flow bench` row key of a batched random self-play row: ours
    (`flow.batch_1024_2threads`) or, without `threads`, pgx's game (`pgx_othello.batch_64`)."""
    if threads is None:
        return f"pgx_{game}.batch_{size}"
    return f"{game}.batch_{size}_{threads}thread{'s' * (threads > 1)}"


def timed(fn):
    """Return (fn()'s value, seconds it took)."""
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def run_seconds(cmd, env=None):
    """Run a command line; return (seconds it took, its stdout). Raise if it fails."""
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    return time.perf_counter() - start, out.stdout


def cli_command(*args):
    """Return the argv that runs `ludo-flow ARGS` with this interpreter."""
    return [sys.executable, "-m", "agents.cli", *args]


def report(title, rows, payload, out_path):
    """Print a two-column table of (label, value) rows and write `payload` as JSON to out_path
    (unless it is None)."""
    info = payload["machine"]
    print(f"{title}\n{info['cpu']} ({info['cores']} cores), {info['platform']}, "
          f"python {info['python']}, numba {info['numba']}, numpy {info['numpy']}")
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"  {label:<{width}}  {value}")
    if out_path is None:
        return
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"(written to {out_path})")
