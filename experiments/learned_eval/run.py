"""The learned evaluation's loop at small scale: self-play -> train -> speed -> SPRT against texel.

    python experiments/learned_eval/run.py all          # every step; each is skipped if done
    python experiments/learned_eval/run.py selfplay     # or one step: selfplay, train, speed, sprt

1. selfplay: `alphabeta:depth=3` (the texel evaluation) plays GAMES games of Flow's `fountain`
   variant against itself (`ludo-flow selfplay`, 4 random opening plies) into data/ (not kept
   in git: it is remade in about five minutes).
2. train: `ludo-flow train` fits the value network (scikit-learn's MLPRegressor, HIDDEN ReLU
   units; the `learn` extra) and writes net.npz.
3. speed: the cost of one evaluation (the network against evaluate_tuned, in a jitted loop over
   positions of self-play games) and the nodes/s and simulations/s the searches keep with it.
4. sprt: alpha-beta with eval=net:net.npz against eval=texel at equal time per move
   (SPRT elo0=0, elo1=20, alpha=beta=0.05; random 4-ply openings, both colours), into
   records/sprt.jsonl.gz.
5. sprt_depth: the same match at equal depth (3 plies), the network's knowledge without its
   cost, into records/sprt_depth.jsonl.gz.
6. sprt_mcts: MCTS (the informed default) with eval=net:net.npz against eval=texel at equal
   time per move, the same SPRT and openings, into records/sprt_mcts.jsonl.gz.
7. throughput: `ludo-flow selfplay` with the self-play settings at --workers 1 and 2,
   THROUGHPUT_GAMES games a run into a temporary folder (after an untimed run that compiles),
   the two alternating for THROUGHPUT_ROUNDS rounds: games/s and positions/s of each run (the
   command's own figures: the whole run, worker start included), with the load average.

Results go to results.json and results.md.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(HERE))

from common import code_version  # noqa: E402

GAME, VARIANT = "flow", "fountain"
SELFPLAY_AGENT = "alphabeta:depth=3"
GAMES = 20000
HIDDEN = 64
EPOCHS = 6
DATA = os.path.join(HERE, "data")
NET = os.path.join(HERE, "net.npz")
# as the commands and specs name them (the script runs in ROOT): the reports kept in
# results.json and results.md then hold no path of this machine
DATA_PATH = os.path.relpath(DATA, ROOT)
NET_PATH = os.path.relpath(NET, ROOT)
RESULTS = os.path.join(HERE, "results.json")
MOVE_TIME = 0.05  # seconds a move, both sides
SPRT = "elo0=0,elo1=20,alpha=0.05,beta=0.05"
SPRT_MAX_GAMES = 1000  # the match stops as soon as the SPRT decides
OPENINGS = "random:plies=4"
THROUGHPUT_GAMES = 2000
THROUGHPUT_ROUNDS = 4


def cli(*words):
    """Run `ludo-flow WORDS` here; return its last stdout line."""
    done = subprocess.run([sys.executable, "-m", "agents.cli", *map(str, words)], cwd=ROOT,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(done.stderr.strip())
    return done.stdout.strip().splitlines()[-1]


def load_results():
    if os.path.exists(RESULTS):
        with open(RESULTS) as f:
            return json.load(f)
    return {}


def save_results(results, key):
    """Write results[key] (and the code's version) into the results file, keeping the other
    steps' figures as the file has them now (another step may have run meanwhile)."""
    merged = load_results()
    merged[key] = results[key]
    merged["code"] = results["code"]
    with open(RESULTS, "w") as f:
        json.dump(merged, f, indent=1)
    return merged


def step_selfplay(results, workers):
    began = time.time()
    line = cli("selfplay", GAME, "--variant", VARIANT, "--agent", SELFPLAY_AGENT, "--games", GAMES,
               "--out", DATA_PATH, "--workers", workers, "--seed", 3, "--quiet",
               *(["--resume"] if os.path.exists(os.path.join(DATA, "selfplay.json")) else []))
    results["selfplay"] = {"agent": SELFPLAY_AGENT, "games": GAMES, "variant": VARIANT,
                           "workers": workers, "report": line, "seconds": time.time() - began}


def step_throughput(results):
    """Time `ludo-flow selfplay` (the self-play step's settings) at 1 and 2 workers, alternating."""
    import re
    import tempfile
    runs = []
    with tempfile.TemporaryDirectory(prefix="learned_eval_selfplay_") as folder:  # compiles, untimed
        cli("selfplay", GAME, "--variant", VARIANT, "--agent", SELFPLAY_AGENT, "--games", 4,
            "--out", os.path.join(folder, "data"), "--workers", 1, "--quiet")
    for r in range(THROUGHPUT_ROUNDS):
        for workers in ((1, 2) if r % 2 == 0 else (2, 1)):
            with tempfile.TemporaryDirectory(prefix="learned_eval_selfplay_") as folder:
                load = os.getloadavg()
                began = time.time()
                line = cli("selfplay", GAME, "--variant", VARIANT, "--agent", SELFPLAY_AGENT,
                           "--games", THROUGHPUT_GAMES, "--out", os.path.join(folder, "data"),
                           "--workers", workers, "--seed", 3, "--quiet")
                seconds = time.time() - began
            games, positions, inside = re.match(r"(\d+) games, (\d+) positions in ([\d.]+) s", line).groups()
            runs.append({"workers": workers, "games": int(games), "positions": int(positions),
                         "seconds": float(inside), "process_seconds": seconds,
                         "games_per_s": int(games) / float(inside),
                         "positions_per_s": int(positions) / float(inside),
                         "load_average_before": list(load), "load_average_after": list(os.getloadavg())})
            print(f"workers {workers}: {line.split(';')[0]}", flush=True)
    by_workers = {}
    for w in (1, 2):
        mine = [run for run in runs if run["workers"] == w]
        by_workers[str(w)] = {"games_per_s": sum(x["games_per_s"] for x in mine) / len(mine),
                              "positions_per_s": sum(x["positions_per_s"] for x in mine) / len(mine)}
    results["throughput"] = {"agent": SELFPLAY_AGENT, "variant": VARIANT, "games": THROUGHPUT_GAMES,
                             "rounds": THROUGHPUT_ROUNDS, "runs": runs, "mean": by_workers,
                             "two_over_one": by_workers["2"]["games_per_s"] / by_workers["1"]["games_per_s"],
                             "cores": os.cpu_count(), "code": results["code"]}


def step_train(results):
    began = time.time()
    done = subprocess.run([sys.executable, "-m", "agents.cli", "train", GAME, "--data", DATA_PATH,
                           "--out", NET_PATH, "--hidden", str(HIDDEN), "--epochs", str(EPOCHS)],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(done.stderr.strip())
    results["train"] = {"hidden": HIDDEN, "epochs": EPOCHS, "trainer": "scikit-learn MLPRegressor",
                        "report": done.stdout.strip().splitlines()[-1],
                        "epochs_log": [line for line in done.stderr.splitlines()
                                       if line.startswith("epoch ")],
                        "seconds": time.time() - began}


def sample_states(count=2000, seed=0):
    """Return `count` non-final positions of fountain games played by the self-play agent."""
    import random
    import ludo_flow
    from agents import make_agent
    game = ludo_flow.load_game(GAME, VARIANT)
    rng = random.Random(seed)
    agent = make_agent("alphabeta:depth=1")
    states = []
    while len(states) < count:
        state = game.new_initial_state()
        for ply in range(200):
            if state.is_terminal():
                break
            states.append(state.clone())
            legal = state.legal_actions()
            state.apply(rng.choice(legal) if ply < 4 or rng.random() < 0.3 else agent.select_action(state))
    return states[:count]


def step_speed(results):
    """Measure ns per evaluation and the searches' rates with each evaluation."""
    import numpy as np
    from numba import njit
    from agents import make_agent
    from ludo_flow import dispatch, network

    @njit
    def loop(game, states, evaluation, net, reps):
        total = 0.0
        for _ in range(reps):
            for i in range(states.shape[0]):
                total += network.evaluate(game, states[i], evaluation, net)
        return total

    states = sample_states()
    arrays = np.stack([s.array for s in states])
    net = network.load_net(NET).net
    gid = states[0].game.game_id
    per_eval = {}
    for name, evaluation in (("texel", dispatch.TUNED), ("hand", dispatch.HAND), ("net", network.NET)):
        loop(gid, arrays[:2], evaluation, net, 1)  # compile
        best = []
        for _ in range(5):
            t = time.perf_counter()
            loop(gid, arrays, evaluation, net, 20)
            best.append((time.perf_counter() - t) / (20 * len(arrays)) * 1e9)
        per_eval[name] = {"median_ns": float(np.median(best)), "min_ns": float(min(best))}
    rates = {}
    positions = states[::200]
    # A time budget a move, the agent kept between positions (a new alpha-beta allocates its
    # table, which would dominate a short search); the two evaluations alternate, twice.
    for label, spec, key in (("alphabeta texel", "alphabeta:depth=99,time=0.2", "nodes"),
                             ("alphabeta net", f"alphabeta:depth=99,time=0.2,eval=net:{NET_PATH}", "nodes"),
                             ("mcts texel", "mcts:time=0.2", "simulations"),
                             ("mcts net", f"mcts:time=0.2,eval=net:{NET_PATH}", "simulations")) * 2:
        agent = make_agent(spec)
        agent.select_action(positions[0])  # compile
        work, seconds = 0, 0.0
        for s in positions:
            agent.select_action(s)
            work += agent.last_stats[key]
            seconds += agent.last_stats["time"]
        rates.setdefault(label, {"spec": spec, "unit": f"{key}/s", "runs": []})
        rates[label]["runs"].append(work / seconds)
    for v in rates.values():
        v["rate"] = sum(v["runs"]) / len(v["runs"])
    results["speed"] = {"ns_per_evaluation": per_eval, "rates": rates,
                        "positions": len(arrays)}


def step_sprt(results, workers, name="sprt", budget=f"depth=99,time={MOVE_TIME}", agent="alphabeta"):
    """Play the SPRT match of `agent` with the network against texel at `budget` (equal
    for both) into records/NAME.jsonl.gz; store its figures under results[NAME]."""
    from agents.records import load_records
    from agents.tournament import Tournament
    net_spec = f"{agent}:{budget},eval=net:{NET_PATH}"
    texel_spec = f"{agent}:{budget}"
    out = os.path.join(HERE, "records", f"{name}.jsonl.gz")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    began = time.time()
    t = Tournament(GAME, [net_spec, texel_spec], variant=VARIANT, games=SPRT_MAX_GAMES,
                   openings=OPENINGS, seed=11, out=out, sprt=SPRT, workers=workers,
                   resume=os.path.exists(out), progress=False)
    result = t.run()
    records = list(load_records(out))
    wins = sum(1 for r in records if _points(r, net_spec) == 1.0)
    draws = sum(1 for r in records if _points(r, net_spec) == 0.5)
    losses = len(records) - wins - draws
    results[name] = {"first": net_spec, "second": texel_spec, "sprt": result.sprt,
                     "openings": OPENINGS, "games": len(records), "net_wins": wins,
                     "draws": draws, "net_losses": losses, "seconds": time.time() - began,
                     "workers": workers}


def _points(record, spec):
    """Return the points `spec` scored in a record (1, 0.5 or 0)."""
    if record["result"] == "1/2-1/2":
        return 0.5
    white_won = record["result"] == "1-0"
    return 1.0 if white_won == (record["white"] == spec) else 0.0


def write_markdown(results):
    lines = ["# Learned evaluation: results", "",
             f"Code: {results.get('code', {}).get('commit')}", ""]
    if "selfplay" in results:
        lines += [f"Self-play: `{results['selfplay']['agent']}`, {results['selfplay']['report']}", ""]
    if "train" in results:
        lines += [f"Training ({results['train']['hidden']} hidden units, {results['train']['epochs']} "
                  f"epochs): {results['train']['report']}", ""]
    if "speed" in results:
        sp = results["speed"]
        lines += ["| evaluation | ns per evaluation (median of 5) |", "|---|---:|"]
        lines += [f"| {k} | {v['median_ns']:.0f} |" for k, v in sp["ns_per_evaluation"].items()]
        lines += ["", "| search | rate |", "|---|---:|"]
        for k, v in sp["rates"].items():
            lines.append(f"| `{v['spec']}` | {v['rate']:,.0f} {v['unit']} |")
        lines.append("")
    if "throughput" in results:
        tp = results["throughput"]
        lines += [(f"Self-play throughput (`{tp['agent']}`, {tp['games']:,} games a run, "
                   f"{tp['rounds']} rounds alternating):"), "",
                  "| workers | games/s | positions/s | load average before (1 min) |", "|---:|---:|---:|---:|"]
        lines += [f"| {x['workers']} | {x['games_per_s']:.1f} | {x['positions_per_s']:,.0f} | "
                  f"{x['load_average_before'][0]:.2f} |" for x in tp["runs"]]
        lines += ["", f"2 workers / 1 worker: {tp['two_over_one']:.2f}x games/s.", ""]
    for name in ("sprt", "sprt_depth", "sprt_mcts"):
        if name in results:
            s = results[name]
            llr = f"LLR {s['sprt']['llr']:.2f} in ({s['sprt']['lower']:.2f}, {s['sprt']['upper']:.2f})"
            # `timing`: a note written into results.json by hand when `seconds` misleads (a resumed run)
            timing = s.get("timing") or f"{s['seconds']:.0f} s on {s['workers']} workers"
            lines += [f"SPRT ({SPRT}) `{s['first']}` against `{s['second']}`: {s['games']} games, "
                      f"net {s['net_wins']} wins, {s['draws']} draws, {s['net_losses']} losses; "
                      f"decision {s['sprt']['decision']}, {llr}; {timing}.", ""]
    with open(os.path.join(HERE, "results.md"), "w") as f:
        f.write("\n".join(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("all", "selfplay", "train", "speed", "sprt", "sprt_depth",
                                         "throughput", "sprt_mcts"))
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    os.chdir(ROOT)  # the specs name the network's file relative to the repository
    results = load_results()
    # the commit, not the folder it ran in (a path of this machine)
    results["code"] = {k: v for k, v in code_version().items() if k != "path"}
    steps = (("selfplay", "train", "speed", "sprt", "sprt_depth", "sprt_mcts") if args.step == "all"
             else (args.step,))
    for step in steps:
        if step == "selfplay":
            step_selfplay(results, args.workers)
        elif step == "train":
            step_train(results)
        elif step == "speed":
            step_speed(results)
        elif step == "sprt":
            step_sprt(results, args.workers)
        elif step == "throughput":
            step_throughput(results)
        elif step == "sprt_mcts":  # MCTS's simulations budget off: time alone, as alpha-beta's depth
            step_sprt(results, args.workers, "sprt_mcts", f"simulations=0,time={MOVE_TIME}", "mcts")
        else:  # equal depth: the network's knowledge without its cost
            step_sprt(results, args.workers, "sprt_depth", "depth=3")
        write_markdown(save_results(results, step))
        print(f"{step}: done", flush=True)


if __name__ == "__main__":
    main()
