"""Write the ratings fixtures of tests/arena/test_streaming.py and their expected reports.

The expected reports were computed by the in-memory `rate_records` (records held in a list,
rated at the end) before the ratings streamed; the test checks that the streaming ratings print
the same. Run from the repository's root: `python experiments/scale/make_rating_fixtures.py`
(it plays two small tournaments, a few seconds each, and overwrites the fixtures).
"""
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "tests", "arena", "data", "ratings")
RESULT = {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}


def synthetic_many(rng):
    """Five agents of different strength, pairs of games, a few unfinished and odd results."""
    strength = {"a": 150, "b": 60, "c": 0, "d": -40, "e": -200}
    names = list(strength)
    lines = []
    for k in range(180):
        x, y = rng.sample(names, 2)
        for swap, (w, b) in enumerate(((x, y), (y, x))):
            p = 1 / (1 + 10 ** (-(strength[w] - strength[b] + 30) / 400))
            u = rng.random()
            result = "1-0" if u < p * 0.85 else ("1/2-1/2" if u < p * 0.85 + 0.15 else "0-1")
            if rng.random() < 0.02:
                result = rng.choice(["*", "abandoned"])
            lines.append({"id": f"g{k}-{swap}", "pair": f"q{k}", "white": w, "black": b, "result": result,
                          "game": "flow", "variant": "standard", "params": {"max_turns": 200}})
    rng.shuffle(lines)
    return lines


def synthetic_two(rng):
    """A two-agent match: complete pairs, pairs cut short, pairs without the colours swapped,
    a pair id of three games, games without a pair, unfinished games."""
    lines = []
    for k in range(150):
        s1, s2 = rng.choices([0.0, 0.5, 1.0], [0.3, 0.3, 0.4], k=2)
        lines.append({"id": 2 * k, "pair": f"pr{k}", "white": "new", "black": "7", "result": RESULT[s1]})
        if k % 23 == 5:
            continue                                   # a pair cut short
        if k % 31 == 7:
            lines.append({"id": 2 * k + 1, "pair": f"pr{k}", "white": "new", "black": "7", "result": RESULT[s2]})
            continue                                   # both games with the same colours
        lines.append({"id": 2 * k + 1, "pair": f"pr{k}", "white": "7", "black": "new", "result": RESULT[1.0 - s2]})
        if k % 37 == 11:
            lines.append({"id": f"x{k}", "pair": f"pr{k}", "white": "new", "black": "7", "result": "1-0"})
    for k in range(20):
        lines.append({"id": f"free{k}", "white": rng.choice(["new", "7"]), "black": None, "result": "0-1"})
        lines[-1]["black"] = "7" if lines[-1]["white"] == "new" else "new"
    lines.append({"id": "u1", "pair": "pr999", "white": "7", "black": "new", "result": "*"})
    for i in range(0, len(lines) - 1, 2):              # completion order: neighbours swap
        if rng.random() < 0.3:
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
    return lines


def tournament(name, *args):
    path = os.path.join(DATA, name)
    if os.path.exists(path):
        os.unlink(path)
    subprocess.run([sys.executable, "-m", "agents.cli", "tournament", "flow", "--variant", "fountain", *args,
                    "--quiet", "--out", path], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def main():
    rng = random.Random(36)
    for name, lines in (("many.jsonl", synthetic_many(rng)), ("two.jsonl", synthetic_two(rng))):
        with open(os.path.join(DATA, name), "w") as fh:
            fh.writelines(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
    tournament("real3.jsonl", "--agents", "random", "random:seed=1", "alphabeta:depth=1", "--games", "8",
               "--openings", "random:plies=2", "--seed", "3", "--workers", "0")
    tournament("real2.jsonl", "--agents", "random", "random:seed=1", "--games", "40", "--seed", "4",
               "--workers", "2")
    expected = {}
    for name in ("many.jsonl", "two.jsonl", "real3.jsonl", "real2.jsonl"):
        path = os.path.join(DATA, name)
        out = {}
        for key, extra in (("text", []), ("json", ["--json"]), ("anchored", ["--anchor", "random"])):
            if key == "anchored" and not name.startswith("real"):
                extra = ["--anchor", "c"] if name == "many.jsonl" else ["--anchor", "new"]
            done = subprocess.run([sys.executable, "-m", "agents.cli", "ratings", path, *extra], cwd=ROOT,
                                  capture_output=True, text=True, check=True)
            out[key] = done.stdout
            out[key + "_err"] = done.stderr
        expected[name] = out
    with open(os.path.join(DATA, "expected.json"), "w") as fh:
        json.dump(expected, fh, indent=1, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    main()
