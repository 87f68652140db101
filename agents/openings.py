"""Build opening suites: start positions that are all different and that neither side has won.

    >>> import ludo_flow
    >>> from agents.openings import Balance, build_suite
    >>> start = ludo_flow.load_game("flow").new_initial_state()
    >>> suite = build_suite(start, count=20, turns=1, balance=Balance(depth=6, window=0.2), seed=1)
    >>> suite.positions[:1]           # position strings, ready for an openings file

Candidates are seeded random openings of `turns` whole turns each (the tournament runner's
`random_opening`). A candidate is dropped when its position was met before (`unique`: or any
position equivalent to it under the rules' symmetries, `suites.canonical_key`; otherwise
the same position, `suites.position_key`), and, with a `Balance`, when a `depth`-ply alpha-beta
search from it scores beyond +-`window` for the side to move. Scores are the tuned evaluation,
an expected score 2p - 1, so a window of 0.2 keeps positions the evaluation gives the side to
move 40-60 %; a forced win or loss within `depth` plies (for either side) scores near +-1000
and is always outside the window. `ludo-flow openings` writes a suite file
(`write_suite`); the tournament runner reads it with `--openings FILE`, and the suites shipped
in the package with `--openings suite` (see `agents.tournament.suites` and docs/openings.md).
"""
import math
import os
import sys
from typing import NamedTuple

from ludo_flow.errors import LudoFlowError

from .alphabeta import AlphaBetaAgent
from .files import replacing
from .tournament.schedule import derive_seed, random_opening
from .tournament.suites import canonical_key, position_key

MAX_COUNT = 100_000
MAX_TURNS = 20
MAX_DEPTH = 12
TRIES_PER_POSITION = 50  # candidates drawn per position asked for, at most


class OpeningsError(LudoFlowError):
    """A setting of a suite to build is wrong."""


class Balance(NamedTuple):
    """The balance test of a suite's positions.

    depth   plies of the alpha-beta search from the position
    window  the largest |score| kept, for the side to move, in (0, 1): the tuned evaluation's
            2p - 1, so 0.2 keeps positions of 40-60 % expected score
    """

    depth: int = 6
    window: float = 0.2

    def text(self):
        """Return the setting as written on the command line and in a suite's header."""
        return f"depth={self.depth},window={self.window:g}"


def parse_balance(text):
    """Return the Balance of `depth=D,window=X` (either may be left out: its default)."""
    values = {}
    for part in str(text).split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in Balance._fields:
            raise OpeningsError(f"--balanced takes depth=D,window=X, got {part.strip()!r}")
        values[key] = value.strip()
    try:
        depth = int(values.get("depth", Balance._field_defaults["depth"]))
        window = float(values.get("window", Balance._field_defaults["window"]))
    except ValueError:
        raise OpeningsError(f"--balanced depth is a whole number and window a number, got {text!r}") from None
    if not 1 <= depth <= MAX_DEPTH:
        raise OpeningsError(f"--balanced depth must be in [1, {MAX_DEPTH}], got {depth}")
    if not (math.isfinite(window) and 0 < window < 1):
        raise OpeningsError(f"--balanced window must be in (0, 1) (an expected score 2p - 1), got {window:g}")
    return Balance(depth, window)


def opening_score(agent, state):
    """Return the agent's search score of `state` for the side to move (None: a single legal
    action, nothing searched)."""
    agent.reset(0)
    agent.select_action(state)
    return agent.last_stats["score"]


class Suite(NamedTuple):
    """What `build_suite` found: the positions, their scores and what was dropped.

    positions   position strings, in the order found
    scores      each position's balance score (side to move), or None without a Balance
    candidates  random openings drawn
    repeats     candidates dropped as a position met before (or equivalent to one, with unique)
    unbalanced  candidates dropped by the balance test (decided, out of the window, or a
                single legal action)
    """

    positions: list
    scores: list
    candidates: int
    repeats: int
    unbalanced: int


def build_suite(start, count, turns=1, balance=None, unique=True, seed=0, progress=False):
    """Return a Suite of up to `count` positions reached from `start` by `turns` random turns
    each (fewer if `TRIES_PER_POSITION * count` candidates do not give them)."""
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_COUNT:
        raise OpeningsError(f"--count must be a whole number in [1, {MAX_COUNT}], got {count!r}")
    if isinstance(turns, bool) or not isinstance(turns, int) or not 1 <= turns <= MAX_TURNS:
        raise OpeningsError(f"--turns must be a whole number in [1, {MAX_TURNS}], got {turns!r}")
    name = start.game.name
    key_of = canonical_key if unique else position_key
    agent = None if balance is None else AlphaBetaAgent(depth=balance.depth)
    positions, scores, seen = [], [], set()
    repeats = unbalanced = candidates = 0
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=count, desc=f"{name} suite", unit="position", file=sys.stderr)
    try:
        while len(positions) < count and candidates < TRIES_PER_POSITION * count:
            words = random_opening(start, turns, derive_seed(seed, "suite", candidates), "turns")
            candidates += 1
            state = start.clone().apply_sequence(" ".join(words))
            text = state.to_string()
            key = key_of(name, text)
            if key in seen:
                repeats += 1
                continue
            seen.add(key)
            score = None
            if agent is not None:
                score = opening_score(agent, state)
                if score is None or abs(score) > balance.window:
                    unbalanced += 1
                    continue
            positions.append(text)
            scores.append(score)
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return Suite(positions, scores, candidates, repeats, unbalanced)


def suite_header(start, turns, balance, unique, seed):
    """Return the `#` comment lines a suite file starts with: how it was built."""
    game = start.game
    params = "".join(f" --param {k}={v}" for k, v in sorted(game.params.items()))
    return [f"# ludo-flow opening suite: {game.name}, variant {game.variant}{params}",
            f"# start: {start.to_string()}",
            f"# turns: {turns}",
            f"# balanced: {balance.text() if balance is not None else 'no'}",
            f"# unique: {'up to the rules symmetries' if unique else 'positions'}",
            f"# seed: {seed}"]


def write_suite(path, header, suite):
    """Write a suite file: the header lines, then one position a line (via a temporary file,
    renamed into place, so a stopped run leaves no half file)."""
    try:
        with replacing(path, "w", encoding="utf-8") as fh:
            fh.write("\n".join(header + list(suite.positions)) + "\n")
    except OSError as err:
        raise OpeningsError(f"cannot write {os.fspath(path)!r}: {err.strerror or err}") from None


def read_header(path):
    """Return {field: value} of a suite file's `# field: value` header lines."""
    fields = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.startswith("#"):
                break
            key, sep, value = line[1:].partition(":")
            if sep:
                fields[key.strip()] = value.strip()
    return fields
