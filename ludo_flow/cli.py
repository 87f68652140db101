"""The `ludo-flow` command line: one entry point, a subcommand per job, the game always first.

Every subcommand that starts from a position takes the same options (`--variant`,
`--position`, `--after`, `--param`). Bad input gives a one-line error and exit status 2,
never a traceback.
"""
import argparse
import sys
import time

from . import GAMES, load_game
from .errors import LudoFlowError


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


def state_from_args(args):
    """Return the State the shared options describe (start or position, then --after)."""
    game = game_from_args(args)
    state = game.new_initial_state() if args.position is None else game.from_string(args.position)
    return state.apply_sequence(args.after)


def cmd_perft(args):
    """Print perft (with --divide first each action, sorted by notation, and its count); the count last."""
    if args.depth < 0:
        raise CommandError(f"--depth must be >= 0, got {args.depth}")
    state = state_from_args(args)
    k = state.kernels
    start = time.perf_counter()
    if args.divide and args.depth > 0:
        total = 0
        for a in sorted(state.legal_actions(), key=state.action_to_string):
            child = state.child(a)
            n = int(k.perft(child.array, args.depth - 1))
            total += n
            print(f"{state.action_to_string(a)} {n}")
    else:
        total = int(k.perft(state.array, args.depth))
    elapsed = time.perf_counter() - start
    if args.verbose:
        print(f"# depth {args.depth}: {total} leaves in {elapsed:.3f} s", file=sys.stderr)
    print(total)


def _make_agent(spec, game):
    """Return the agent a spec names, turning a bad spec into a CommandError."""
    from agents import make_agent
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


def cmd_bestmove(args):
    """Print the agent's search statistics, then its chosen action alone on the last line."""
    state = state_from_args(args)
    if state.is_terminal():
        raise CommandError(f"the game is over ({state.result_string()}): no move to choose")
    agent = _make_agent(args.agent, state.game)
    action = agent.select_action(state)
    for line in _stat_lines(state, agent.last_stats):
        print(line)
    print(state.action_to_string(action))


def cmd_play(args):
    """Play a game between two agents; print its moves and end with the result line."""
    from agents.play import play_game
    state = state_from_args(args)
    white = _make_agent(args.white, state.game)
    black = _make_agent(args.black, state.game)
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


def build_parser():
    """Return the argparse parser of `ludo-flow`."""
    parser = argparse.ArgumentParser(prog="ludo-flow", description="Flow and Tolkuchka engines and agents")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("perft", help="count the leaves of the decision tree")
    add_position_options(p)
    p.add_argument("--depth", type=int, required=True)
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
    except KeyboardInterrupt:
        print("ludo-flow: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
