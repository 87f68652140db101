"""Flow for people and notebooks: `FlowGame` (variants, parameters) and `FlowState`."""
import re

import numpy as np

from ..errors import ActionError, PositionError
from ..game import Game, State, parse_count
from ..outcome import Termination
from ..render import (BLACK_PIECE, WHITE_PIECE, ascii_board, board_field, changed_squares,
                      last_move_caption, parse_board_field, parse_square, square_name, svg_board)
from . import kernels as K

PIECE_LETTERS = "PRNprn"
_TURN_LIMIT = 65535
_WORDS = {}  # action -> its notation (a Flow action is written alike in every position)


def _bits(board):
    """Return the square indices set in a uint64 board, ascending."""
    board = int(board)
    return [sq for sq in range(64) if board >> sq & 1]


def _far_edge(black, mask, height):
    """Return the board (an int) of the far edge of White (the top rank) or, if `black`, of Black (rank 1)."""
    return int(mask) & (0xFF if black else 0xFF << 8 * (height - 1))


def _piece_map(array):
    """Return {square: letter} of the pieces of a Flow state array."""
    white, black, dames, knights = (int(array[i]) for i in (K.WHITE, K.BLACK, K.DAMES, K.KNIGHTS))
    pieces = {}
    for sq in _bits(white | black):
        letter = "N" if knights >> sq & 1 else "R" if dames >> sq & 1 else "P"
        pieces[sq] = letter if white >> sq & 1 else letter.lower()
    return pieces


class FlowState(State):
    """A Flow position: a settled position between steps, or a choose phase mid-current."""

    @property
    def width(self):
        """Return the number of files."""
        return int(self._array[K.WIDTH])

    @property
    def height(self):
        """Return the number of ranks."""
        return int(self._array[K.HEIGHT])

    @property
    def step(self):
        """Return 1 or 2: which step of the turn the player to move is making."""
        return int(self._array[K.STEP])

    @property
    def choosing(self):
        """Return True in the choose phase (the player who stepped picks a piece to wash)."""
        return int(self._array[K.PHASE]) == K.PHASE_CHOOSE

    @property
    def turns(self):
        """Return the number of completed turns (both players' turns counted)."""
        return int(self._array[K.TURNS])

    @property
    def first_moved(self):
        """Return the square of the piece moved by this turn's first step, or None."""
        sq = int(self._array[K.FIRST])
        return None if sq == K.NO_SQUARE or self.step == 1 else sq

    def pieces(self):
        """Return {square index: letter} for every piece ('P', 'R', 'N' White; lower case Black)."""
        return _piece_map(self._array)

    def wash_candidates(self):
        """Return the squares of all wash candidates (empty when the current is at rest)."""
        occ = self._array[K.WHITE] | self._array[K.BLACK]
        return _bits(K.wash_candidates(occ, self.width, self._array[K.MASK]))

    def action_to_string(self, action):
        """Return an action in notation: 'b2-b4' for a step, '~d4' for a wash choice."""
        try:
            word = _WORDS.get(action)
        except TypeError:  # unhashable: int() below says what is wrong with it
            word = None
        if word is None:
            word = _WORDS[int(action)] = self._action_word(action)
        return word

    def _action_word(self, action):
        action = int(action)
        if K.WASH_BASE <= action < K.WASH_BASE + 64:
            return "~" + square_name(action - K.WASH_BASE)
        if 0 <= action < K.WASH_BASE:
            return square_name(action >> 6) + "-" + square_name(action & 63)
        raise ActionError(f"{action} is not a Flow action (0..{K.ACTION_SPACE - 1})")

    def actions_to_strings(self, actions):
        """Return the notation of `actions` played one after another from this state: a Flow
        action's notation does not depend on the position, so each is written once a process
        (and, unlike the other games', the actions are not played: their legality is the caller's)."""
        words = []
        for action in actions:
            word = _WORDS.get(action)
            if word is None:
                word = self.action_to_string(action)
            words.append(word)
        return words

    def _check_notation(self, text):
        m = re.fullmatch(r"~([a-h][1-8])|([a-h][1-8])-([a-h][1-8])", text)
        if not m:
            raise ActionError(f"{text!r} is not Flow notation (a step 'b2-b4' or a wash '~d4')")
        for name in m.groups():
            if name:
                parse_square(name, self.width, self.height)

    def to_string(self):
        """Return the position string (ValueError in the choose phase, which has none)."""
        if self.choosing:
            raise PositionError("a choose-phase state has no position string; "
                                "give the position before the step and the actions after it")
        first = self.first_moved
        side = "b" if self.current_player() else "w"
        return (f"{board_field(self.width, self.height, self.pieces())} {side} {self.step} "
                f"{'-' if first is None else square_name(first)} {self.turns}")

    _END_PHRASES = {Termination.FAR_EDGE: "a {winner} piece reached its far edge",
                    Termination.OPPONENT_FAR_EDGE: "a push carried a {winner} piece to its far edge",
                    Termination.NO_FIRST_STEP: "{loser} has no first step",
                    Termination.TURN_LIMIT: "{max_turns} turns played"}

    def _status(self, ringed=False):
        side = "Black" if self.current_player() else "White"
        if self.is_terminal():
            return self._end_text()
        if self.choosing:
            return [f"{side} chooses {'a ringed' if ringed else 'a'} piece", "to wash:",
                    " ".join("~" + square_name(s) for s in self.wash_candidates())]
        first = self.first_moved
        moved = [f"first moved {square_name(first)};"] if first is not None else []
        return ([f"{side} to move,", f"step {self.step}" + ("," if moved else ";")] + moved
                + [f"turn {self.turns}/{self.game.params['max_turns']}"])

    def __str__(self):
        return ascii_board(self.width, self.height, self.pieces(), " ".join(self._status()))

    def board_picture(self):
        """Return what the board pictures (SVG, RGB) show: a dict of width, height, pieces
        {square: (fill, outline, letter)}, last_move (the last decision's squares), changed
        (the other squares it changed), rings (wash candidates to choose from) and barred (None)."""
        pieces = {sq: (WHITE_PIECE if letter.isupper() else BLACK_PIECE) + ("" if letter in "Pp" else letter.upper(),)
                  for sq, letter in self.pieces().items()}
        last_move, changed = (), []
        action = self._last_action
        if action is not None:
            # A step's from and to squares, or a wash choice's square; the current moved the
            # pieces on the other squares that changed.
            last_move = ((action - K.WASH_BASE,) if action >= K.WASH_BASE else (action >> 6, action & 63))
            changed = [sq for sq in changed_squares(_piece_map(self._before), self.pieces())
                       if sq not in last_move]
        rings = tuple(self.wash_candidates()) if self.choosing else ()
        return {"width": self.width, "height": self.height, "pieces": pieces, "last_move": last_move,
                "changed": changed, "rings": rings, "barred": None}

    def _repr_svg_(self):
        p = self.board_picture()
        caption = []
        if self._last_action is not None:
            caption.append(last_move_caption(self.action_to_string(self._last_action), p["changed"],
                                             "moved by the current"))
        caption.append(self._status(ringed=True))
        return svg_board(p["width"], p["height"], p["pieces"], caption, p["last_move"], p["changed"],
                         p["rings"])


class FlowGame(Game):
    """Flow: pick a variant ('standard', 'stones', 'fountain') and `max_turns` (default 200)."""

    name = "flow"
    game_id = 0
    kernels = K
    observation_shape = K.OBSERVATION_SHAPE
    state_class = FlowState
    variants = {
        "standard": "1r1n1n1r/p1p1p1p1/1p1p1p1p/8/8/P1P1P1P1/1P1P1P1P/R1N1N1R1 w 1 - 0",
        "stones": "p1pp1p/p1pp1p/6/6/P1PP1P/P1PP1P w 1 - 0",
        "fountain": "p1p1p/p1p1p/5/P1P1P/P1P1P w 1 - 0",
    }
    param_ranges = {"max_turns": (200, 1, _TURN_LIMIT)}
    terminations = {K.FAR_EDGE: Termination.FAR_EDGE, K.OPPONENT_FAR_EDGE: Termination.OPPONENT_FAR_EDGE,
                    K.NO_FIRST_STEP: Termination.NO_FIRST_STEP, K.TURN_LIMIT: Termination.TURN_LIMIT}

    def _check_array(self, a):
        """Raise PositionError unless `a` is a Flow state as play leaves one (see Game.from_array).

        Every word in range first (the kernels index by them), then the fields together: a
        step phase at rest, an ongoing one with no piece on its far edge, a first-moved piece
        only at step 2 and a legal step there; a choose phase with two or more wash candidates,
        its current's history ending with its arrangement, and a legal wash; a finished game
        (a result word) ended as the rules end one."""
        self._check_words(a)
        white, black = int(a[K.WHITE]), int(a[K.BLACK])
        width, height, mask = int(a[K.WIDTH]), int(a[K.HEIGHT]), a[K.MASK]
        side, step, first, turns = int(a[K.SIDE]), int(a[K.STEP]), int(a[K.FIRST]), int(a[K.TURNS])
        mover = black if side else white
        if first != K.NO_SQUARE and not mover >> first & 1:
            raise PositionError(f"the first-moved square {square_name(first)} holds no piece of the side to move")
        candidates = int(K.wash_candidates(a[K.WHITE] | a[K.BLACK], width, mask))
        if int(a[K.PHASE]) == K.PHASE_CHOOSE:
            if int(a[K.RESULT]) != K.ONGOING:
                raise PositionError("a finished game has no choose phase")
            if turns > _TURN_LIMIT:
                raise PositionError(f"completed turns must be at most {_TURN_LIMIT} in an unfinished game")
            nhist = int(a[K.NHIST])
            if candidates & (candidates - 1) == 0:
                raise PositionError("a choose phase needs two or more wash candidates, "
                                    f"the board has {len(_bits(candidates))}")
            if nhist == 0 or int(a[K.HIST + nhist - 1]) != int(K.arrangement_key(a[K.WHITE], a[K.BLACK], a[K.DAMES])):
                raise PositionError("a choose phase's current history must end with its arrangement's key")
            if not self.state_class(self, a).legal_actions():
                raise PositionError("a choose phase must have a legal wash choice")
            return
        if int(a[K.NHIST]):
            raise PositionError(f"a step phase's current history must be empty, got {int(a[K.NHIST])} keys")
        if candidates:
            names = " ".join(square_name(q) for q in _bits(candidates))
            raise PositionError(f"the board has a wall (wash candidates {names}): "
                                "outside a choose phase the current is at rest")
        code = int(a[K.RESULT])
        if code != K.ONGOING:
            self._check_finished(a, code)
            return
        if turns > _TURN_LIMIT:
            raise PositionError(f"completed turns must be at most {_TURN_LIMIT} in an unfinished game")
        for colour, who in ((white, "White"), (black, "Black")):
            on_edge = colour & _far_edge(who == "Black", mask, height)
            if on_edge:
                raise PositionError(f"{who} has a piece on its far edge ({square_name(_bits(on_edge)[0])}): "
                                    "the game would already be over")
        if step == 1 and first != K.NO_SQUARE:
            raise PositionError("step 1 cannot name a first-moved square")
        if step == 2 and not K.has_legal_step(a):
            raise PositionError("at step 2 the side to move must have a legal step")

    def _check_words(self, a):
        """Raise PositionError unless every word of `a` is in its range and the boards fit the board."""
        w, h = int(a[K.WIDTH]), int(a[K.HEIGHT])
        problems = []
        if not (4 <= w <= 8 and 4 <= h <= 8):
            problems.append(f"board size {w}x{h}")
        elif int(a[K.MASK]) != int(K.board_mask(w, h)):
            problems.append("board mask")
        white, black, dames, knights = (int(a[i]) for i in (K.WHITE, K.BLACK, K.DAMES, K.KNIGHTS))
        if white & black or (white | black) & ~int(a[K.MASK]) or dames & ~(white | black) or knights & ~dames:
            problems.append("piece boards")
        for slot, name, hi in ((K.SIDE, "side", 1), (K.PHASE, "phase", 1), (K.RESULT, "result", 3),
                               (K.FIRST, "first-moved square", K.NO_SQUARE), (K.NHIST, "history length",
                               K.MAX_WASHES + 1), (K.TURNS, "completed turns", _TURN_LIMIT + 1)):
            if int(a[slot]) > hi:
                problems.append(name)
        if int(a[K.STEP]) not in (1, 2):
            problems.append("step")
        if int(a[K.MAX_TURNS]) != self.params["max_turns"]:
            problems.append(f"max_turns {int(a[K.MAX_TURNS])} (the game's is {self.params['max_turns']})")
        if problems:
            raise PositionError(f"malformed Flow state array: bad {', '.join(problems)}")

    def _check_finished(self, a, code):
        """Raise PositionError unless the result word `code` of the step-phase array `a` is how the
        rules end a game: a draw at step 1 once max_turns turns are complete; a win by a piece
        of the winner on its far edge, or by the loser, to move at step 1, having no step."""
        side, step = int(a[K.SIDE]), int(a[K.STEP])
        if code == K.DRAW:
            if step != 1 or int(a[K.TURNS]) < int(a[K.MAX_TURNS]):
                raise PositionError("a drawn game must be at step 1 with max_turns turns complete")
            return
        winner = 0 if code == K.WHITE_WINS else 1
        if int(a[K.BLACK if winner else K.WHITE]) & _far_edge(winner, a[K.MASK], int(a[K.HEIGHT])):
            return
        if side == winner or step != 1 or K.has_legal_step(a):
            raise PositionError("a won game must have a piece of the winner on its far edge, "
                                "or the loser to move at step 1 with no legal step")

    def _parse_position(self, text):
        fields = text.split()
        if len(fields) != 5:
            raise PositionError(
                f"a Flow position has 5 fields (board side step first-moved turns), got {len(fields)}: {text!r}")
        board, side, step, first, turns = fields
        width, height, pieces = parse_board_field(board, PIECE_LETTERS)
        if side not in ("w", "b"):
            raise PositionError(f"side to move must be 'w' or 'b', got {side!r}")
        if step not in ("1", "2"):
            raise PositionError(f"step must be 1 or 2, got {step!r}")
        turns = parse_count(turns, "completed turns", _TURN_LIMIT)
        s = K.new_state(width, height, self.params["max_turns"])
        for sq, letter in pieces.items():
            b = np.uint64(1 << sq)
            s[K.WHITE if letter.isupper() else K.BLACK] |= b
            if letter in "RNrn":
                s[K.DAMES] |= b
            if letter in "Nn":
                s[K.KNIGHTS] |= b
        s[K.SIDE] = 1 if side == "b" else 0
        s[K.STEP] = int(step)
        s[K.TURNS] = turns
        if first == "-":
            s[K.FIRST] = K.NO_SQUARE  # at step 2: the first-moved piece fell off, any piece may move
        elif step == "1":
            raise PositionError("step 1 cannot name a first-moved square (use '-')")
        elif not re.fullmatch(r"[a-h][1-8]", first):
            raise PositionError(f"bad first-moved square: {first!r} is not a square name like 'd4'")
        else:
            try:
                s[K.FIRST] = parse_square(first, width, height)
            except ActionError as err:
                raise PositionError(f"bad first-moved square: {err}") from None
        return s
