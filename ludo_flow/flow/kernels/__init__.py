"""Flow kernels: the whole rule set as numba functions over one fixed-size uint64 array.

State layout (`STATE_SIZE` words, `layout`): colour boards, a dame board (rooks and knights)
and a knight board (display only: rooks and knights move alike), the board mask, then one word
per field. In the choose phase the state also carries the keys of every arrangement produced
since its step began (the loop rule needs them).

Actions: a step `from-to` is `from * 64 + to`; a wash choice `~sq` is `WASH_BASE + sq`.
All kernels trust their inputs: the State layer validates.

The modules, each using only those above it:

- `layout`: the state's slots, codes and constants; the plain numpy constructors.
- `current`: wall candidates, washes, arrangement keys, the loop rule's search.
- `moves`: step generation, legal and candidate actions, wash choices.
- `rules`: `apply` (a step's current to rest, the turn's end), `result`, `termination`, keys.
- `evaluation`: the hand-set `evaluate` and the Texel fit `evaluate_tuned`.
- `search`: what searches ask beyond the rules (`child_outcome`, `drop_transposed_steps`).
- `playout`: uniform random playouts (a rejection sampler of legal steps, a fast random ply).
- `observation`: the observation tensor.

`perft` is the walk every game shares (`ludo_flow.perft`), made here with Flow's kernels, and
`random_game` the random game every game shares (`ludo_flow.random_games`).
Every kernel and constant is importable from this package (`ludo_flow.flow.kernels.X`), as the
dispatch, the `Game` class, the agents and the tests use them.
"""
from ...perft import perft_for
from ...random_games import random_game_for
from .layout import (ACTION_SPACE, BLACK, BLACK_WINS, BoardShape, DAMES, DRAW, FAR_EDGE, FILE_A,
                     FILE_H, FIRST, HEIGHT, HIST, KNIGHTS, MASK, MAX_ACTIONS, MAX_TURNS,
                     MAX_WASHES, NHIST, NOT_OVER, NO_FIRST_STEP, NO_SQUARE, ONGOING,
                     OPPONENT_FAR_EDGE, PHASE, PHASE_CHOOSE, PHASE_STEP, RANK_1, RESULT, SIDE,
                     STATE_SIZE, STEP, TURNS, TURN_LIMIT, WASH_BASE, WHITE, WHITE_WINS, WIDTH,
                     board_mask, new_state, _K1, _K2, _K3, _M1, _M2)
from .current import (arrangement_key, can_rest, wash, wash_candidates, _fmix, _rests_after_step,
                      _step_is_legal, _stepped, _wall_makers)
from .moves import (NUM_STEP_SETS, candidate_actions, has_legal_step, is_candidate,
                    is_legal_candidate, legal_actions, movable_pieces, step_origin, step_targets,
                    turn_limit_reached, _actions, _any_legal_step, _fill_down, _fill_up, _movable,
                    _steps, _wash_is_legal)
from .rules import (apply, current_player, hash_key, is_terminal, result, returns, termination,
                    _apply_current, _at_rest, _end_turn, _far_edge, _next_turn, _write_at_rest)
from .evaluation import (EVALUATION_BOUND, RANK_BIT0, RANK_BIT1, RANK_BIT2, TUNED_TERMS,
                         TUNED_WEIGHTS, evaluate, evaluate_tuned, tuned_terms, _hand_value,
                         _race_score, _rank_sum, _reach, _terms, _tuned_value, _washable)
from .search import child_outcome, drop_transposed_steps, _step_path
from .playout import playout, playout_with_length, random_ply, random_step
from .observation import (OBSERVATION_SHAPE, OBS_BLACK_DAMES, OBS_BLACK_PAWNS, OBS_BLACK_TO_MOVE,
                          OBS_CHOOSING, OBS_FIRST_MOVED, OBS_KNIGHTS, OBS_ON_BOARD, OBS_STEP_TWO,
                          OBS_TURNS, OBS_WASH_CANDIDATES, OBS_WHITE_DAMES, OBS_WHITE_PAWNS,
                          observation)

perft = perft_for("flow", __name__, legal_actions, apply, STATE_SIZE, MAX_ACTIONS)
random_game = random_game_for("flow", __name__, legal_actions, apply, current_player, MAX_ACTIONS)

__all__ = ["ACTION_SPACE", "BLACK", "BLACK_WINS", "BoardShape", "DAMES", "DRAW",
           "EVALUATION_BOUND", "FAR_EDGE", "FILE_A", "FILE_H", "FIRST", "HEIGHT", "HIST",
           "KNIGHTS", "MASK", "MAX_ACTIONS", "MAX_TURNS", "MAX_WASHES", "NHIST", "NOT_OVER",
           "NO_FIRST_STEP", "NO_SQUARE", "NUM_STEP_SETS", "OBSERVATION_SHAPE", "OBS_BLACK_DAMES",
           "OBS_BLACK_PAWNS", "OBS_BLACK_TO_MOVE", "OBS_CHOOSING", "OBS_FIRST_MOVED",
           "OBS_KNIGHTS", "OBS_ON_BOARD", "OBS_STEP_TWO", "OBS_TURNS", "OBS_WASH_CANDIDATES",
           "OBS_WHITE_DAMES", "OBS_WHITE_PAWNS", "ONGOING", "OPPONENT_FAR_EDGE", "PHASE",
           "PHASE_CHOOSE", "PHASE_STEP", "RANK_1", "RANK_BIT0", "RANK_BIT1", "RANK_BIT2", "RESULT",
           "SIDE", "STATE_SIZE", "STEP", "TUNED_TERMS", "TUNED_WEIGHTS", "TURNS", "TURN_LIMIT",
           "WASH_BASE", "WHITE", "WHITE_WINS", "WIDTH", "apply", "arrangement_key", "board_mask",
           "can_rest", "candidate_actions", "child_outcome", "current_player",
           "drop_transposed_steps", "evaluate", "evaluate_tuned", "has_legal_step", "hash_key",
           "is_candidate", "is_legal_candidate", "is_terminal", "legal_actions", "movable_pieces",
           "new_state", "observation", "perft", "playout", "playout_with_length", "random_game",
           "random_ply", "random_step", "result", "returns", "step_origin", "step_targets", "termination",
           "tuned_terms", "turn_limit_reached", "wash", "wash_candidates"]
# The internal helpers too: tests and tools reach them through the package.
__all__ += ["_K1", "_K2", "_K3", "_M1", "_M2", "_actions", "_any_legal_step", "_apply_current",
            "_at_rest", "_end_turn", "_far_edge", "_fill_down", "_fill_up", "_fmix", "_hand_value",
            "_movable", "_next_turn", "_race_score", "_rank_sum", "_reach", "_rests_after_step",
            "_step_is_legal", "_step_path", "_stepped", "_steps", "_terms", "_tuned_value",
            "_wall_makers", "_wash_is_legal", "_washable", "_write_at_rest"]
