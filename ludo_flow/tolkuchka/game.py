"""Tolkuchka for people and notebooks: `TolkuchkaGame` (parameters) and `TolkuchkaState`."""
import re

import numpy as np

from ..errors import ActionError, PositionError
from ..game import Game, State, parse_count
from ..outcome import Termination
from ..render import (BLACK_PIECE, WHITE_PIECE, ascii_board, board_field, changed_squares,
                      last_move_caption, parse_board_field, parse_square, square_name, svg_board)
from . import kernels as K

_COUNTER_LIMIT = (1 << 32) - 1  # the largest ply count a position may hold


def _squares(board):
    """Return the square indices set in a uint64 board, ascending."""
    board = int(board)
    return [sq for sq in range(64) if board >> sq & 1]


def parse_move(text, error):
    """Return (tail, landing) of 'b4-d6' if it names two squares on one line, else raise `error`."""
    m = re.fullmatch(r"([a-h][1-8])-([a-h][1-8])", text)
    if not m:
        raise error(f"{text!r} is not a move 'tail-landing' like 'b4-d6'")
    tail, landing = parse_square(m.group(1)), parse_square(m.group(2))
    if not _on_one_line(tail, landing):
        raise error(f"{text!r} is not a move along a line")
    return tail, landing


def _on_one_line(a, b):
    """Return True if squares a != b share a rank, a file or a diagonal."""
    df, dr = (b & 7) - (a & 7), (b >> 3) - (a >> 3)
    return (df, dr) != (0, 0) and (df == 0 or dr == 0 or abs(df) == abs(dr))


class TolkuchkaState(State):
    """A Tolkuchka position: the checkers, the side to move, the ko and the draw counters."""

    def checkers(self):
        """Return {square index: 'W' or 'B'} for every checker."""
        out = {sq: "W" for sq in _squares(self._array[K.WHITE])}
        out.update({sq: "B" for sq in _squares(self._array[K.BLACK])})
        return out

    @property
    def ko(self):
        """Return (tail, landing) of the previous ply's knocking move, or None."""
        word = int(self._array[K.KO])
        if word == K.NO_KO:
            return None
        return (word - 1) >> 6, (word - 1) & 63

    @property
    def quiet(self):
        """Return the number of consecutive plies that knocked no checker."""
        return int(self._array[K.QUIET])

    @property
    def plies(self):
        """Return the number of plies played."""
        return int(self._array[K.PLIES])

    def action_to_string(self, action):
        """Return a move in notation: the tail's square and the square it lands on, 'b4-d6'."""
        action = int(action)
        if not 0 <= action < K.ACTION_SPACE:
            raise ActionError(f"{action} is not a Tolkuchka action (0..{K.ACTION_SPACE - 1})")
        own = int(self._array[K.BLACK if self.current_player() else K.WHITE])
        tail, d = action >> 3, action & 7
        df, dr = int(K.FILE_STEP[d]), int(K.RANK_STEP[d])
        f, r = tail & 7, tail >> 3
        behind = (f - df, r - dr)
        if (not own >> tail & 1 or (0 <= behind[0] < 8 and 0 <= behind[1] < 8
                                    and own >> (behind[1] * 8 + behind[0]) & 1)):
            raise ActionError(f"action {action} names no row tail of the side to move")
        length = 0
        while 0 <= f < 8 and 0 <= r < 8 and own >> (r * 8 + f) & 1:
            f, r, length = f + df, r + dr, length + 1
        if length < 2 or not (0 <= f < 8 and 0 <= r < 8):
            raise ActionError(f"action {action} names no row that can move that way")
        return square_name(tail) + "-" + square_name(r * 8 + f)

    def _check_notation(self, text):
        parse_move(text, ActionError)

    def to_string(self):
        """Return the position string (ranks 8..1, side, ko move, quiet plies, plies)."""
        ko = self.ko
        ko_text = "-" if ko is None else f"{square_name(ko[0])}-{square_name(ko[1])}"
        side = "b" if self.current_player() else "w"
        return f"{board_field(8, 8, self.checkers())} {side} {ko_text} {self.quiet} {self.plies}"

    _END_PHRASES = {Termination.NO_CHECKERS: "{loser} has no checkers left",
                    Termination.NO_MOVE: "{loser} has no legal move",
                    Termination.QUIET_PLIES: "{quiet_plies} plies without a knock",
                    Termination.MAX_PLIES: "{max_plies} plies played"}

    def _status(self, ko=True):
        if self.is_terminal():
            return self._end_text()
        side = "Black" if self.current_player() else "White"
        p = self.game.params
        phrases = [f"{side} to move;", f"ply {self.plies}/{p['max_plies']},",
                   f"quiet {self.quiet}/{p['quiet_plies']}"]
        if ko and self.ko:
            phrases[-1] += ";"
            phrases.append(f"ko after {self._ko_move()}")
        return phrases

    def _ko_move(self):
        """Return the ko's knocking move in notation."""
        tail, landing = self.ko
        return f"{square_name(tail)}-{square_name(landing)}"

    def __str__(self):
        return ascii_board(8, 8, self.checkers(), " ".join(self._status()))

    def board_picture(self):
        """Return what the board pictures (SVG, RGB) show: a dict of width, height, pieces
        {square: (fill, outline, letter)}, last_move (the tail's square and its landing),
        changed (the other squares it changed), rings (none) and barred (the ko's (tail,
        landing) squares, or None)."""
        pieces = {sq: (WHITE_PIECE if c == "W" else BLACK_PIECE) + ("",) for sq, c in self.checkers().items()}
        last_move, changed = (), []
        if self._last_action is not None:
            before = type(self)(self.game, self._before)
            last_move = tuple(parse_move(before.action_to_string(self._last_action), ActionError))
            # Besides the tail and its landing square: knocked and removed enemy checkers.
            changed = [sq for sq in changed_squares(before.checkers(), self.checkers()) if sq not in last_move]
        return {"width": 8, "height": 8, "pieces": pieces, "last_move": last_move, "changed": changed,
                "rings": (), "barred": None if self.is_terminal() else self.ko}

    def _repr_svg_(self):
        p = self.board_picture()
        caption = []
        if self._last_action is not None:
            move = self.previous_state().action_to_string(self._last_action)
            caption.append(last_move_caption(move, p["changed"], "knocked or removed"))
        caption.append(self._status(ko=False))
        if p["barred"]:
            caption.append(["Ko (red dashes):", "no knock back along", self._ko_move()])
        return svg_board(8, 8, p["pieces"], caption, p["last_move"], p["changed"], barred=p["barred"])


class TolkuchkaGame(Game):
    """Tolkuchka: the standard setup, `quiet_plies` (default 50) and `max_plies` (default 400)."""

    name = "tolkuchka"
    game_id = 1
    kernels = K
    observation_shape = K.OBSERVATION_SHAPE
    state_class = TolkuchkaState
    variants = {"standard": "8/2BBB3/1W1B4/W1W1B1B1/1W1W1B1B/4W1B1/3WWW2/8 w - 0 0"}
    param_ranges = {"quiet_plies": (K.DEFAULT_QUIET_PLIES, 1, 100000),
                    "max_plies": (K.DEFAULT_MAX_PLIES, 1, 1000000)}
    terminations = {K.NO_CHECKERS: Termination.NO_CHECKERS, K.NO_MOVE: Termination.NO_MOVE,
                    K.QUIET_LIMIT: Termination.QUIET_PLIES, K.PLY_LIMIT: Termination.MAX_PLIES}

    def _check_array(self, a):
        """Raise PositionError unless `a` is a Tolkuchka state as play leaves one (see Game.from_array).

        Every word in range, the draw limits the game's own; no single checker on the board;
        the side that moved last has checkers (the side to move may have none: it has lost);
        a ko names a knock of the last move: its tail square empty, its landing square the
        knocker's, no quiet ply since."""
        problems = []
        white, black = int(a[K.WHITE]), int(a[K.BLACK])
        if white & black:
            problems.append("checker boards overlap")
        if int(a[K.SIDE]) > 1:
            problems.append("side")
        ko = int(a[K.KO])
        if ko != K.NO_KO and not (ko <= 4096 and _on_one_line((ko - 1) >> 6, (ko - 1) & 63)):
            problems.append("ko word")
        for slot, name in ((K.QUIET, "quiet plies"), (K.PLIES, "plies")):
            if int(a[slot]) > _COUNTER_LIMIT:
                problems.append(name)
        for slot, name in ((K.QUIET_PLIES, "quiet_plies"), (K.MAX_PLIES, "max_plies")):
            if int(a[slot]) != self.params[name]:
                problems.append(f"{name} {int(a[slot])} (the game's is {self.params[name]})")
        if problems:
            raise PositionError(f"malformed Tolkuchka state array: {', '.join(problems)}")
        for colour, who in ((white, "White"), (black, "Black")):
            lone = _squares(K.singles(np.uint64(colour)))
            if lone:
                raise PositionError(f"{who}'s checker on {square_name(lone[0])} is single "
                                    "(no own checker next to it): singles never stay on the board")
        last, who = (white, "White") if int(a[K.SIDE]) else (black, "Black")
        if not last:
            raise PositionError(f"{who} has no checkers, yet made the last move")
        if ko != K.NO_KO:
            tail, landing = (ko - 1) >> 6, (ko - 1) & 63
            move = f"{square_name(tail)}-{square_name(landing)}"
            if (white | black) >> tail & 1 or not last >> landing & 1:
                raise PositionError(f"the ko move {move} is no knock of the last move: its tail square "
                                    f"must be empty and its landing square hold {who}'s checker")
            if int(a[K.QUIET]):
                raise PositionError(f"quiet plies must be 0 after the ko move {move} (a knock), got {int(a[K.QUIET])}")

    def _parse_position(self, text):
        fields = text.split()
        if len(fields) != 5:
            raise PositionError("a Tolkuchka position has 5 fields (board side ko quiet plies), "
                                f"got {len(fields)}: {text!r}")
        board, side, ko, quiet, plies = fields
        _, _, chars = parse_board_field(board, "WB", heights=range(8, 9), widths=range(8, 9))
        white = sum(1 << sq for sq, c in chars.items() if c == "W")
        black = sum(1 << sq for sq, c in chars.items() if c == "B")
        if side not in ("w", "b"):
            raise PositionError(f"side to move must be 'w' or 'b', got {side!r}")
        quiet = parse_count(quiet, "quiet plies", _COUNTER_LIMIT)
        plies = parse_count(plies, "plies", _COUNTER_LIMIT)
        if not white or not black:
            raise PositionError(f"{'White' if not white else 'Black'} has no checkers")
        s = K.new_state(self.params["quiet_plies"], self.params["max_plies"])
        s[K.WHITE] = np.uint64(white)
        s[K.BLACK] = np.uint64(black)
        s[K.SIDE] = 1 if side == "b" else 0
        s[K.QUIET] = quiet
        s[K.PLIES] = plies
        if ko != "-":
            s[K.KO] = K.ko_word(*parse_move(ko, PositionError))
        return s
