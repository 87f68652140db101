"""The `ludo-flow` command line: one entry point, a subcommand per job, the game always first.

Every subcommand that starts from a position takes the same options (`--variant`,
`--position`, `--after`, `--param`). Bad input gives a one-line error and exit status 2,
never a traceback.
"""
import argparse
import gc
import os
import shlex
import sys
import time

import ludo_flow
from ludo_flow import GAMES, cache, load_game
from ludo_flow.errors import LudoFlowError

from . import warmup

# What `ludo-flow warmup --entry` compiles: each entry point and the agent specs it runs.
ENTRY_POINTS = ("perft", "play", "mcts", "alphabeta", "tournament")


class CommandError(LudoFlowError):
    """A command-line argument is wrong (reported on one line, exit status 2)."""


def parse_params(pairs):
    """Return {key: value} from repeated `KEY=VALUE` strings."""
    params = {}
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise CommandError(f"--param takes KEY=VALUE, got {pair!r}")
        params[key.strip()] = value.strip()
    return params


def entry_specs(entry):
    """Return the agent specs an entry point runs (perft runs none)."""
    if entry == "perft":
        return ()
    if entry == "play":
        return ("random",)
    if entry == "tournament":
        from .tournament import DEFAULT_AGENTS
        return tuple(DEFAULT_AGENTS)
    if entry in ("mcts", "alphabeta"):
        return (entry,)
    raise ValueError(f"unknown entry point {entry!r}; choose one of {', '.join(ENTRY_POINTS)}")


def add_position_options(parser):
    """Add the options shared by every subcommand that starts from a position."""
    parser.add_argument("game", help="flow or tolkuchka")
    parser.add_argument("--variant", help="a named start position (flow: standard, stones, fountain)")
    parser.add_argument("--position", help="a position string (see RULES.md)")
    parser.add_argument("--after", default="", help='actions applied first, in notation: "b2-b3 ~a3"')
    parser.add_argument("--param", action="append", metavar="KEY=VALUE",
                        help="a game parameter (repeatable): max_turns, quiet_plies, max_plies")


def game_from_args(args):
    """Return the Game the shared options name."""
    if args.game not in GAMES:
        raise CommandError(f"unknown game {args.game!r}; choose one of {', '.join(GAMES)}")
    if args.variant is not None and args.position is not None:
        raise CommandError("give --variant or --position, not both")
    return load_game(args.game, args.variant, **parse_params(args.param))


def state_from_args(args, game=None):
    """Return the State the shared options describe (start or position, then --after)."""
    game = game_from_args(args) if game is None else game
    state = game.new_initial_state() if args.position is None else game.from_string(args.position)
    return state.apply_sequence(args.after)


def cmd_perft(args):
    """Print perft (with --divide first each action, sorted by notation, and its count); the count last.

    At depth 1 perft is the number of legal actions, counted without playing them (as the perft
    kernel does at its last ply, and python-chess's perft at depth 1): a first run then compiles
    the move generator alone, not `apply` and the perft kernel."""
    if args.depth < 0:
        raise CommandError(f"--depth must be >= 0, got {args.depth}")
    game = game_from_args(args)
    count_only = args.depth <= 1 and not args.after  # --after plays actions: the whole engine
    if count_only:
        warmup.warm(game, moves_only=True)
    else:
        warmup.warm(game, perft=True)
    state = state_from_args(args, game)
    k = state.kernels
    start = time.perf_counter()
    if args.divide and args.depth > 0:
        total = 0
        for a in sorted(state.legal_actions(), key=state.action_to_string):
            n = 1 if args.depth == 1 else int(k.perft(state.child(a).array, args.depth - 1))
            total += n
            print(f"{state.action_to_string(a)} {n}")
    elif count_only:
        total = len(state.legal_actions()) if args.depth == 1 else 1
    else:
        total = int(k.perft(state.array, args.depth))
    elapsed = time.perf_counter() - start
    if args.verbose:
        print(f"# depth {args.depth}: {total} leaves in {elapsed:.3f} s", file=sys.stderr)
    print(total)


def _make_agent(spec, game):
    """Return the agent a spec names, turning a bad spec into a CommandError."""
    from .registry import make_agent
    try:
        return make_agent(spec, game)
    except ValueError as err:
        raise CommandError(str(err)) from None


def _stat_lines(state, stats):
    """Return `key: value` lines of an agent's statistics, actions written in notation."""
    lines = []
    for key, value in stats.items():
        if key == "pv" and value:
            line = state.clone()
            words = []
            for a in value:
                if not line.is_legal(a):
                    break
                words.append(line.action_to_string(a))
                line.apply(a)
            value = " ".join(words)
        elif key == "visits":
            value = " ".join(f"{state.action_to_string(a)}:{n}({q:+.3f})" for a, n, q in value)
        elif isinstance(value, float):
            value = f"{value:.6g}"
        lines.append(f"{key}: {value}")
    return lines


def _print_choice(state, stats, action):
    """Print an agent's statistics, then its action alone on the last line."""
    for line in _stat_lines(state, stats):
        print(line)
    print(state.action_to_string(action), flush=True)


def cmd_bestmove(args):
    """Print the agent's search statistics, then its chosen action alone on the last line.

    On Ctrl-C the search stops: the best action found so far is printed the same way and the
    command exits with status 130."""
    from .base import SearchInterrupted
    game = game_from_args(args)
    agent = _make_agent(args.agent, game)
    warmup.warm(game, specs=[args.agent])
    state = state_from_args(args, game)
    if state.is_terminal():
        raise CommandError(f"the game is over ({state.result_string()}): no move to choose")
    try:
        action = agent.select_action(state)
    except SearchInterrupted as stop:
        if stop.action is None:
            raise
        _print_choice(state, stop.stats, stop.action)
        raise KeyboardInterrupt("the move printed is the best one found before the "
                                "interrupt") from None
    _print_choice(state, agent.last_stats, action)


def cmd_play(args):
    """Play a game between two agents; print its moves and end with the result line."""
    from .play import play_game
    game = game_from_args(args)
    white = _make_agent(args.white, game)
    black = _make_agent(args.black, game)
    warmup.warm(game, specs=[args.white, args.black])
    state = state_from_args(args, game)
    ply = [0]

    def show(before, action, agent):
        ply[0] += 1
        side = "White" if before.current_player() == 0 else "Black"
        print(f"{ply[0]}. {side} {before.action_to_string(action)}", flush=True)
        if args.stats:
            for line in _stat_lines(before, agent.last_stats):
                print(f"    {line}")

    try:
        record = play_game(state, white, black, seed=args.seed, on_move=show)
    except ValueError as err:
        raise CommandError(str(err)) from None
    print(record["result"])


def cmd_tournament(args):
    """Play a tournament; print the crosstable and ratings (on Ctrl-C exit 130, on SIGTERM 143,
    with the command that resumes it)."""
    from .tournament import DEFAULT_AGENTS, DEFAULT_GAMES, DEFAULT_OPENINGS, Tournament, TournamentConfig
    from .tournament.output import RecordsOutput
    from .tournament.runner import Terminated
    defaults = args.agents is None and args.gauntlet is None
    agents = list(DEFAULT_AGENTS) if defaults else (args.agents or [])
    games = args.games if args.games is not None else DEFAULT_GAMES
    openings = args.openings if args.openings is not None else (DEFAULT_OPENINGS if defaults else None)
    out = args.out or time.strftime(f"tournament-{args.game}-%Y%m%d-%H%M%S.jsonl")
    if args.plots:
        _plots_folder(args.plots)  # refused now, not after the games
    game = game_from_args(args)
    state = state_from_args(args, game)
    try:
        start = state.to_string()
    except ValueError:
        raise CommandError("a tournament starts from a position string: --after may not end "
                           "in a choose phase") from None
    limit = {} if args.move_limit is None else {"move_limit": args.move_limit}
    config = TournamentConfig(game=args.game, agents=tuple(agents), games=games, openings=openings,
                              seed=args.seed, out=out, gauntlet=args.gauntlet, variant=state.game.variant,
                              params=state.game.params, position=start, **limit, sprt=args.sprt,
                              workers=args.workers, backend=args.backend, address=args.address,
                              resume=args.resume, progress=not args.quiet)
    RecordsOutput(out).check(args.resume)  # before the warm-up: a bad --out costs no wait
    specs = agents + ([args.gauntlet] if args.gauntlet else [])
    warmup.warm(game, specs=specs, start=start)  # with its notice: the openings need the engine
    tournament = Tournament(config)
    if defaults:
        print(f"# the default tournament: {', '.join(agents)}; {games} games a pairing "
              f"({openings}); records in {out}", file=sys.stderr)
    result = tournament.run()
    print(result.report())
    if args.plots:
        _plots(result.ratings, args.plots)
    if result.interrupted:
        words = list(sys.argv[1:])
        if args.out is None:
            words += ["--out", out]
        if not args.resume:
            words.append("--resume")
        print(f"ludo-flow: {'terminated' if result.terminated else 'interrupted'}; every finished game "
              f"is in {out}. Resume with:\n  ludo-flow {' '.join(shlex.quote(w) for w in words)}",
              file=sys.stderr)
        raise Terminated() if result.terminated else KeyboardInterrupt()


def _plots_folder(folder):
    """Make the --plots folder; CommandError in one line if it cannot be made or plots cannot be drawn."""
    import importlib.util
    if importlib.util.find_spec("matplotlib") is None:
        raise CommandError("--plots needs matplotlib, the 'plots' extra: pip install 'ludo_flow[plots]'")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as err:
        raise CommandError(f"--plots: cannot make the folder {folder!r}: {err.strerror or err}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CommandError(f"--plots: cannot write in the folder {folder!r}")


def _plots(rated, folder):
    """Write the ratings and score-matrix plots of a rate_records result into `folder`."""
    from . import plots, ratings
    if not isinstance(rated, ratings.RatedRecords):
        raise CommandError("no ratings to plot yet")
    _plots_folder(folder)
    try:
        plots.plot_ratings(rated, os.path.join(folder, "ratings.png"))
        plots.plot_score_matrix(rated.crosstable, os.path.join(folder, "scores.png"))
    except (OSError, plots.PlotsUnavailable) as err:
        raise CommandError(f"--plots: {err}") from None
    print(f"# plots written to {folder}/ratings.png and {folder}/scores.png", file=sys.stderr)


def cmd_replay(args):
    """Print a recorded game move by move, with the board after each move."""
    from .records import ReadReport, SeenGames, find_record, iter_records, printable, replay_states
    report = ReadReport()
    record = find_record(iter_records(args.file, report, SeenGames()), args.game_id)
    if report.describe():
        print(f"ludo-flow: {args.file}: skipped {report.describe()} (each game counted once)", file=sys.stderr)
    if record.get("game") in GAMES:
        warmup.warm(load_game(record["game"]))
    print(printable(f"# {record.get('id')} ({record.get('game')} {record.get('variant')}): "
                    f"White {record['white']} - Black {record['black']}"))
    if record.get("opening"):
        print(printable(f"# opening: {' '.join(record['opening'])}"))
    mover = None
    for ply, word, state in replay_states(record):
        if word is not None:
            print(printable(f"{ply}. {'White' if mover == 0 else 'Black'} {word}"))
        print(state)
        print()
        mover = state.current_player()
    if record.get("forfeit"):
        print(printable(f"# forfeit by {record['forfeit']['side']}: {record['forfeit']['reason']}"))
    if record.get("termination"):
        print(printable(f"# {record['termination']}"))
    print(record["result"])


def cmd_ratings(args):
    """Rate the games of records files: print the report (crosstable, ratings, two-agent match,
    skipped records) or one JSON object."""
    import json
    from . import ratings
    from .records import ReadReport, SeenGames, describe_sources, iter_records
    if args.plots:
        _plots_folder(args.plots)
    # Counted as read, never held: a file of a million records is rated in flat memory.
    counts, games, report, seen, sources = ratings.RecordCounts(), {}, ReadReport(), SeenGames(), {}
    for path in args.files:
        sets = ratings.RuleSets()
        for record in iter_records(path, report, seen):
            counts.add(record)
            sets.add(record, counts.records - 1)
            key = record.get("sources")
            sources[key] = sources.get(key, 0) + 1
        games[path] = sets.sets()
    if report.describe():
        print(f"ludo-flow: skipped {report.describe()} (each game counted once)", file=sys.stderr)
    if len({label for sets in games.values() for label in sets}) > 1 and len(games) > 1:
        raise CommandError("the files mix games or rule sets, which are never rated together: " + "; ".join(
            f"{ratings.printable(path)}: {ratings.describe_rule_sets(sets)}" for path, sets in games.items())
            + "; rate each apart")
    if not counts.records:
        raise CommandError("no records to rate")
    if len(sources) > 1:
        print(f"ludo-flow: these records were played by {len(sources)} versions of the sources: "
              f"{ratings.printable(describe_sources(sources))}; the ratings pool them", file=sys.stderr)
    rated = counts.rate(anchor=args.anchor)
    if args.json:
        print(json.dumps(ratings.report_json(rated)))
    else:
        print(ratings.format_report(rated))
    if args.plots:
        _plots(rated, args.plots)


def cmd_agents(args):
    """Print every agent kind with its settings, defaults and meaning."""
    from .registry import describe_agents
    print(describe_agents())


def cmd_warmup(args):
    """Compile (or load from the cache) every entry point of the named games; print what each did."""
    names = args.games or list(GAMES)
    for name in names:
        if name not in GAMES:
            raise CommandError(f"unknown game {name!r}; choose one of {', '.join(GAMES)}")
    entries = args.entry or list(ENTRY_POINTS)
    print(f"# cache: {cache.cache_dir()}", flush=True)
    total = time.perf_counter()
    for name in names:
        game = load_game(name)
        # Everything at once first: on a first run the searches compile in parallel processes.
        specs = list(dict.fromkeys(s for entry in entries for s in entry_specs(entry)))
        info = warmup.warm(game, perft="perft" in entries, specs=specs)
        if info.compiled:
            print(f"{name:<10} {'all':<11} {f'compiled {sum(info.compiled.values())} functions':<24} "
                  f"{info.seconds:6.1f} s", flush=True)
        for entry in entries:
            info = warmup.warm(game, perft=entry == "perft", specs=entry_specs(entry))
            did = (f"compiled {sum(info.compiled.values())} functions" if info.compiled
                   else "loaded from the cache")
            print(f"{name:<10} {entry:<11} {did:<24} {info.seconds:6.1f} s", flush=True)
    print(f"# {time.perf_counter() - total:.1f} s; the cache holds "
          f"{cache.folder_size(cache.cache_dir()) / 1e6:.1f} MB in {cache.cache_dir()}")


def cmd_cache(args):
    """Print where the compiled code lives and its size (with --clear: delete it first)."""
    if args.clear:
        removed = cache.clear_cache()
        print(f"# removed {len(removed)} cache folder(s) and file(s)", file=sys.stderr)
    here = cache.cache_dir()
    print(here)
    for path in cache.cache_entries(here.parent):
        label = "this version" if path == here else "another version"
        print(f"# {label}: {path.name} ({cache.folder_size(path) / 1e6:.1f} MB)", file=sys.stderr)


def cmd_bench(args):
    """Run the benchmark suite (benchmarks/bench_suite.py of a source checkout): table and JSON."""
    import importlib
    folder = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")
    if not os.path.isfile(os.path.join(folder, "bench_suite.py")):
        raise CommandError(f"the benchmark scripts are not installed with the package: run this "
                           f"from a source checkout (pip install -e .); no {folder}/bench_suite.py")
    if args.repeats is not None and args.repeats < 1:
        raise CommandError(f"--repeats must be at least 1, got {args.repeats}")
    sys.path.insert(0, folder)  # the suite's worker processes import it by name
    suite = importlib.import_module("bench_suite")
    words = ["ludo-flow", "bench"] + ["--quick"] * args.quick
    for flag, value in (("--repeats", args.repeats), ("--json", args.json),
                        ("--compile-json", args.compile_json)):
        words += [flag, str(value)] if value is not None else []
    suite.run(quick=args.quick, json_path=args.json, repeats=args.repeats,
              compile_json=args.compile_json, command=shlex.join(words))


def build_parser():
    """Return the argparse parser of `ludo-flow`."""
    parser = argparse.ArgumentParser(prog="ludo-flow", description="Flow and Tolkuchka engines and agents")
    parser.add_argument("--version", action="version", version=f"ludo-flow {ludo_flow.__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("perft", help="count the leaves of the decision tree")
    add_position_options(p)
    p.add_argument("--depth", type=int, required=True, help="decisions to look ahead (a Flow wash choice is one)")
    p.add_argument("--divide", action="store_true", help="print each legal action with its count first")
    p.add_argument("--verbose", action="store_true", help="report the time on stderr")
    p.set_defaults(run=cmd_perft)
    p = sub.add_parser("bestmove", help="let an agent choose the move in a position")
    add_position_options(p)
    p.add_argument("--agent", required=True, metavar="SPEC",
                   help="an agent spec: random, alphabeta:depth=6, mcts:simulations=2000,seed=7")
    p.set_defaults(run=cmd_bestmove)
    p = sub.add_parser("play", help="play a game between two agents (or a person: human)")
    add_position_options(p)
    p.add_argument("--white", required=True, metavar="SPEC", help="White's agent spec, or human")
    p.add_argument("--black", required=True, metavar="SPEC", help="Black's agent spec, or human")
    p.add_argument("--seed", type=int, help="reseed both agents (Black gets SEED + 1)")
    p.add_argument("--stats", action="store_true", help="print each move's search statistics")
    p.set_defaults(run=cmd_play)
    p = sub.add_parser("tournament", help="play a round robin or gauntlet; rate the agents")
    add_position_options(p)
    p.add_argument("--agents", nargs="+", metavar="SPEC",
                   help="agent specs (with no agents: the embedded default tournament)")
    p.add_argument("--gauntlet", metavar="SPEC", help="this agent plays each of --agents")
    p.add_argument("--games", type=int, help="games per pairing, even: N/2 openings, colours swapped")
    p.add_argument("--openings", help="random:turns=K (K random turns each; the embedded default "
                   "has K=1), random:plies=K (K random decisions), or a file of position strings "
                   "(one a line)")
    p.add_argument("--workers", type=int, help="worker processes (default: one per core; 0: this process)")
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="local: worker processes on this machine (default); ray: Ray tasks (the ray extra)")
    p.add_argument("--address", help="with --backend ray: the cluster to join (default: start a local one)")
    p.add_argument("--seed", type=int, default=0, help="decides the schedule's openings and agent seeds")
    p.add_argument("--out", help="the JSON Lines records file (default: tournament-GAME-TIME.jsonl)")
    p.add_argument("--resume", action="store_true", help="continue --out: its finished games are kept")
    p.add_argument("--sprt", metavar="elo0=E0,elo1=E1,alpha=A,beta=B",
                   help="two agents: stop once the SPRT decides (model=normalized|logistic)")
    p.add_argument("--move-limit", type=float, metavar="SECONDS",
                   help="a move slower than this forfeits the game (default 120)")
    p.add_argument("--plots", metavar="DIR", help="write ratings.png and scores.png (needs the plots extra)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=cmd_tournament)
    p = sub.add_parser("replay", help="print a recorded game move by move with the board")
    p.add_argument("file", help="a JSON Lines records file")
    p.add_argument("--game", dest="game_id", required=True, metavar="ID", help="the record's id")
    p.set_defaults(run=cmd_replay)
    p = sub.add_parser("ratings", help="crosstable and joint ratings of records files")
    p.add_argument("files", nargs="+", metavar="FILE", help="records files (.jsonl or .jsonl.gz)")
    p.add_argument("--anchor", metavar="SPEC", help="this agent is rated 0 (default: the mean is 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plots", metavar="DIR", help="write ratings.png and scores.png (needs the plots extra)")
    p.set_defaults(run=cmd_ratings)
    p = sub.add_parser("agents", help="list the agent kinds and their settings (for agent specs)")
    p.set_defaults(run=cmd_agents)
    p = sub.add_parser("warmup", help="compile every engine and agent ahead of time (numba's cache)")
    p.add_argument("games", nargs="*", metavar="GAME", help="flow, tolkuchka (default: all)")
    p.add_argument("--entry", nargs="+", choices=ENTRY_POINTS,
                   help="only these entry points (default: all)")
    p.set_defaults(run=cmd_warmup)
    p = sub.add_parser("cache", help="print the folder of the compiled code (numba's cache)")
    p.add_argument("--clear", action="store_true", help="delete the compiled code of every version")
    p.set_defaults(run=cmd_cache)
    p = sub.add_parser("bench", help="the benchmark suite, side by side with OpenSpiel (a source checkout)")
    p.add_argument("--quick", action="store_true", help="tiny sizes, 3 rounds, no fresh-cache compile times")
    p.add_argument("--json", metavar="FILE", help="write the results here (default: "
                   "benchmarks/results/bench.json; with --quick: not written)")
    p.add_argument("--repeats", type=int, help="rounds (default: 5; with --quick 3)")
    p.add_argument("--compile-json", metavar="FILE",
                   help="compile times from this bench_compile.py result instead of measuring them")
    p.set_defaults(run=cmd_bench)
    return parser


def main(argv=None):
    """Run the command line; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        args.run(args)
    except LudoFlowError as err:
        print(f"ludo-flow: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `ludo-flow ratings ... | head`: the reader left; say nothing
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt as err:
        # A search stopped by Ctrl-C says what it had done (agents.base.SearchInterrupted).
        if type(err).__name__ == "Terminated":  # SIGTERM stopped a tournament: 128 + 15
            return 143
        print(f"ludo-flow: interrupted: {err}" if str(err) else "ludo-flow: interrupted",
              file=sys.stderr)
        return 130
    return 0


def command():
    """The `ludo-flow` console script (and `python -m agents.cli`): run `main`, exit with its status.

    `gc.freeze()` first moves every object to the permanent generation, so the garbage
    collections of the interpreter's shutdown skip the hundreds of thousands of objects numba
    keeps (its types and compiled functions): they cost every command about a quarter of a
    second after its work was done (0.69-0.80 s against 0.46-0.57 s for a cached `perft flow
    --depth 1`, three runs each). Nothing else changes: exit handlers run, objects are freed."""
    status = main()
    gc.freeze()
    sys.exit(status)


if __name__ == "__main__":
    command()
