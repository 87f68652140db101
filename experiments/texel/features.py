"""Features of the Texel fit: the current evaluations' terms first, then the candidates.

Every feature is from White's side and flips sign when the colours are swapped (Flow: with
the ranks mirrored; Tolkuchka: with the board turned half round), like `evaluate`. A feature
that names the *mover* or the *waiting* side is the quantity of that side, counted + when it
is White and - when it is Black. `flow_features` / `tolkuchka_features` fill one row per state
(numba, loop over the states); the name lists give the columns.
"""
import numpy as np
from numba import njit

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
    "material_fresh",   # material x (1 - quiet plies / quiet-ply limit)
    "material_near",    # material x (1 - (king distance between the armies, capped at 3, - 1) / 2)
)
TOLKUCHKA_HAND = {"material": 0.5, "mobility": 0.05, "exposure": -0.05}

N_FLOW = len(FLOW_FEATURES)
N_TOLKUCHKA = len(TOLKUCHKA_FEATURES)
FLOW_CURRENT = tuple(FLOW_HAND)
TOLKUCHKA_CURRENT = tuple(TOLKUCHKA_HAND)


@njit(cache=True)
def flow_row(s, out):
    """Fill `out` with the FLOW_FEATURES of the Flow state `s`: the kernel's `tuned_terms`
    (the current evaluation's three among them) and the candidates the tuned one left out."""
    t = FK.tuned_terms(s)
    span = np.int64(s[FK.HEIGHT]) - 1
    white = s[FK.WHITE]
    black = s[FK.BLACK]
    w_best = np.int64(msb(white) >> 3) if white else np.int64(0)
    b_best = span - np.int64(lsb(black) >> 3) if black else np.int64(0)
    out[0], out[1], out[2] = t[0], t[1], t[2]
    out[3] = (w_best - b_best) / span
    out[4], out[5], out[6], out[7], out[8] = t[3], t[4], t[5], t[6], t[7]
    sign = 1.0 if s[FK.SIDE] == 0 else -1.0
    out[9] = 0.0 if t[7] != 0.0 else sign


@njit(cache=True)
def tolkuchka_row(s, out):
    """Fill `out` with the TOLKUCHKA_FEATURES of the Tolkuchka state `s`: the kernel's
    `tuned_terms` and what they are made of (material and its two interactions, counted
    here as material minus its faded parts), and the candidates the tuned one left out."""
    mobility, exposure, attacks_mover, attacks_waiting, fresh, near = TK.tuned_terms(s)
    white = s[TK.WHITE]
    black = s[TK.BLACK]
    material = np.float64(np.int64(popcount(white)) - np.int64(popcount(black)))
    out[0], out[1], out[2] = material, mobility, exposure
    w_adv = np.int64(FK._rank_sum(white))  # the same rank-bit sums (8 ranks)
    b_adv = 7 * np.int64(popcount(black)) - np.int64(FK._rank_sum(black))
    out[3] = (w_adv - b_adv) / 8.0
    out[4], out[5] = attacks_mover, attacks_waiting
    out[6] = material - fresh   # material x quiet / limit
    out[7] = material - near    # material x (gap - 1) / 2
    near_black = TK.neighbours(TK.neighbours(black) | black)
    near_white = TK.neighbours(TK.neighbours(white) | white)
    out[8] = material * np.int64(popcount(white & near_black) + popcount(black & near_white)) / 18.0
    out[9] = 1.0 if s[TK.SIDE] == 0 else -1.0
    out[10], out[11] = fresh, near


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
