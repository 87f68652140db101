"""The tuned evaluations (`evaluate_tuned`, the Texel fit of experiments/texel) and the
searches' `eval` setting: each term counted by hand in Python, bounded, White's view (odd
under swapping the colours), the weights the experiment fitted, and the setting's effect."""
import json
import math
import os

import numpy as np
import pytest

import ludo_flow
from agents import AgentError, make_agent
from ludo_flow import dispatch
from ludo_flow.flow import kernels as FK
from ludo_flow.flow.reference import FlowRef
from ludo_flow.tolkuchka import kernels as TK

from walks import random_walk

RESULTS = os.path.join(os.path.dirname(__file__), "..", "..", "experiments", "texel", "results.json")


def _squares(board):
    return {q for q in range(64) if int(board) >> q & 1}


def _squash(terms, weights, bound):
    logit = sum(w * t for w, t in zip(weights, terms))
    return min(max(math.tanh(logit / 2), -bound), bound)


def flow_terms_by_hand(state):
    """Return Flow's TUNED_TERMS counted piece by piece (the reference engine's steps)."""
    width, height, span = state.width, state.height, state.height - 1
    pieces = state.pieces()
    side = state.current_player()
    white = {q for q, p in pieces.items() if p.isupper()}
    black = set(pieces) - white
    ref = FlowRef(width, height, pieces, side, state.step, state.first_moved, state.turns, 200)

    def advance(q, colour):
        return q // 8 if colour == 0 else span - q // 8

    best = [max((advance(q, c) for q in own), default=0) for c, own in ((0, white), (1, black))]
    total = [sum(advance(q, 0) for q in white), sum(advance(q, 1) for q in black)]
    own_of = (white, black)
    movable = {q for q in own_of[side] if not (state.step == 2 and q == state.first_moved)}

    def reach(squares):
        return {t for q in squares for t in ref._steps_of_piece(q)}

    def far(colour):
        return {q for q in range(64) if q // 8 == (span if colour == 0 else 0) and q % 8 < width}

    def washable(own, arrival):
        def covered(f, r):  # occupied or off the board's side
            return not 0 <= f < width or r * 8 + f in pieces
        return sum(1 for q in own for d in (1, -1)
                   if covered(q % 8 - d, q // 8) and 0 <= q % 8 + d < width
                   and q // 8 * 8 + q % 8 + d in arrival)

    mover_reach, waiting_reach = reach(movable), reach(own_of[1 - side])
    sign = 1.0 if side == 0 else -1.0
    first_step = state.step == 1 and not state.choosing
    return ((best[0] ** 2 - best[1] ** 2) / span ** 2, (total[0] - total[1]) / (8 * span),
            len(white) - len(black),
            sign * len(mover_reach & far(side)), -sign * len(waiting_reach & far(1 - side)),
            sign * washable(own_of[side], waiting_reach), -sign * washable(own_of[1 - side], mover_reach),
            sign if first_step else 0.0)


def tolkuchka_terms_by_hand(a):
    """Return Tolkuchka's TUNED_TERMS counted square by square."""
    steps = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)]
    white = {(q % 8, q // 8) for q in _squares(a[TK.WHITE])}
    black = {(q % 8, q // 8) for q in _squares(a[TK.BLACK])}

    def on(f, r):
        return 0 <= f < 8 and 0 <= r < 8

    def heads(own):  # (row head, direction): own, an own checker behind, none ahead
        return [(f, r, df, dr) for f, r in own for df, dr in steps
                if (f - df, r - dr) in own and (f + df, r + dr) not in own]

    def fronts(own):
        return sum(1 for f, r, df, dr in heads(own) if on(f + df, r + dr))

    def attacks(own, enemy):
        return sum(1 for f, r, df, dr in heads(own) if (f + df, r + dr) in enemy)

    def edge(own):
        return sum(1 for f, r in own if f in (0, 7) or r in (0, 7))

    side = int(a[TK.SIDE])
    sign = 1.0 if side == 0 else -1.0
    mover, waiting = (black, white) if side else (white, black)
    material = len(white) - len(black)
    gap = min(max(abs(f - g), abs(r - s)) for f, r in white for g, s in black)
    return (fronts(white) - fronts(black), edge(white) - edge(black),
            sign * attacks(mover, waiting), -sign * attacks(waiting, mover),
            material * (1 - int(a[TK.QUIET]) / max(1, int(a[TK.QUIET_PLIES]))),
            material * (1 - (min(gap, 3) - 1) / 2))


def _flow_states():
    game = ludo_flow.load_game("flow")
    return [s for seed in range(12) for s in random_walk(game, seed, 60) if not s.is_terminal()]


def _tolkuchka_states():
    game = ludo_flow.load_game("tolkuchka")
    return [s for seed in range(6) for s in random_walk(game, seed, 150) if not s.is_terminal()]


def test_flow_tuned_terms_and_value_are_the_documented_ones():
    states = _flow_states()
    assert any(s.choosing for s in states) and any(s.step == 2 for s in states)
    runners = 0
    for s in states:
        by_hand = flow_terms_by_hand(s)
        assert FK.tuned_terms(s.array) == pytest.approx(by_hand, abs=1e-12), s.to_string()
        assert FK.evaluate_tuned(s.array) == pytest.approx(
            _squash(by_hand, FK.TUNED_WEIGHTS, FK.EVALUATION_BOUND), abs=1e-12)
        runners += by_hand[3] != 0
    assert runners > 0  # the walks reach positions with a step onto the far edge


def test_tolkuchka_tuned_terms_and_value_are_the_documented_ones():
    for s in _tolkuchka_states():
        by_hand = tolkuchka_terms_by_hand(s.array)
        assert TK.tuned_terms(s.array) == pytest.approx(by_hand, abs=1e-12), s.to_string()
        assert TK.evaluate_tuned(s.array) == pytest.approx(
            _squash(by_hand, TK.TUNED_WEIGHTS, TK.EVALUATION_BOUND), abs=1e-12)


def _flip_ranks(board):
    return np.uint64(int.from_bytes(int(board).to_bytes(8, "little")[::-1], "little"))


def _half_turn(board):
    return np.uint64(int(f"{int(board):064b}"[::-1], 2))


def test_tuned_evaluations_are_bounded_and_odd_under_a_colour_swap():
    for s in _flow_states():
        a = s.array
        v = FK.evaluate_tuned(a)
        assert -1.0 < v < 1.0
        m = a.copy()  # ranks mirrored, colours and the side to move swapped
        m[FK.WHITE], m[FK.BLACK] = _flip_ranks(a[FK.BLACK]), _flip_ranks(a[FK.WHITE])
        m[FK.DAMES], m[FK.KNIGHTS] = _flip_ranks(a[FK.DAMES]), _flip_ranks(a[FK.KNIGHTS])
        m[FK.SIDE] = a[FK.SIDE] ^ np.uint64(1)
        if a[FK.FIRST] != FK.NO_SQUARE:
            m[FK.FIRST] = a[FK.FIRST] ^ np.uint64(56)
        assert FK.evaluate_tuned(m) == -v
    for s in _tolkuchka_states():
        a = s.array
        v = TK.evaluate_tuned(a)
        assert -1.0 < v < 1.0
        m = a.copy()  # a half turn, colours and the side to move swapped
        m[TK.WHITE], m[TK.BLACK] = _half_turn(a[TK.BLACK]), _half_turn(a[TK.WHITE])
        m[TK.SIDE] = a[TK.SIDE] ^ np.uint64(1)
        assert TK.evaluate_tuned(m) == -v
    # a lead counts for its side, less far from the enemy and less as the quiet-ply draw
    # nears, and nothing far from it at the limit
    game = ludo_flow.load_game("tolkuchka")
    near, far = "6BB/8/4WWWW/3WWWWW/8/8/8/8", "6BB/8/8/8/4WWWW/3WWWWW/8/8"
    values = [TK.evaluate_tuned(game.from_string(f"{board} w - {quiet} 60").array)
              for board, quiet in ((near, 0), (far, 0), (near, 49), (far, 49))]
    assert values[0] > values[1] > 0 and values[0] > values[2] > 0 and values[1] > values[3]
    at_limit = game.from_string(f"{far} w - 49 60").array
    at_limit[TK.QUIET] = 50  # reached at the limit (a finished game)
    assert TK.tuned_terms(at_limit)[4:] == (0.0, 0.0)


def test_the_kernel_weights_are_the_experiments_fit():
    with open(RESULTS) as fh:
        fits = json.load(fh)["fits"]
    for name, k in (("flow", FK), ("tolkuchka", TK)):
        fitted = fits[name]["tuned"]
        assert list(fitted) == list(k.TUNED_TERMS)
        assert k.TUNED_WEIGHTS == tuple(round(fitted[t], 4) for t in k.TUNED_TERMS)


def test_dispatch_picks_the_evaluation_and_refuses_an_unknown_one():
    for name, states in (("flow", _flow_states()[::20]), ("tolkuchka", _tolkuchka_states()[::40])):
        game = ludo_flow.load_game(name)
        for s in states:
            a = s.array
            assert dispatch.evaluate(game.game_id, a, dispatch.HAND) == game.kernels.evaluate(a)
            assert dispatch.evaluate(game.game_id, a, dispatch.TUNED) == game.kernels.evaluate_tuned(a)
        for bad in (-1, 2, 9):
            with pytest.raises(ValueError, match="unknown evaluation id"):
                dispatch.evaluate(game.game_id, states[0].array, bad)


@pytest.mark.parametrize("name, default, other", [("alphabeta", "texel", "hand"), ("mcts", "texel", "hand")])
def test_the_eval_setting_is_checked(name, default, other):
    with pytest.raises(AgentError, match="eval must be one of hand, texel"):
        make_agent(f"{name}:eval=tuned")
    assert make_agent(f"{name}:eval={other}").name == f"{name}:eval={other}"
    assert make_agent(f"{name}:eval={default}").name == name


@pytest.mark.slow
@pytest.mark.parametrize("evaluation", ["hand", "texel"])
def test_alphabeta_depth_one_plays_the_best_child_by_the_chosen_evaluation(evaluation):
    game = ludo_flow.load_game("tolkuchka")
    evaluate = {"hand": TK.evaluate, "texel": TK.evaluate_tuned}[evaluation]
    agent = make_agent(f"alphabeta:depth=1,eval={evaluation}", game)
    for s in _tolkuchka_states()[5::25]:
        sign = 1.0 if s.current_player() == 0 else -1.0
        children = [s.child(a) for a in s.legal_actions()]
        if len(children) < 2 or any(c.is_terminal() for c in children):
            continue
        agent.select_action(s)
        assert agent.last_stats["score"] == pytest.approx(max(sign * evaluate(c.array) for c in children))


def test_mcts_cutoff_scores_by_the_chosen_evaluation():
    game = ludo_flow.load_game("tolkuchka")
    state = _tolkuchka_states()[30]
    values = {}
    for evaluation in ("hand", "texel"):
        agent = make_agent(f"mcts:simulations=200,cutoff=1,eval={evaluation},seed=3", game)
        agent.select_action(state)
        values[evaluation] = agent.last_stats["visits"]
    assert values["hand"] != values["texel"]
