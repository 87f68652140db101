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
from .clock import ctrl_c_ends_the_process
from .files import write_problem

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


def add_clock_options(parser):
    """Add --tc and --time-margin (game clocks, in fastchess's syntax)."""
    parser.add_argument("--tc", metavar="[MOVES/][MIN:]SEC[+INC]",
                        help="game clocks, per side per game, in seconds as fastchess writes them: "
                        "10+0.1 (10 s and 0.1 s a move), 40/60 (60 s every 40 moves); a move is one "
                        "decision; a fallen flag loses (time_forfeit); agents manage their time")
    parser.add_argument("--time-margin", type=float, metavar="MS",
                        help="milliseconds a clock may fall below zero before its flag falls (default 0)")


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
    with ctrl_c_ends_the_process():  # the kernel cannot be interrupted: Ctrl-C must not wait for it
        if args.divide and args.depth > 0:
            total = 0
            for a in sorted(state.legal_actions(), key=state.action_to_string):
                n = 1 if args.depth == 1 else int(k.perft(state.child(a).array, args.depth - 1))
                total += n
                print(f"{state.action_to_string(a)} {n}", flush=True)
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
    clock = _time_control_from_args(args)
    white = _make_agent(args.white, game)
    black = _make_agent(args.black, game)
    warmup.warm(game, specs=[args.white, args.black])
    state = state_from_args(args, game)
    if clock is not None:
        warmup.warm_for_clocks(game, state, [args.white, args.black])
    ply = [0]

    def show(before, action, agent):
        ply[0] += 1
        side = "White" if before.current_player() == 0 else "Black"
        print(f"{ply[0]}. {side} {before.action_to_string(action)}", flush=True)
        if args.stats:
            for line in _stat_lines(before, agent.last_stats):
                print(f"    {line}")

    try:
        record = play_game(state, white, black, seed=args.seed, on_move=show, time_control=clock)
    except ValueError as err:
        raise CommandError(str(err)) from None
    _print_clocks(record)
    print(record["result"])


def _time_control_from_args(args):
    """Return the TimeControl of --tc and --time-margin (None without --tc); one-line errors."""
    from .timecontrol import parse_time_control, parse_time_margin
    margin = 0.0 if args.time_margin is None else args.time_margin
    try:
        parse_time_margin(margin)
    except ValueError as err:
        raise CommandError(f"--time-margin: {err}") from None
    if args.tc is None:
        if margin:
            raise CommandError("--time-margin needs a time control: give --tc too")
        return None
    try:
        return parse_time_control(args.tc, margin)
    except ValueError as err:
        raise CommandError(f"--tc: {err}") from None


def _print_clocks(record):
    """Print a clocked game's clocks at its end, and who lost on time."""
    if record.get("time_control") is None:
        return
    print(f"# clocks ({record['time_control']}): White {record['clock_white']:.3f} s, "
          f"Black {record['clock_black']:.3f} s")
    forfeit = record.get("forfeit")
    if forfeit and record.get("termination") == "time_forfeit":
        print(f"# {forfeit['side'].capitalize()} lost on time: {forfeit['reason']}")


def cmd_tournament(args):
    """Play a tournament; print the crosstable and ratings (on Ctrl-C exit 130, on SIGTERM 143,
    with the command that resumes it)."""
    from .tournament import DEFAULT_AGENTS, DEFAULT_GAMES, Tournament, TournamentConfig, default_openings
    from .tournament.output import RecordsOutput
    from .tournament.runner import Terminated
    defaults = args.agents is None and args.gauntlet is None
    agents = list(DEFAULT_AGENTS) if defaults else (args.agents or [])
    games = args.games if args.games is not None else DEFAULT_GAMES
    out = args.out or time.strftime(f"tournament-{args.game}-%Y%m%d-%H%M%S.jsonl")
    if args.plots:
        _plots_folder(args.plots)  # refused now, not after the games
    _time_control_from_args(args)  # a bad --tc or --time-margin is named as such, before any wait
    game = game_from_args(args)
    state = state_from_args(args, game)
    try:
        start = state.to_string()
    except ValueError:
        raise CommandError("a tournament starts from a position string: --after may not end "
                           "in a choose phase") from None
    openings = args.openings
    if openings is None and defaults:
        openings = (_resumed_openings(out) if args.resume else None) or default_openings(
            args.game, state.game.variant, start == game.new_initial_state().to_string())
    limit = {} if args.move_limit is None else {"move_limit": args.move_limit}
    config = TournamentConfig(game=args.game, agents=tuple(agents), games=games, openings=openings,
                              seed=args.seed, out=out, gauntlet=args.gauntlet, variant=state.game.variant,
                              params=state.game.params, position=start, **limit, sprt=args.sprt,
                              workers=args.workers, backend=args.backend, address=args.address,
                              resume=args.resume, progress=not args.quiet, adjudicate=args.adjudicate,
                              **_clock_settings(args))
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


def _clock_settings(args):
    """Return the TournamentConfig fields of --tc and --time-margin (checked there)."""
    out = {} if args.tc is None else {"tc": args.tc}
    if args.time_margin is not None:
        out["time_margin"] = args.time_margin
    return out


def _resumed_openings(path):
    """Return the openings setting of the records file a default tournament resumes, when the
    file names random openings or a shipped suite (so a file begun under another default keeps
    its schedule); None otherwise."""
    from .records import iter_records
    try:
        for record in iter_records(path):
            named = str((record.get("settings") or {}).get("openings") or "")
            if named.startswith("random:") or named.startswith("suite:"):
                return named.split()[0]
            return None
    except (OSError, LudoFlowError):
        return None  # the resume itself reports the file's problem
    return None


def cmd_openings(args):
    """Write an opening suite: positions after random turns, all different, optionally balanced."""
    from .openings import build_suite, parse_balance, suite_header, write_suite
    state = state_from_args(args)
    try:
        state.to_string()
    except ValueError:
        raise CommandError("a suite starts from a position string: --after may not end "
                           "in a choose phase") from None
    balance = parse_balance(args.balanced) if args.balanced is not None else None
    suite = build_suite(state, args.count, turns=args.turns, balance=balance, unique=args.unique,
                        seed=args.seed, progress=not args.quiet)
    if not suite.positions:
        raise CommandError(f"no position passed after {suite.candidates} random openings "
                           f"({suite.unbalanced} unbalanced, {suite.repeats} repeats); widen the window")
    write_suite(args.out, suite_header(state, args.turns, balance, args.unique, args.seed), suite)
    short = f" (only {len(suite.positions)} of {args.count}: ask fewer, more --turns or a wider window)" \
        if len(suite.positions) < args.count else ""
    print(f"{len(suite.positions)} positions in {args.out}{short}; {suite.candidates} random openings drawn, "
          f"{suite.repeats} repeats and {suite.unbalanced} unbalanced dropped")


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


def _replay_records(args):
    """Return the records of the replay file (each game once), reporting skipped lines."""
    from .records import ReadReport, load_records
    report = ReadReport()
    records = load_records(args.file, report=report)
    if report.describe():
        print(f"ludo-flow: {args.file}: skipped {report.describe()} (each game counted once)", file=sys.stderr)
    return records


def _replay_one(args, records):
    """Return the record --game names (or the only one of the file)."""
    from .records import find_record
    if args.game_id is None:
        if len(records) == 1:
            return records[0]
        raise CommandError(f"{args.file} holds {len(records)} games: give --game ID "
                           f"(`ludo-flow replay {args.file} --list` lists them)")
    return find_record(records, args.game_id)


def cmd_replay(args):
    """Print a recorded game move by move with the board after each move; or list the games
    (--list), step through one (--step), write an HTML replay (--html), a GIF (--gif) or an
    animated SVG (--svg)."""
    from .records import move_search, printable, replay_states
    if args.fps is not None and not (args.gif or args.svg):
        raise CommandError("--fps goes with --gif or --svg")
    records = _replay_records(args)
    if args.list:
        from .viewer.terminal import format_list
        print(format_list(records))
        return
    if args.html:
        from .viewer import write_html
        chosen = records if args.game_id is None else [_replay_one(args, records)]
        if not chosen:
            raise CommandError(f"{args.file} holds no games")
        for name in sorted({r.get("game") for r in chosen} & set(GAMES)):
            warmup.warm(load_game(name))
        try:
            size = write_html(chosen, args.html)
        except OSError as err:
            raise CommandError(f"--html: cannot write {args.html!r}: {err.strerror or err}") from None
        print(f"# {len(chosen)} game(s), {size / 1e6:.2f} MB written to {args.html}", file=sys.stderr)
        if not (args.gif or args.svg):
            return
    record = _replay_one(args, records)
    if record.get("game") in GAMES:
        warmup.warm(load_game(record["game"]))
    if args.gif or args.svg:
        from .viewer import animation
        fps = 2.0 if args.fps is None else args.fps
        for path, write in ((args.gif, animation.write_gif), (args.svg, animation.write_svg)):
            if path:
                try:
                    frames = write(record, path, fps)
                except OSError as err:
                    raise CommandError(f"cannot write {path!r}: {err.strerror or err}") from None
                print(f"# {frames} frames written to {path}", file=sys.stderr)
        return
    if args.step:
        from .viewer.terminal import step_through
        step_through(record)
        return
    print(printable(f"# {record.get('id')} ({record.get('game')} {record.get('variant')}): "
                    f"White {record['white']} - Black {record['black']}"))
    if record.get("opening"):
        print(printable(f"# opening: {' '.join(record['opening'])}"))
    mover = None
    searches = move_search(record)
    for ply, word, state in replay_states(record):
        if word is not None:
            print(printable(f"{ply}. {'White' if mover == 0 else 'Black'} {word}"
                            f"{search_comment(searches[ply - 1])}"))
        print(state)
        print()
        mover = state.current_player()
    if record.get("forfeit"):
        print(printable(f"# forfeit by {record['forfeit']['side']}: {record['forfeit']['reason']}"))
    if record.get("adjudication"):
        print(printable(f"# {adjudication_line(record['adjudication'])}"))
    if record.get("termination"):
        print(printable(f"# {record['termination']}"))
    print(record["result"])


def search_comment(entry):
    """Return a move's search as replay shows it beside the move, as cutechess's PGN comments:
    `  {+0.81/6 12034n 0.052s pv b2-b4 c7-c5}` ('' if its agent reported nothing)."""
    if not entry:
        return ""
    parts = []
    if "score" in entry:
        parts.append(f"{entry['score']:+.3f}" + (f"/{entry['depth']}" if "depth" in entry else ""))
    elif "depth" in entry:
        parts.append(f"depth {entry['depth']}")
    if "nodes" in entry:
        parts.append(f"{entry['nodes']}n")
    if "simulations" in entry:
        parts.append(f"{entry['simulations']}sim")
    if "time" in entry:
        parts.append(f"{entry['time']:.3f}s")
    if "pv" in entry:
        parts.append("pv " + " ".join(entry["pv"]))
    return "  {" + " ".join(parts) + "}"


def adjudication_line(adjudication):
    """Return the replay's line about an adjudicated game: the rule, the ply, the scores."""
    scores = "; ".join(f"{side} {' '.join(f'{x:+.3f}' for x in values)}"
                       for side, values in adjudication.get("scores", {}).items() if values)
    proof = f" (proven by df-pn in {adjudication['nodes']} nodes)" if "nodes" in adjudication else ""
    return (f"adjudicated by the {adjudication['rule'].replace('_', '-')} rule at ply "
            f"{adjudication['ply']}" + (f" (scores: {scores})" if scores else "") + proof)


def cmd_serve(args):
    """Serve the play page on HOST:PORT until Ctrl-C."""
    from .viewer.server import PlayConfig, serve
    game = game_from_args(args)
    state_from_args(args, game)  # the start position is checked before the server starts
    _make_agent(args.agent, game)
    if not 0 <= args.port < 65536:
        raise CommandError(f"--port must be in 0..65535, got {args.port}")
    warmup.warm(game, specs=[args.agent])
    config = PlayConfig(game=game, agent=args.agent, position=args.position, after=args.after,
                        out=args.out, host=args.host, port=args.port)
    try:
        serve(config)
    except OSError as err:
        raise CommandError(f"cannot serve on {args.host}:{args.port}: {err.strerror or err}") from None


def cmd_ratings(args):
    """Rate the games of records files: print the report (crosstable, ratings, two-agent match,
    skipped records) or one JSON object."""
    import json
    from . import ratings
    from .records import RATING_FIELDS, ReadReport, SeenGames, describe_sources, iter_records
    if args.plots:
        _plots_folder(args.plots)
    # Counted as read, never held: a file of a million records is rated in flat memory.
    counts, games, report, seen, sources = ratings.RecordCounts(), {}, ReadReport(), SeenGames(), {}
    for path in args.files:
        sets = ratings.RuleSets()
        for record in iter_records(path, report, seen, fields=RATING_FIELDS):
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


def cmd_selfplay(args):
    """Play self-play games into .npz shards (agents/selfplay.py); report games and positions per second."""
    from .selfplay import SelfPlayError, run_selfplay
    if args.games is None or args.games < 1:
        raise CommandError(f"--games must be at least 1, got {args.games}")
    if args.opening_plies < 0 or args.games_per_shard < 1:
        raise CommandError("--opening-plies must be >= 0 and --games-per-shard >= 1")
    workers = (os.cpu_count() or 1) if args.workers is None else args.workers
    if workers < 0:
        raise CommandError(f"--workers must be >= 0, got {workers}")
    game = game_from_args(args)
    state = state_from_args(args, game)
    position = state.to_string() if args.position is not None or args.after else ""
    _make_agent(args.agent, game)
    settings = {"game": game.name, "variant": game.variant, "params": dict(game.params),
                "position": position, "agent": args.agent, "seed": args.seed,
                "opening_plies": args.opening_plies, "games_per_shard": args.games_per_shard}
    if os.path.lexists(args.out) and not os.path.isdir(args.out):
        raise CommandError(f"--out {args.out!r} is not a folder (self-play writes a folder of shards)")
    from tqdm import tqdm
    start = time.perf_counter()
    with tqdm(total=args.games, unit="game", disable=args.quiet, dynamic_ncols=True, file=sys.stderr) as bar:
        try:
            played, rows = run_selfplay(settings, args.out, args.games, workers=workers, resume=args.resume,
                                        progress=lambda g, r: bar.update(g))
        except SelfPlayError as err:
            raise CommandError(str(err)) from None
    elapsed = time.perf_counter() - start
    print(f"{played} games, {rows} positions in {elapsed:.1f} s ({played / elapsed:.3g} games/s, "
          f"{rows / elapsed:.4g} positions/s); {args.games - played} were there already; shards in {args.out}")


def cmd_train(args):
    """Train a value network on self-play shards (agents/train.py); write its weights (.npz)."""
    from ludo_flow import network
    from .train import TrainError, load_dataset, require_scikit_learn, train
    if args.max_rows is not None and args.max_rows < 1:
        raise CommandError(f"--max-rows must be at least 1, got {args.max_rows}")
    if not 0.0 <= args.score_weight <= 1.0:
        raise CommandError(f"--score-weight must be in [0, 1], got {args.score_weight}")
    if args.game not in GAMES:
        raise CommandError(f"unknown game {args.game!r}; choose one of {', '.join(GAMES)}")
    game = load_game(args.game)
    problem = write_problem(args.out)
    if problem:  # before the training, which may take minutes
        raise CommandError(f"--out: cannot write {args.out!r}: {problem}")
    start = time.perf_counter()
    try:
        require_scikit_learn()  # before the data is read
        data = load_dataset(args.data, game.name, args.score_weight, args.max_rows)
        report = train(data, hidden=args.hidden, epochs=args.epochs, batch_size=args.batch_size,
                       lr=args.lr, l2_penalty=args.l2_penalty, seed=args.seed,
                       log=None if args.quiet else lambda line: print(line, file=sys.stderr))
    except TrainError as err:
        raise CommandError(str(err)) from None
    try:
        network.save_net(args.out, game.name, report.w1, report.b1, report.w2, report.b2)
    except OSError as err:
        raise CommandError(f"--out: cannot write {args.out!r}: {err.strerror or err}") from None
    print(f"{report.train_rows} positions trained, {report.held_out_rows} held out: held-out mse "
          f"{report.held_out_mse:.4f} (the mean alone {report.held_out_baseline_mse:.4f}) in "
          f"{time.perf_counter() - start:.1f} s; weights in {args.out} (eval=net:{args.out})")


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


def parse_bytes(text):
    """Return a byte count from '512M', '2G', '65536' (K, M, G: powers of 1024)."""
    text = str(text).strip().upper()
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    digits = text[:-1] if scale > 1 else text
    try:
        value = int(float(digits) * scale)
    except ValueError:
        raise CommandError(f"--memory takes BYTES (512M, 2G, 65536), got {text!r}") from None
    if value < 64:
        raise CommandError(f"--memory must be at least 64 bytes, got {text!r}")
    return value


def cmd_solve(args):
    """Solve a Flow position with df-pn: the value for the side to move, the proof's size."""
    from ludo_flow.solve import make_certificate, proof_size, solve
    from ludo_flow.solve import certificate as certificates
    if args.game != "flow":
        raise CommandError(f"solve knows flow only, got {args.game!r}")
    if args.max_turns is not None:
        args.param = list(args.param or ()) + [f"max_turns={args.max_turns}"]
    state = state_from_args(args)
    memory = parse_bytes(args.memory)
    problem = args.certificate and write_problem(args.certificate)
    if problem:  # before the search, which may take hours
        raise CommandError(f"--certificate: cannot write {args.certificate!r}: {problem}")
    solution, prover = solve(state, memory=memory, time_limit=args.time)
    side = "Black" if state.current_player() else "White"
    turns = state.game.params["max_turns"]
    print(f"value: {solution.value} for {side} to move (max_turns {turns})"
          + (f"; known: {solution.known}" if solution.known else ""))
    size = None
    if solution.value in ("win", "loss", "draw"):
        if args.certificate:
            origin = None
            if state.choosing:
                origin = (args.position or state.game.new_initial_state().to_string(), args.after.split())
            cert = make_certificate(prover, state, solution.value, origin=origin)
            try:
                certificates.write(args.certificate, cert)
            except OSError as err:
                raise CommandError(f"--certificate: cannot write {args.certificate!r}: "
                                   f"{err.strerror or err}") from None
            size = cert["size"]
        else:
            size = proof_size(prover, state, solution.value)
        print(f"proof size: {size} positions")
    rate = solution.nodes / solution.seconds if solution.seconds > 0 else 0.0
    print(f"nodes: {solution.nodes}")
    print(f"time: {solution.seconds:.2f} s")
    print(f"nodes/s: {rate:.0f}")
    if args.certificate and size is not None:
        print(f"certificate: {args.certificate}")
    if solution.interrupted:
        raise KeyboardInterrupt("solve stopped before the value was known")


def cmd_verify(args):
    """Check a solver certificate with the reference engine."""
    from ludo_flow.solve import certificate as certificates
    try:
        cert = certificates.read(args.file)
        value, walked = certificates.verify(cert)
    except certificates.CertificateError as err:
        raise CommandError(f"certificate rejected: {err}") from None
    root = certificates.root_position(cert)
    side = "Black" if root.current_player() else "White"
    print(f"verified: {value} for {side} to move in {cert['position']}"
          + (f" after {' '.join(cert['after'])}" if cert.get("after") else "")
          + f" (max_turns {cert['max_turns']}); {walked} positions checked by the reference engine")


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
    add_clock_options(p)
    p.set_defaults(run=cmd_play)
    p = sub.add_parser("tournament", help="play a round robin or gauntlet; rate the agents")
    add_position_options(p)
    p.add_argument("--agents", nargs="+", metavar="SPEC",
                   help="agent specs (with no agents: the embedded default tournament); your own "
                   "agent: py:MODULE:NAME[,key=value] (docs/write-your-own-agent.md)")
    p.add_argument("--gauntlet", metavar="SPEC", help="this agent plays each of --agents")
    p.add_argument("--games", type=int, help="games per pairing, even: N/2 openings, colours swapped")
    p.add_argument("--openings", help="random:turns=K (K random turns each), random:plies=K (K random "
                   "decisions), suite (the balanced suite of the game's variant; the embedded "
                   "default in Flow, random:turns=1 elsewhere), suite:NAME, or a file of position strings "
                   "(one a line)")
    p.add_argument("--workers", type=int, help="worker processes (default: one per core; 0: this process)")
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="local: worker processes on this machine (default); ray: Ray tasks (the ray extra)")
    p.add_argument("--address", help="with --backend ray: the cluster to join, HOST:PORT of its head "
                   "(default: start a local one, on 127.0.0.1 only)")
    p.add_argument("--seed", type=int, default=0, help="decides the schedule's openings and agent seeds")
    p.add_argument("--out", help="the JSON Lines records file (default: tournament-GAME-TIME.jsonl)")
    p.add_argument("--resume", action="store_true", help="continue --out: its finished games are kept")
    p.add_argument("--sprt", metavar="elo0=E0,elo1=E1,alpha=A,beta=B",
                   help="two agents: stop once the SPRT decides (model=normalized|logistic)")
    p.add_argument("--move-limit", type=float, metavar="SECONDS",
                   help="a move slower than this forfeits the game (default 120)")
    p.add_argument("--adjudicate", nargs="+", metavar="RULE",
                   help="end decided games early from the agents' reported scores (as fastchess): "
                   "resign=SCORE,moves=N[,twosided] (a side scoring <= -SCORE on N of its moves in a "
                   "row loses; twosided: the opponent agrees), draw=SCORE,moves=N[,after=PLY] (both "
                   "within +-SCORE on N moves each), max-plies=N (a draw after N plies), "
                   "solved[,nodes=N] (Flow: once df-pn proves the position's value in N nodes, "
                   "default 20000)")
    add_clock_options(p)
    p.add_argument("--plots", metavar="DIR", help="write ratings.png and scores.png (needs the plots extra)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=cmd_tournament)
    p = sub.add_parser("openings", help="write an opening suite: distinct positions, optionally balanced")
    add_position_options(p)
    p.add_argument("--count", type=int, required=True, help="positions wanted")
    p.add_argument("--turns", type=int, default=1, help="random turns each side plays from the start (default 1)")
    p.add_argument("--balanced", metavar="depth=D,window=X",
                   help="keep positions an alpha-beta search of D plies scores within +-X for the side "
                        "to move (an expected score 2p-1; default depth=6,window=0.2)")
    p.add_argument("--unique", action="store_true",
                   help="also drop mirror images and colour swaps of positions kept (RULES.md symmetries)")
    p.add_argument("--seed", type=int, default=0, help="decides the random openings")
    p.add_argument("--out", required=True, help="the suite file to write (read by tournament --openings FILE)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=cmd_openings)
    p = sub.add_parser("solve", help="solve a Flow position by proof-number search (df-pn)")
    add_position_options(p)
    p.add_argument("--max-turns", type=int, help="the turn limit of the game solved (the max_turns parameter)")
    p.add_argument("--memory", default="256M", help="transposition table size in bytes (K, M, G; default 256M)")
    p.add_argument("--time", type=float, metavar="SECONDS", help="stop after this long, with what is known")
    p.add_argument("--certificate", metavar="FILE", help="write the proof as gzip JSON (ludo-flow verify FILE)")
    p.set_defaults(run=cmd_solve)
    p = sub.add_parser("verify", help="check a solver certificate with the reference engine")
    p.add_argument("file", help="a certificate written by solve --certificate")
    p.set_defaults(run=cmd_verify)
    p = sub.add_parser("replay", help="a recorded game: boards in the terminal, an HTML replay, a GIF")
    p.add_argument("file", help="a JSON Lines records file (.jsonl or .jsonl.gz)")
    p.add_argument("--game", dest="game_id", metavar="ID",
                   help="the record's id (not needed when the file holds one game)")
    p.add_argument("--list", action="store_true", help="list the games: id, agents, result, termination, plies")
    p.add_argument("--step", action="store_true",
                   help="show the game a move at a time (Enter: next, b: back, NUMBER: go to ply, q: quit)")
    p.add_argument("--html", metavar="OUT", help="write a self-contained HTML replay of the file "
                   "(of --game alone if given)")
    p.add_argument("--gif", metavar="OUT", help="write the game as an animated GIF (the gif extra: Pillow)")
    p.add_argument("--svg", metavar="OUT", help="write the game as an animated SVG")
    p.add_argument("--fps", type=float, help="frames a second of --gif and --svg (default 2)")
    p.set_defaults(run=cmd_replay)
    p = sub.add_parser("serve", help="serve a page to play an agent in the browser")
    add_position_options(p)
    p.add_argument("--agent", default="mcts:time=1", metavar="SPEC", help="the agent to play (default mcts:time=1)")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1; any other is "
                   "warned of: the page has no login)")
    p.add_argument("--port", type=int, default=8765, help="the port (default 8765; 0: any free port)")
    p.add_argument("--out", default="played.jsonl", help="records file for finished games (default played.jsonl)")
    p.set_defaults(run=cmd_serve)
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
    p = sub.add_parser("selfplay", help="an agent plays itself: training data as .npz shards (docs/learning.md)")
    add_position_options(p)
    p.add_argument("--agent", required=True, metavar="SPEC", help="the agent spec: mcts:simulations=400, alphabeta:depth=3")
    p.add_argument("--games", type=int, required=True, help="games in the run (ids 0 .. N-1)")
    p.add_argument("--out", required=True, metavar="DIR", help="the folder of shards (and selfplay.json)")
    p.add_argument("--workers", type=int, help="worker processes (default: one per core; 0 or 1: this process)")
    p.add_argument("--resume", action="store_true", help="continue DIR: play only the games its shards lack")
    p.add_argument("--seed", type=int, default=0, help="decides the openings and the agent's seed per game")
    p.add_argument("--opening-plies", type=int, default=4,
                   help="uniformly random decisions before the agent plays, not recorded (default 4)")
    p.add_argument("--games-per-shard", type=int, default=8, help="games in one .npz shard (default 8)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=cmd_selfplay)
    p = sub.add_parser("train", help="train a value network on self-play shards with scikit-learn "
                       "(the learn extra): eval=net:FILE (docs/learning.md)")
    p.add_argument("game", help="flow or tolkuchka")
    p.add_argument("--data", nargs="+", required=True, metavar="DIR", help="folders of self-play shards")
    p.add_argument("--out", required=True, metavar="FILE", help="the weights to write (.npz)")
    p.add_argument("--hidden", type=int, default=64, help="hidden units (default 64)")
    p.add_argument("--epochs", type=int, default=8, help="passes over the data (default 8)")
    p.add_argument("--batch-size", type=int, default=256, help="positions a step (default 256)")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam's learning rate (default 0.001)")
    p.add_argument("--l2-penalty", type=float, default=1e-4,
                   help="the L2 penalty on the weights, scikit-learn's alpha (default 0.0001)")
    p.add_argument("--score-weight", type=float, default=0.0,
                   help="the target's share of the search's score, the rest the result (default 0)")
    p.add_argument("--max-rows", type=int, help="read at most this many positions")
    p.add_argument("--seed", type=int, default=0, help="seeds the initial weights and the order")
    p.add_argument("--quiet", action="store_true", help="no line per epoch")
    p.set_defaults(run=cmd_train)
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
