"""Solve Flow positions with df-pn (`dfpn.py`): the value for the side to move, the proof's
size, and certificates the reference engine can check (`certificate.py`).

`solve(state)` proves "the side to move wins"; failing that, "the opponent wins"; failing
both, the position is a draw under the state's `max_turns` (a draw there is no draw of the
game without a turn limit: see docs/solver.md). The search runs in slices of nodes, so a
time limit or Ctrl-C stops it between two slices with what is known.
"""
import time
from typing import NamedTuple

import numpy as np

from ..flow import kernels as K
from ..flow import reference as ref
from . import certificate
from .dfpn import STAT_ABORTED, STAT_DN, STAT_MAX_DEPTH, STAT_NODES, STAT_PN, dfpn, new_table, probe

DEFAULT_MEMORY = 256 << 20
SLICE_NODES = 200_000


class Solution(NamedTuple):
    """What `solve` found.

    value: 'win', 'loss', 'draw' for the side to move, or 'unknown' (stopped early);
    known: what is proven when the value is unknown ('not win': the side to move cannot force
    a win; '' nothing); nodes: nodes expanded by df-pn (states whose legal actions were
    generated), over both searches; seconds: time searched; interrupted: Ctrl-C stopped it;
    max_depth: the deepest ply reached; searches: [(attacker, pn, dn)] of each search run."""
    value: str
    known: str
    nodes: int
    seconds: float
    interrupted: bool
    max_depth: int
    searches: list


class Prover:
    """A df-pn search over one transposition table, for proofs and for their extraction."""

    def __init__(self, memory=DEFAULT_MEMORY):
        self.table = new_table(memory)
        self.stats = np.zeros(5, dtype=np.int64)
        self.nodes = 0
        self.max_depth = 0

    def run(self, array, attacker, max_nodes):
        """Search `array` for a win of `attacker` for at most `max_nodes` nodes; return
        (pn, dn, aborted)."""
        dfpn(array, np.int64(attacker), self.table, np.int64(max_nodes), self.stats)
        self.nodes += int(self.stats[STAT_NODES])
        self.max_depth = max(self.max_depth, int(self.stats[STAT_MAX_DEPTH]))
        return int(self.stats[STAT_PN]), int(self.stats[STAT_DN]), bool(self.stats[STAT_ABORTED])

    def prove(self, array, attacker, deadline=None, slice_nodes=SLICE_NODES):
        """Search until `attacker`'s win is proven or disproven, or past `deadline`
        (time.monotonic()); return (pn, dn) (neither 0 if stopped). Ctrl-C propagates."""
        while True:
            pn, dn, aborted = self.run(array, attacker, slice_nodes)
            if not aborted or pn == 0 or dn == 0:
                return pn, dn
            if deadline is not None and time.monotonic() >= deadline:
                return pn, dn

    def numbers(self, array, attacker):
        """Return (pn, dn) of `array`: a finished game's, else the table's, else a search's."""
        code = int(K.result(array))
        if code != K.ONGOING:
            won = K.WHITE_WINS if attacker == 0 else K.BLACK_WINS
            return (0, 1) if code == won else (1, 0)
        pn, dn = probe(self.table, array, np.int64(attacker))
        if pn == 0 or dn == 0:
            return int(pn), int(dn)
        return self.prove(array, attacker)


def solve(state, memory=DEFAULT_MEMORY, time_limit=None, prover=None):
    """Return (Solution, Prover) for the Flow State `state` (the side to move's value)."""
    prover = prover or Prover(memory)
    array = np.ascontiguousarray(state.array, dtype=np.uint64)
    mover = int(K.current_player(array))
    prover.run(array, mover, 1)  # compiles (or loads) the search before the clock starts
    prover.nodes = 0
    started = time.monotonic()
    deadline = None if time_limit is None else started + time_limit
    searches = []
    value, known, interrupted = "unknown", "", False
    try:
        if K.result(array) != K.ONGOING:
            r = int(K.result(array))
            value = ("draw" if r == K.DRAW else
                     "win" if (r == K.WHITE_WINS) == (mover == 0) else "loss")
        else:
            pn, dn = prover.prove(array, mover, deadline)
            searches.append((mover, pn, dn))
            if pn == 0:
                value = "win"
            elif dn == 0:
                known = "not win"
                pn, dn = prover.prove(array, 1 - mover, deadline)
                searches.append((1 - mover, pn, dn))
                value = "loss" if pn == 0 else "draw" if dn == 0 else "unknown"
    except KeyboardInterrupt:
        interrupted = True
    return Solution(value, known if value == "unknown" else "", prover.nodes,
                    time.monotonic() - started, interrupted, prover.max_depth, searches), prover


def settle(state, max_nodes, prover):
    """Return the value of the ongoing Flow State `state` for the side to move ('win', 'loss'
    or 'draw' under its `max_turns`) if df-pn proves it within `max_nodes` nodes a search (the
    side to move's win, then the opponent's), else None."""
    array = np.ascontiguousarray(state.array, dtype=np.uint64)
    mover = int(K.current_player(array))
    pn, dn, _ = prover.run(array, mover, max_nodes)
    if pn == 0:
        return "win"
    if dn != 0:
        return None
    pn, dn, _ = prover.run(array, 1 - mover, max_nodes)
    return "loss" if pn == 0 else "draw" if dn == 0 else None


def shortest_win_plies(state, max_plies):
    """Return the fewest decisions (plies) within which the side to move of the Flow State
    `state` forces a win under its `max_turns`, or None if it cannot within `max_plies`.

    A depth-limited AND/OR search over the kernels, apart from df-pn and from alpha-beta (so it
    can check either), memoised on (position, plies left); for positions near a win only."""
    root = np.ascontiguousarray(state.array, dtype=np.uint64)
    mover = int(K.current_player(root))
    won = K.WHITE_WINS if mover == 0 else K.BLACK_WINS
    buf = np.empty(K.MAX_ACTIONS, dtype=np.int32)
    memo = {}

    def wins_within(array, plies):
        code = int(K.result(array))
        if code != K.ONGOING:
            return code == won
        if plies == 0:
            return False
        key = (array.tobytes(), plies)
        if key not in memo:
            _, children = _children(array, buf)
            if int(K.current_player(array)) == mover:
                memo[key] = any(wins_within(c, plies - 1) for c in children)
            else:
                memo[key] = all(wins_within(c, plies - 1) for c in children)
        return memo[key]

    for plies in range(1, max_plies + 1):
        if wins_within(root, plies):
            return plies
    return None


def _children(array, buf):
    """Return (legal actions, the kernel array after each) of a Flow kernel array; `buf` holds
    the actions while they are generated."""
    n = int(K.legal_actions(array, buf))
    actions = [int(a) for a in buf[:n]]
    children = []
    for a in actions:
        child = np.empty(K.STATE_SIZE, dtype=np.uint64)
        K.apply(array, np.int64(a), child)
        children.append(child)
    return actions, children


def _claims_of(value, mover):
    """Return [(side, target, attacker, proof)] the certificate of `value` needs (one of
    `certificate.VALUES`, for the side to move `mover`)."""
    claims = certificate.value_claims(value, mover)
    if claims is None:
        raise ValueError(f"no certificate of the value {value!r}; one of {', '.join(certificate.VALUES)}")
    # a win is proven for its side; a side's not-losing strategy disproves the other side's win
    return [(side, target, side if target == "win" else 1 - side, target == "win")
            for side, target in claims]


def extract(prover, state, side, attacker, proof, with_keys=True, origin=None):
    """Return (strategy, replies) of the claim that `side` reaches its target from `state`:
    the proof (`proof`: pn = 0 for `attacker` = side) or disproof (dn = 0 for `attacker`, the
    other side) held by the prover's table, re-searching children the table has lost.

    With `with_keys` the positions are walked with the reference engine too and named by
    `certificate.position_key` and moves in notation; without, positions are counted by
    their kernel words only (strategy and replies then map those to action ids)."""
    buf = np.empty(K.MAX_ACTIONS, dtype=np.int32)
    root = np.ascontiguousarray(state.array, dtype=np.uint64).copy()
    root_ref = _reference_of(state, origin) if with_keys else None
    strategy, replies = {}, {}
    stack = [(root, root_ref)]
    seen = set()
    in_claim = set()  # kernel keys of the claim's ongoing positions so far: each one holds

    def done(array):
        pn, dn = prover.numbers(array, attacker)
        return pn == 0 if proof else dn == 0

    while stack:
        array, position = stack.pop()
        if K.result(array) != K.ONGOING:
            continue
        key = certificate.position_key(position) if with_keys else _kernel_key(array)
        if key in seen:
            continue
        seen.add(key)
        in_claim.add(_kernel_key(array))
        actions, children = _children(array, buf)
        if int(K.current_player(array)) == side:
            pick = _pick(children, in_claim, prover, attacker, proof)
            if pick is None:
                raise RuntimeError("the proof has a hole: no child of a claimed position holds")
            a = actions[pick]
            strategy[key] = ref.action_to_string(a) if with_keys else a
            stack.append((children[pick], position.apply(a) if with_keys else None))
        else:
            if not all(done(c) for c in children):
                raise RuntimeError("the proof has a hole: a reply is not refuted")
            replies[key] = [ref.action_to_string(a) for a in actions] if with_keys else actions
            for a, c in zip(actions, children):
                stack.append((c, position.apply(a) if with_keys else None))
    return strategy, replies


def _pick(children, in_claim, prover, attacker, proof):
    """Return the index of a child where the claim holds (`proof`: pn = 0 for `attacker`, else
    dn = 0), or None. Cheapest for the certificate first: a finished game, then a position the
    claim holds already (no positions added), then one the table knows, then the first a
    search proves (the table may have lost it). On the small boards this halves the claims of
    `not win` (disproofs of a win) against the first child that holds."""
    def holds(numbers):
        return numbers[0] == 0 if proof else numbers[1] == 0

    ongoing = [int(K.result(c)) == K.ONGOING for c in children]
    tiers = ((i for i, c in enumerate(children) if not ongoing[i] and holds(prover.numbers(c, attacker))),
             (i for i, c in enumerate(children) if ongoing[i] and _kernel_key(c) in in_claim),
             (i for i, c in enumerate(children) if ongoing[i] and holds(probe(prover.table, c, np.int64(attacker)))),
             (i for i, c in enumerate(children) if ongoing[i] and holds(prover.numbers(c, attacker))))
    return next((i for tier in tiers for i in tier), None)


def _kernel_key(array):
    """Return a position's identity from its kernel words (as the table stores it)."""
    from .dfpn import fields_word, history_word
    return (int(array[K.WHITE]), int(array[K.BLACK]), int(array[K.DAMES]),
            int(fields_word(array, np.int64(0))), int(history_word(array)))


def _reference_of(state, origin=None):
    """Return the reference position of a Flow State (see `root_text` for `origin`)."""
    root, after = root_text(state, origin)
    position = certificate.parse_position(root, state.game.params["max_turns"])
    for a in after:
        position = position.apply(certificate.parse_action(a))
    return position


def root_text(state, origin=None):
    """Return (position string, [actions in notation]) naming `state`: `origin` if given (the
    same pair, as the user reached a choose phase), else the state's own string."""
    if origin is not None:
        return origin[0], list(origin[1])
    if state.choosing:
        raise ValueError("a choose-phase state has no position string: give the position and "
                         "the actions that reach it")
    return state.to_string(), []


def proof_size(prover, state, value):
    """Return the number of positions (where a player decides) in the proof of `value` (as in
    `make_certificate`)."""
    mover = int(K.current_player(state.array))
    total = 0
    for side, _target, attacker, proof in _claims_of(value, mover):
        strategy, replies = extract(prover, state, side, attacker, proof, with_keys=False)
        total += len(strategy) + len(replies)
    return total


def make_certificate(prover, state, value, origin=None):
    """Return the certificate (a dict) of a solved `value` for the side to move ('win', 'loss',
    'draw', or 'not win' / 'not loss': the disproof of that side's win / of the opponent's);
    `origin`: see `root_text`."""
    mover = int(K.current_player(state.array))
    root, after = root_text(state, origin)
    claims = []
    for side, target, attacker, proof in _claims_of(value, mover):
        strategy, replies = extract(prover, state, side, attacker, proof, origin=origin)
        claims.append({"side": certificate.COLOURS[side], "target": target,
                       "strategy": strategy, "replies": replies})
    return {"format": certificate.FORMAT, "version": certificate.VERSION, "game": "flow",
            "position": root, "after": after, "max_turns": int(state.game.params["max_turns"]),
            "value": value, "claims": claims,
            "size": sum(len(c["strategy"]) + len(c["replies"]) for c in claims)}
