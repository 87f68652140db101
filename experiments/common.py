"""What the experiment scripts share: the code version they ran, and a mean with its interval."""
import math
import os
import sys
import time


def code_version():
    """Return where ludo_flow was imported from and its commit (a COMMIT file beside an exported
    tree, else `git rev-parse HEAD` with a dirty flag), so results name the code that made them."""
    import subprocess
    import ludo_flow
    root = os.path.dirname(os.path.dirname(os.path.abspath(ludo_flow.__file__)))
    out = {"path": root}
    try:
        with open(os.path.join(root, "COMMIT")) as fh:
            out["commit"] = fh.read().strip()
    except OSError:
        try:
            out["commit"] = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True,
                                           text=True, check=True).stdout.strip()
            out["dirty"] = bool(subprocess.run(["git", "-C", root, "status", "--porcelain", "ludo_flow",
                                                "agents"], capture_output=True, text=True).stdout.strip())
        except (OSError, subprocess.CalledProcessError):
            out["commit"] = None
    return out


def mean_ci(xs):
    """Return (mean, half width of the 95 % normal interval) of a list of numbers."""
    n = len(xs)
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    return m, 1.96 * math.sqrt(var / n)


def play_file(tournament, previous, resume, label=""):
    """Play (or resume) one Tournament into its records file; return its wall seconds (on a
    resume, a file already complete is not opened again and keeps its time from `previous`)."""
    from agents.records import load_records
    name = os.path.basename(tournament.out)
    if resume and name in previous and os.path.exists(tournament.out) and \
            len(load_records(tournament.out)) == len(tournament.schedule()):
        return previous[name]
    start = time.time()
    tournament.run()
    seconds = time.time() - start
    print(f"{label}{name}: {seconds:.0f} s", file=sys.stderr)
    return seconds
