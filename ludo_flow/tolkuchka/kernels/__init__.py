"""Tolkuchka kernels: the whole rule set (RULES.md, "Tolkuchka") as numba functions over one uint64 array.

State layout (`STATE_SIZE` words, `layout`): the White and Black boards, the side to move, the
ko word, the count of consecutive plies without a knock, the ply count, and the two draw limits.

The ko word is 0 when the previous ply knocked nothing; after a knocking move it is
`1 + tail * 64 + landing` of that move (the position string's `tail-landing`), which names
both the line L and the direction D the next player may not knock back along.

Actions: `tail_square * 8 + direction`, directions 0..7 = N, NE, E, SE, S, SW, W, NW; the tail
is the back end of the moving row. All kernels trust their inputs: the State layer validates.

The modules, each using only those above it:

- `layout`: the state's slots, codes, direction and line tables, the standard setup; the plain
  numpy constructors.
- `moves`: board shifts, rows and their fronts, the ko bar, move generation and legality.
- `rules`: `apply`, `result`, `termination`, keys.
- `evaluation`: the hand-set `evaluate` and the Texel fit `evaluate_tuned`.
- `playout`: uniform random playouts.
- `observation`: the observation tensor.

A search needs nothing beyond the rules here (`ludo_flow.dispatch` scores a child by `apply`,
`result` and the evaluation; a turn is one decision, so no transposed orders to drop). `perft`
is the walk every game shares (`ludo_flow.perft`), made here with Tolkuchka's kernels, and
`random_game` the random game every game shares (`ludo_flow.random_games`). Every
kernel and constant is importable from this package (`ludo_flow.tolkuchka.kernels.X`), as the
dispatch, the `Game` class, the agents and the tests use them.
"""
from ...perft import perft_for
from ...random_games import random_game_for
from .layout import (ACTION_SPACE, BLACK, BLACK_WINS, DEFAULT_MAX_PLIES, DEFAULT_QUIET_PLIES,
                     DELTA, DIRECTION_NAMES, DRAW, E, FILE_A, FILE_H, FILE_STEP, KO, LANDING_MASK,
                     LINE_THROUGH, MAX_ACTIONS, MAX_PLIES, N, NE, NEXT_TO, NOT_A, NOT_H, NOT_OVER,
                     NO_CHECKERS, NO_KO, NO_MOVE, NW, ONGOING, PLIES, PLY_LIMIT, QUIET,
                     QUIET_LIMIT, QUIET_PLIES, RANK_1, RANK_8, RANK_STEP, ROTATION, S, SE, SIDE,
                     STANDARD_BLACK, STANDARD_BLACK_SQUARES, STANDARD_WHITE,
                     STANDARD_WHITE_SQUARES, STATE_SIZE, SW, W, WHITE, WHITE_WINS, new_state,
                     standard_state, _DIRECTION_OF_SIGNS, _K1, _K2, _K3, _M1, _M2, _board_of,
                     _line_masks, _neighbour_masks)
from .moves import (has_legal_action, is_knock, is_legal_action, ko_word, landing_square,
                    legal_actions, neighbours, shift, singles, _draw_limit_reached, _generate,
                    _generate_direction, _has_legal_move, _has_move_direction, _head_of,
                    _knock_direction, _ko_bar, _leaves_no_single, _movable_fronts, _nearest_ahead,
                    _nearest_behind, _ply_limit_reached, _quiet_limit_reached, _sides, _tail_of,
                    _weak_checkers)
from .rules import apply, current_player, hash_key, is_terminal, result, returns, termination, _fmix
from .evaluation import (EVALUATION_BOUND, EVALUATION_TENTHS, TANH_OF_TENTHS, TUNED_TERMS,
                         TUNED_WEIGHTS, evaluate, evaluate_tuned, tuned_terms, _attacks, _gap,
                         _open_fronts, _terms, _tuned_value)
from .playout import playout, playout_with_length
from .observation import (OBSERVATION_SHAPE, OBS_BLACK, OBS_BLACK_TO_MOVE, OBS_KO_LANDING,
                          OBS_KO_LINE, OBS_KO_TAIL, OBS_PLIES, OBS_QUIET, OBS_WHITE, observation)

perft = perft_for("tolkuchka", __name__, legal_actions, apply, STATE_SIZE, MAX_ACTIONS)
random_game = random_game_for("tolkuchka", __name__, legal_actions, apply, current_player, MAX_ACTIONS)

__all__ = ["ACTION_SPACE", "BLACK", "BLACK_WINS", "DEFAULT_MAX_PLIES", "DEFAULT_QUIET_PLIES",
           "DELTA", "DIRECTION_NAMES", "DRAW", "E", "EVALUATION_BOUND", "EVALUATION_TENTHS",
           "FILE_A", "FILE_H", "FILE_STEP", "KO", "LANDING_MASK", "LINE_THROUGH", "MAX_ACTIONS",
           "MAX_PLIES", "N", "NE", "NEXT_TO", "NOT_A", "NOT_H", "NOT_OVER", "NO_CHECKERS", "NO_KO",
           "NO_MOVE", "NW", "OBSERVATION_SHAPE", "OBS_BLACK", "OBS_BLACK_TO_MOVE",
           "OBS_KO_LANDING", "OBS_KO_LINE", "OBS_KO_TAIL", "OBS_PLIES", "OBS_QUIET", "OBS_WHITE",
           "ONGOING", "PLIES", "PLY_LIMIT", "QUIET", "QUIET_LIMIT", "QUIET_PLIES", "RANK_1",
           "RANK_8", "RANK_STEP", "ROTATION", "S", "SE", "SIDE", "STANDARD_BLACK",
           "STANDARD_BLACK_SQUARES", "STANDARD_WHITE", "STANDARD_WHITE_SQUARES", "STATE_SIZE",
           "SW", "TANH_OF_TENTHS", "TUNED_TERMS", "TUNED_WEIGHTS", "W", "WHITE", "WHITE_WINS",
           "apply", "current_player", "evaluate", "evaluate_tuned", "has_legal_action", "hash_key",
           "is_knock", "is_legal_action", "is_terminal", "ko_word", "landing_square",
           "legal_actions", "neighbours", "new_state", "observation", "perft", "random_game", "playout",
           "playout_with_length", "result", "returns", "shift", "singles", "standard_state",
           "termination", "tuned_terms"]
# The internal helpers too: tests and tools reach them through the package.
__all__ += ["_DIRECTION_OF_SIGNS", "_K1", "_K2", "_K3", "_M1", "_M2", "_attacks", "_board_of",
            "_draw_limit_reached", "_fmix", "_gap", "_generate", "_generate_direction",
            "_has_legal_move", "_has_move_direction", "_head_of", "_knock_direction", "_ko_bar",
            "_leaves_no_single", "_line_masks", "_movable_fronts", "_nearest_ahead",
            "_nearest_behind", "_neighbour_masks", "_open_fronts", "_ply_limit_reached",
            "_quiet_limit_reached", "_sides", "_tail_of", "_terms", "_tuned_value",
            "_weak_checkers"]
