"""Regenerate the opening suites shipped in the package (agents/suites/*.txt).

    python experiments/openings/make_suites.py [--only flow-standard ...]

Runs `ludo-flow openings` once per suite with the settings in SUITES (the header of each file
repeats them) and prints each command and its summary line. Deterministic: the same settings
give the same file. About 5 minutes on one idle core of the development VM, most of it Flow's
standard board (a depth-6 search costs about 0.3 s there).
"""
import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "agents" / "suites"
# name -> (game, variant, count, random turns each, balance); all --unique, seed 1
SUITES = {
    "flow-standard": ("flow", "standard", 400, 1, "depth=6,window=0.2"),
    "flow-stones": ("flow", "stones", 300, 1, "depth=6,window=0.2"),
    "flow-fountain": ("flow", "fountain", 200, 1, "depth=6,window=0.2"),
    # one random turn each gives at most 131 Tolkuchka positions (perft 2): two turns each
    "tolkuchka-standard": ("tolkuchka", "standard", 500, 2, "depth=6,window=0.2"),
}
SEED = 1


def command(name):
    """Return the `ludo-flow openings` arguments that write suite `name`."""
    game, variant, count, turns, balance = SUITES[name]
    return ["openings", game, "--variant", variant, "--count", str(count), "--turns", str(turns),
            "--balanced", balance, "--unique", "--seed", str(SEED), "--quiet",
            "--out", str(OUT / f"{name}.txt")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=sorted(SUITES), help="these suites only")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    for name in args.only or SUITES:
        words = command(name)
        print("ludo-flow " + " ".join(words), flush=True)
        subprocess.run([sys.executable, "-m", "agents.cli"] + words, check=True, cwd=ROOT)


if __name__ == "__main__":
    main()
