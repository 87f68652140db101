"""Features of the Texel fit: the current evaluations' terms first, then the candidates.

Every feature is from White's side and flips sign when the colours are swapped (Flow: with
the ranks mirrored; Tolkuchka: with the board turned half round), like `evaluate`. A feature
that names the *mover* or the *waiting* side is the quantity of that side, counted + when it
is White and - when it is Black. `flow_features` / `tolkuchka_features` fill one row per state
(numba, loop over the states); the name lists give the columns.
"""
import numpy as np
from numba import njit, uint64

from ludo_flow.bits import lsb, msb, popcount
from ludo_flow.flow import kernels as FK
from ludo_flow.tolkuchka import kernels as TK

FLOW_FEATURES = (
    "best2",            # current: (most advanced piece's ranks travelled / span)^2
    "advance",          # current: total ranks travelled / (8 span)
    "pieces",           # current: pieces on the board
    "best",             # most advanced piece, linear (ranks travelled / span)
    "runner_mover",     # far-edge squares the mover can step to now (a win this turn)
    "runner_waiting",   # far-edge squares the waiting side could step to at its turn
    "washable_mover",   # mover's pieces the waiting side can make wash candidates with one step
    "washable_waiting",  # waiting side's pieces the mover can make wash candidates with one step
    "tempo_step1",      # the mover has its whole turn (two steps) ahead
    "tempo_step2",      # the mover has its second step (or a wash choice) left
)
# The current evaluation's weights in logit units: evaluate = tanh(x / 4) is the expected
# score 2 p - 1 of p = sigmoid(x / 2), so a hand weight w of x is w / 2 on the logit.
FLOW_HAND = {"best2": 1.5, "advance": 0.25, "pieces": 0.125}

TOLKUCHKA_FEATURES = (
    "material",         # current: checkers on the board
    "mobility",         # current: (row, direction) pairs whose front square is on the board, not own
    "exposure",         # current: checkers on the board's edge
    "advance",          # progress towards the enemy's home rows: ranks travelled, summed
    "attacks_mover",    # (row, direction) pairs of the mover whose front square is an enemy checker
    "attacks_waiting",  # the same for the waiting side
    "material_quiet",   # material x quiet plies / quiet-ply limit (a lead fades as the draw nears)
    "material_gap",     # material x (king distance between the armies, capped at 3, - 1) / 2
    "material_contact",  # material x checkers (both sides) within 2 king steps of an enemy / 18
    "tempo",            # the side to move
)
TOLKUCHKA_HAND = {"material": 0.5, "mobility": 0.05, "exposure": -0.05}

N_FLOW = len(FLOW_FEATURES)
N_TOLKUCHKA = len(TOLKUCHKA_FEATURES)
FLOW_CURRENT = tuple(FLOW_HAND)
TOLKUCHKA_CURRENT = tuple(TOLKUCHKA_HAND)


@njit(cache=True)
def _far_edge_steps(side, movable, occ, dames, mask, far):
    """Return how many far-edge squares `movable` pieces of `side` can step to (current ignored)."""
    sets = FK.step_targets(side, movable, occ, dames, mask)
    reach = uint64(0)
    for board in sets:
        reach |= board
    return np.int64(popcount(reach & far))


@njit(cache=True)
def _washable(own, side_other, other_movable, occ, dames, mask, width):
    """Return (count, board) of `own` pieces that one step of the other side makes wash candidates.

    At rest no wall stands, so a piece becomes a candidate when a piece arrives next to it on
    its rank while its other side is occupied or the board's edge."""
    sets = FK.step_targets(side_other, other_movable, occ, dames, mask)
    arrival = uint64(0)
    for board in sets:
        arrival |= board
    left_edge = FK.FILE_A & mask
    right_edge = (FK.FILE_A << uint64(width - 1)) & mask
    covered_left = ((occ << uint64(1)) & ~FK.FILE_A) | left_edge
    covered_right = ((occ >> uint64(1)) & ~FK.FILE_H) | right_edge
    arrive_right = (arrival >> uint64(1)) & ~FK.FILE_H
    arrive_left = (arrival << uint64(1)) & ~FK.FILE_A
    board = own & ((covered_left & arrive_right) | (covered_right & arrive_left))
    return np.int64(popcount(board)), board


@njit(cache=True)
def flow_row(s, out):
    """Fill `out` with the FLOW_FEATURES of the Flow state `s`."""
    span = np.int64(s[FK.HEIGHT]) - 1
    white = s[FK.WHITE]
    black = s[FK.BLACK]
    dames = s[FK.DAMES]
    mask = s[FK.MASK]
    width = np.int64(s[FK.WIDTH])
    occ = white | black
    w_best = np.int64(msb(white) >> 3) if white else np.int64(0)
    b_best = span - np.int64(lsb(black) >> 3) if black else np.int64(0)
    w_total = np.int64(FK._rank_sum(white))
    b_total = span * np.int64(popcount(black)) - np.int64(FK._rank_sum(black))
    out[0] = (w_best * w_best - b_best * b_best) / (span * span)
    out[1] = (w_total - b_total) / (8.0 * span)
    out[2] = np.int64(popcount(white)) - np.int64(popcount(black))
    out[3] = (w_best - b_best) / span
    side = np.int64(s[FK.SIDE])
    sign = 1.0 if side == 0 else -1.0
    far_of = (FK.RANK_1 << uint64(8 * span), FK.RANK_1)  # White's far edge, Black's
    mover = black if side else white
    waiting = white if side else black
    mover_movable = FK.movable_pieces(s)
    out[4] = sign * _far_edge_steps(side, mover_movable, occ, dames, mask, far_of[side])
    out[5] = -sign * _far_edge_steps(1 - side, waiting, occ, dames, mask, far_of[1 - side])
    out[6] = sign * _washable(mover, 1 - side, waiting, occ, dames, mask, width)[0]
    out[7] = -sign * _washable(waiting, side, mover_movable, occ, dames, mask, width)[0]
    first_step = s[FK.STEP] == 1 and s[FK.PHASE] == FK.PHASE_STEP
    out[8] = sign if first_step else 0.0
    out[9] = 0.0 if first_step else sign


@njit(cache=True)
def _attacks(own, enemy):
    """Return the (row, direction) pairs of `own` whose front square holds an enemy checker."""
    count = 0
    for d in range(4):
        ahead = TK.shift(own, d)
        behind = TK.shift(own, d + 4)
        count += popcount(own & ahead & ~behind & TK.shift(enemy, d + 4))
        count += popcount(own & behind & ~ahead & TK.shift(enemy, d))
    return count


@njit(cache=True)
def _gap(a, b):
    """Return the king distance between the nearest checkers of boards a and b, capped at 3."""
    near = TK.neighbours(a) | a
    if near & b:
        return 1
    return 2 if TK.neighbours(near) & b else 3


@njit(cache=True)
def tolkuchka_row(s, out):
    """Fill `out` with the TOLKUCHKA_FEATURES of the Tolkuchka state `s`."""
    white = s[TK.WHITE]
    black = s[TK.BLACK]
    edge = TK.FILE_A | TK.FILE_H | TK.RANK_1 | TK.RANK_8
    material = np.int64(popcount(white)) - np.int64(popcount(black))
    out[0] = material
    out[1] = np.int64(TK._open_fronts(white)) - np.int64(TK._open_fronts(black))
    out[2] = np.int64(popcount(white & edge)) - np.int64(popcount(black & edge))
    w_adv = np.int64(FK._rank_sum(white))  # the same rank-bit sums (8 ranks)
    b_adv = 7 * np.int64(popcount(black)) - np.int64(FK._rank_sum(black))
    out[3] = (w_adv - b_adv) / 8.0
    side = np.int64(s[TK.SIDE])
    sign = 1.0 if side == 0 else -1.0
    mover, waiting = (black, white) if side else (white, black)
    out[4] = sign * _attacks(mover, waiting)
    out[5] = -sign * _attacks(waiting, mover)
    out[6] = material * np.float64(s[TK.QUIET]) / max(1.0, np.float64(s[TK.QUIET_PLIES]))
    out[7] = material * (_gap(white, black) - 1) / 2.0
    near_black = TK.neighbours(TK.neighbours(black) | black)
    near_white = TK.neighbours(TK.neighbours(white) | white)
    out[8] = material * np.int64(popcount(white & near_black) + popcount(black & near_white)) / 18.0
    out[9] = sign


@njit(cache=True)
def flow_features(states):
    """Return the FLOW_FEATURES of each row of `states` (n x STATE_SIZE), as an n x k array."""
    out = np.zeros((states.shape[0], N_FLOW))
    for i in range(states.shape[0]):
        flow_row(states[i], out[i])
    return out


@njit(cache=True)
def tolkuchka_features(states):
    """Return the TOLKUCHKA_FEATURES of each row of `states`, as an n x k array."""
    out = np.zeros((states.shape[0], N_TOLKUCHKA))
    for i in range(states.shape[0]):
        tolkuchka_row(states[i], out[i])
    return out


FEATURES = {"flow": (FLOW_FEATURES, FLOW_CURRENT, FLOW_HAND, flow_features),
            "tolkuchka": (TOLKUCHKA_FEATURES, TOLKUCHKA_CURRENT, TOLKUCHKA_HAND, tolkuchka_features)}
