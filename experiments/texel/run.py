"""Texel tuning: fit the evaluations' weights to the results of self-play games.

    python experiments/texel/run.py play [--games 3000] [--depth 3] [--seed 12]
    python experiments/texel/run.py fit

`play` plays self-play games per game (Flow `standard`, Tolkuchka): the same alpha-beta agent
(`alphabeta:depth=D`) on both sides, from a seeded random opening of 2 to 8 plies (the
tournament runner's `random_opening`), each side reset with a seed derived from the game's
index. The games are kept as records (`agents.records` fields) in
`records/selfplay-GAME.jsonl.gz`, so any position can be rebuilt by replaying them.

`fit` replays every record, takes every non-final position after the opening, labels it with
the game's final result from White's side (1, 1/2, 0), computes the features of
`features.py`, and fits logistic models (logit = w . features, no intercept: White's view
stays antisymmetric) by Newton's method on the log-loss with soft labels. Every fifth game
is held out; accuracy (the favourite wins, over the positions of decisive held-out games)
and log-loss are reported for the hand evaluation as it is (its value is 2 p - 1), the hand
evaluation with a fitted scale, the current terms refitted, each new feature added alone,
and all features. Writes results.json and results.md beside this script.
"""
import argparse
import gzip
import json
import os
import platform
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))  # experiments/common.py
from common import code_version  # noqa: E402
from features import FEATURES  # noqa: E402

GAMES = ("flow", "tolkuchka")
OPENING_PLIES = (2, 3, 4, 5, 6, 7, 8)
HOLD_OUT = 5  # game index % HOLD_OUT == 0 is held out
RIDGE = 1e-4  # a whisper of L2 (per position) so a feature that never varies cannot diverge
# The features the tuned evaluations use (the kernels' TUNED_TERMS): all but those whose
# removal costs (almost) nothing in held-out log-loss (the "all - X" rows).
TUNED_LABEL = "tuned terms, fitted"
# Features that only re-express others (Tolkuchka's material_fresh = material - material_quiet,
# material_near = material - material_gap): used by the tuned model, left out of the rest.
REEXPRESSED = ("material_fresh", "material_near")


def records_path(game):
    """Return the path of a game's self-play records."""
    return os.path.join(HERE, "records", f"selfplay-{game}.jsonl.gz")


def play(game_name, games, depth, seed):
    """Play `games` self-play games of one game; write their records; return a summary."""
    import ludo_flow
    from agents import make_agent
    from agents.play import play_game
    from agents.records import record_line
    from agents.tournament import derive_seed, random_opening
    game = ludo_flow.load_game(game_name)
    spec = f"alphabeta:depth={depth}"
    white, black = make_agent(spec, game), make_agent(spec, game)
    start = game.new_initial_state()
    os.makedirs(os.path.dirname(records_path(game_name)), exist_ok=True)
    began = time.time()
    with gzip.open(records_path(game_name), "wt", encoding="utf-8") as fh:
        for k in range(games):
            opening = random_opening(start, OPENING_PLIES[k % len(OPENING_PLIES)],
                                     derive_seed(seed, "texel", game_name, k))
            state = start.clone()
            for word in opening:
                state.apply(state.parse_action(word))
            seeds = derive_seed(seed, k, "white"), derive_seed(seed, k, "black")
            white.reset(seeds[0])
            black.reset(seeds[1])
            fields = play_game(state, white, black)
            record = {"id": f"g{k}", "game": game_name, "variant": game.variant,
                      "params": dict(game.params), "start": start.to_string(), "opening": opening,
                      "white": spec, "black": spec, "seed_white": seeds[0], "seed_black": seeds[1],
                      "sources": ludo_flow.cache.sources_id()}
            record.update(fields)
            fh.write(record_line(record))
    return {"game": game_name, "games": games, "agent": spec, "seed": seed,
            "opening_plies": list(OPENING_PLIES), "seconds": time.time() - began}


def positions(game_name):
    """Return (states n x k uint64, White's score per position, game index per position,
    plies per game) from the replayed self-play records."""
    from agents.ratings import RESULT_SCORES
    from agents.records import replay_states
    rows, labels, index = [], [], []
    with gzip.open(records_path(game_name), "rt", encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh]
    for k, record in enumerate(records):
        y = RESULT_SCORES[record["result"]]
        for ply, _, state in replay_states(record):
            if state.is_terminal():
                continue
            rows.append(state.array.copy())
            labels.append(y)
            index.append(k)
    return np.array(rows), np.array(labels), np.array(index), records


def log_loss(logit, y):
    """Return the mean cross-entropy of soft labels `y` under p = sigmoid(logit)."""
    # log(1 + e^-z) computed stably for either sign
    return float(np.mean(np.logaddexp(0.0, -logit) * y + np.logaddexp(0.0, logit) * (1.0 - y)))


def position_losses(logit, y):
    """Return the cross-entropy of each position."""
    return np.logaddexp(0.0, -logit) * y + np.logaddexp(0.0, logit) * (1.0 - y)


def clustered_half_width(diff, games):
    """Return the 95 % half width of mean(diff) with the positions of one game as a cluster
    (the positions of a game share its label, so they are far from independent)."""
    _, inverse = np.unique(games, return_inverse=True)
    sums = np.bincount(inverse, weights=diff)
    counts = np.bincount(inverse)
    mean = diff.mean()
    return float(1.96 * np.sqrt(np.sum((sums - counts * mean) ** 2)) / len(diff))


def accuracy(logit, y):
    """Return the share of decisive positions (y 0 or 1) whose favourite (logit sign) won."""
    decisive = y != 0.5
    return float(np.mean((logit[decisive] > 0) == (y[decisive] == 1.0)))


def fit_logistic(x, y, iterations=50):
    """Return the weights minimising the log-loss of p = sigmoid(x . w) (Newton's method)."""
    n, k = x.shape
    w = np.zeros(k)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        grad = x.T @ (p - y) / n + RIDGE * w
        hess = (x * (p * (1.0 - p))[:, None]).T @ x / n + RIDGE * np.eye(k)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return w


def evaluate_states(evaluate, states):
    """Return a kernel evaluation of each state (White's view, in (-1, 1))."""
    return np.array([evaluate(s) for s in states])


def fit_game(game_name):
    """Return the fits of one game: models, their held-out figures, weights."""
    import ludo_flow
    from agents.ratings import RESULT_SCORES
    names, current, hand, featurize = FEATURES[game_name]
    states, y, index, records = positions(game_name)
    x = featurize(states)
    test = index % HOLD_OUT == 0
    train = ~test
    out = {"game": game_name, "games": len(records), "positions": int(len(y)),
           "train_positions": int(train.sum()), "test_positions": int(test.sum()),
           "results": {r: sum(rec["result"] == r for rec in records) for r in RESULT_SCORES},
           "terminations": {}, "features": list(names), "models": []}
    for rec in records:
        out["terminations"][rec["termination"]] = out["terminations"].get(rec["termination"], 0) + 1
    value = np.clip(evaluate_states(ludo_flow.load_game(game_name).kernels.evaluate, states), -1 + 1e-12, 1 - 1e-12)
    hand_logit = np.log1p(value) - np.log1p(-value)  # logit of p = (1 + v) / 2
    hand_w = np.array([hand.get(n, 0.0) for n in names])
    # the features reproduce the kernel's evaluation (up to its clip)
    out["hand_reproduced_max_error"] = float(np.max(np.abs(x @ hand_w - hand_logit)))

    def model(label, columns, weights=None, logit=None):
        cols = [names.index(c) for c in columns]
        if logit is None:
            if weights is None:
                weights = fit_logistic(x[train][:, cols], y[train])
            logit = x[:, cols] @ weights
        entry = {"model": label, "features": list(columns),
                 "weights": None if weights is None else [float(v) for v in weights],
                 "train_log_loss": log_loss(logit[train], y[train]),
                 "test_log_loss": log_loss(logit[test], y[test]),
                 "test_accuracy": accuracy(logit[test], y[test]),
                 "test_brier": float(np.mean(((1 + np.tanh(logit[test] / 2)) / 2 - y[test]) ** 2))}
        entry["test_logit"] = logit[test]
        out["models"].append(entry)
        return entry

    model("hand (as it is)", current, weights=hand_w[[names.index(c) for c in current]])
    scale = fit_logistic(hand_logit[train][:, None], y[train])[0]
    entry = model("hand, fitted scale", current, logit=scale * hand_logit)
    entry["scale"] = float(scale)
    base = model("current terms refitted", current)
    candidates = [n for n in names if n not in REEXPRESSED]
    for extra in candidates:
        if extra not in current:
            model(f"current + {extra}", list(current) + [extra])
    model("all features", candidates)
    for dropped in candidates:
        model(f"all - {dropped}", [n for n in candidates if n != dropped])
    kernels = ludo_flow.load_game(game_name).kernels
    if game_name == "tolkuchka":  # the tuned terms' unconstrained twin (see README.md)
        model("additive twin of the tuned terms", ["material", "mobility", "exposure", "attacks_mover",
                                                   "attacks_waiting", "material_quiet", "material_gap"])
    tuned = model(TUNED_LABEL, kernels.TUNED_TERMS)
    out["tuned"] = dict(zip(tuned["features"], tuned["weights"]))
    value = np.clip(evaluate_states(kernels.evaluate_tuned, states), -1 + 1e-12, 1 - 1e-12)
    model("evaluate_tuned (the kernel: weights rounded to 4 places)", kernels.TUNED_TERMS,
          logit=np.log1p(value) - np.log1p(-value))
    out["baseline_test_log_loss"] = base["test_log_loss"]
    base_losses = position_losses(base["test_logit"], y[test])
    for m in out["models"]:
        diff = position_losses(m.pop("test_logit"), y[test]) - base_losses
        m["test_log_loss_vs_refitted"] = float(diff.mean())
        m["test_log_loss_vs_refitted_ci"] = clustered_half_width(diff, index[test])
    return out


def markdown(report):
    """Return results.md."""
    lines = ["# Texel tuning of the evaluations", "",
             f"Self-play: `{report['play']['flow']['agent']}` against itself, random openings of "
             f"{min(OPENING_PLIES)}-{max(OPENING_PLIES)} plies, seed {report['play']['flow']['seed']}. "
             f"Every {HOLD_OUT}th game held out. Log-loss on soft labels (win 1, draw 1/2, loss 0, White's "
             "side); accuracy: the favourite won, over the positions of decisive held-out games. "
             "Weights are in logit units (evaluate = tanh(logit / 2)).", ""]
    for game in GAMES:
        g = report["fits"][game]
        lines += [f"## {game}", "",
                  f"{g['games']} games ({', '.join(f'{k} {v}' for k, v in g['results'].items())}; "
                  f"ended by {', '.join(f'{k} {v}' for k, v in g['terminations'].items())}), "
                  f"{g['positions']} positions ({g['train_positions']} train, {g['test_positions']} test). "
                  f"The features reproduce the kernel's evaluation within {g['hand_reproduced_max_error']:.1e}.", "",
                  "| model | test log-loss | Δ vs current refitted (95 %, games as clusters) | test accuracy | test Brier |",
                  "|---|---:|---:|---:|---:|"]
        for m in g["models"]:
            lines.append(f"| {m['model']} | {m['test_log_loss']:.4f} | "
                         f"{m['test_log_loss_vs_refitted']:+.4f} ± {m['test_log_loss_vs_refitted_ci']:.4f} | "
                         f"{100 * m['test_accuracy']:.1f}% | {m['test_brier']:.4f} |")
        lines += ["", "| feature | hand | current refitted | all features | tuned |", "|---|---:|---:|---:|---:|"]
        by = {m["model"]: m for m in g["models"]}
        _, current, hand, _ = FEATURES[game]
        for name in g["features"]:
            def weight(label):
                m = by[label]
                return f"{m['weights'][m['features'].index(name)]:+.4f}" if name in m["features"] else ""
            lines.append(f"| {name} | {hand.get(name, 0.0) if name in hand else ''} | "
                         f"{weight('current terms refitted')} | {weight('all features')} | "
                         f"{weight(TUNED_LABEL)} |")
        lines.append("")
    lines += matches_markdown(report)
    return "\n".join(lines) + "\n"


def matches_markdown(report):
    """Return the lines of results.md for the SPRT matches and the matches against Random."""
    lines = []
    keys = ("sprt", "sprt_alphabeta_time", "sprt_mcts")
    tests = [(key, game, entry) for key in keys for game, entry in report.get(key, {}).items()]
    tests += [("sprt_superseded", game, entry) for game, entry in report.get("sprt_superseded", {}).items()]
    if tests:
        lines += ["## SPRT: tuned against hand", "",
                  f"`{SPRT}` (normalized model), openings `{SPRT_OPENINGS}` played with both colours, one "
                  "worker; the match stops when the test decides. Elo ± is per opening pair (95 %).", "",
                  "| game | tuned | hand | decision | LLR | games | W | D | L | score | Elo | pairs LL/LD/WL+DD/WD/WW |",
                  "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
        for key, game, e in tests:
            first = e.get("first", "alphabeta:depth=3,eval=texel")
            second = e.get("second", "alphabeta:depth=3,eval=hand")
            label = game + (" (superseded form)" if key == "sprt_superseded" else "")
            lines.append(f"| {label} | `{first}` | `{second}` | {e['sprt']['decision'] or 'undecided'} | {e['sprt']['llr']:.2f} | "
                         f"{e['games']} | {e['wins']} | {e['draws']} | {e['losses']} | {100 * e['score']:.1f}% | "
                         f"{e['elo']:+.0f} ± {e['elo_error']:.0f} | {'/'.join(map(str, e['sprt']['pairs']))} |")
        lines.append("")
    if report.get("vs_random"):
        lines += ["## Alpha-beta depth 3 against Random", "",
                  "100 games per evaluation, 50 random 2-ply openings played with both colours (seed "
                  f"{report['play']['flow']['seed']}).", "",
                  "| game | agent | W | D | L | draws ended by |", "|---|---|---:|---:|---:|---|"]
        for game, by_eval in report["vs_random"].items():
            for e, m in by_eval.items():
                ends = ", ".join(f"{k} {v}" for k, v in m["draw_terminations"].items()) or "-"
                lines.append(f"| {game} | `alphabeta:depth=3,eval={e}` | {m['wins']} | {m['draws']} | "
                             f"{m['losses']} | {ends} |")
        lines.append("")
    return lines


SPRT = "elo0=0,elo1=20,alpha=0.05,beta=0.05"
SPRT_SPECS = {"alphabeta": "alphabeta:depth=3", "mcts": "mcts:simulations=300",
              "alphabeta_time": "alphabeta:depth=99,time=0.02"}  # equal time: the tuned leaf costs more
SPRT_OPENINGS = "random:plies=4"
SPRT_MAX_GAMES = 6000  # the match stops as soon as the SPRT decides


def sprt(game_name, seed, workers, search, max_games=SPRT_MAX_GAMES):
    """Play the SPRT match of `search` (SPRT_SPECS) with the tuned evaluation against the
    hand one; return its figures (SPRT state, score, Elo, games, terminations)."""
    from agents.tournament import Tournament
    tuned, hand = (f"{SPRT_SPECS[search]},eval={e}" for e in ("texel", "hand"))
    name = "sprt" if search == "alphabeta" else f"sprt-{search}"
    out = os.path.join(HERE, "records", f"{name}-{game_name}.jsonl.gz")
    began = time.time()
    t = Tournament(game_name, [tuned, hand], games=max_games, openings=SPRT_OPENINGS, seed=seed,
                   out=out, sprt=SPRT, workers=workers, resume=True, progress=False)
    result = t.run()
    return {"game": game_name, "first": tuned, "second": hand, "openings": SPRT_OPENINGS,
            "seed": seed, "sprt": result.sprt, "seconds": time.time() - began,
            **match_figures(result.records, tuned)}


def vs_random(game_name, seed, workers, games=100):
    """Play alpha-beta depth 3 with each evaluation against Random; return W/D/L and draws."""
    from agents.tournament import Tournament
    out = {}
    for e in ("hand", "texel"):
        spec = f"alphabeta:depth=3,eval={e}"
        path = os.path.join(HERE, "records", f"random-{game_name}-{e}.jsonl.gz")
        t = Tournament(game_name, ["random"], gauntlet=spec, games=games, openings="random:plies=2",
                       seed=seed, out=path, workers=workers, resume=True, progress=False)
        out[e] = match_figures(t.run().records, spec)
    return out


def match_figures(records, first):
    """Return `first`'s wins, draws, losses, score, Elo ± (per pair) and the terminations."""
    from collections import Counter

    from agents import ratings
    counts = Counter()
    for r in records:
        score = (ratings.RESULT_SCORES[r["result"]] if r["white"] == first
                 else 1.0 - ratings.RESULT_SCORES[r["result"]])
        counts[score] += 1
    games = sum(counts.values())
    rated = ratings.rate_records(sorted(records, key=lambda r: r["white"] != first)).match
    estimate = rated.per_pair or rated.per_game
    return {"games": games, "wins": counts[1.0], "draws": counts[0.5], "losses": counts[0.0],
            "score": (counts[1.0] + 0.5 * counts[0.5]) / games if games else None,
            "elo": estimate.elo, "elo_error": estimate.error, "los": estimate.los,
            "terminations": dict(Counter(r["termination"] for r in records)),
            "draw_terminations": dict(Counter(r["termination"] for r in records
                                              if r["result"] == "1/2-1/2"))}


def main(argv=None):
    """Run the stage asked for."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stage", choices=("play", "fit", "sprt", "random"))
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--max-games", type=int, default=SPRT_MAX_GAMES,
                        help="sprt: games at most (an undecided test is reported as such)")
    parser.add_argument("--search", choices=tuple(SPRT_SPECS), default="alphabeta",
                        help="sprt: whose evaluation setting is tested")
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--only", choices=GAMES)
    args = parser.parse_args(argv)
    results = os.path.join(HERE, "results.json")
    report = json.load(open(results)) if os.path.exists(results) else {}
    report["machine"] = {"platform": platform.platform(), "python": platform.python_version(),
                         "cpus": os.cpu_count()}
    games = [args.only] if args.only else list(GAMES)
    if args.stage == "play":
        report.setdefault("play", {})
        for g in games:
            report["play"][g] = play(g, args.games, args.depth, args.seed)
            print(f"{g}: {report['play'][g]['seconds']:.0f} s", file=sys.stderr)
        report["play_code"] = code_version()
    elif args.stage == "sprt":
        key = "sprt" if args.search == "alphabeta" else f"sprt_{args.search}"
        report.setdefault(key, {})
        for g in games:
            report[key][g] = sprt(g, args.seed, args.workers, args.search, args.max_games)
            print(f"{g}: {report[key][g]['sprt']['decision']} after {report[key][g]['games']} games",
                  file=sys.stderr)
        report["sprt_code"] = code_version()
    elif args.stage == "random":
        report.setdefault("vs_random", {})
        for g in games:
            report["vs_random"][g] = vs_random(g, args.seed, args.workers)
        report["vs_random_code"] = code_version()
    else:
        report.setdefault("fits", {})
        for g in games:
            report["fits"][g] = fit_game(g)
        report["fit_code"] = code_version()
    with open(results, "w") as fh:
        json.dump(report, fh, indent=1)
    if "fits" in report and all(g in report["fits"] for g in GAMES):
        with open(os.path.join(HERE, "results.md"), "w") as fh:
            fh.write(markdown(report))


if __name__ == "__main__":
    main()
