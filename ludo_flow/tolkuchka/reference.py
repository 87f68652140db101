"""Tolkuchka reference engine: a slow, plain-Python transcription of the Tolkuchka rules in RULES.md.

This module exists to be obviously correct, not fast: tests run it in lockstep with the numba
kernels and the benchmarks use it as a baseline. It shares no code with the kernels.

Conventions (the same action integers as every other Tolkuchka engine in the project):
- square = rank_index * 8 + file_index (a1 = 0, h1 = 7, a2 = 8, h8 = 63);
- DIRECTIONS[i] = (file delta, rank delta): 0 N, 1 NE, 2 E, 3 SE, 4 S, 5 SW, 6 W, 7 NW;
- action = tail_square * 8 + direction_index: the maximal row whose back end (tail) stands on
  tail_square, moving in that direction.

Ko representation: ``ko`` is ``None`` or the ``(tail, landing)`` square pair of the previous
ply's move if that move knocked a checker (``landing`` is the square F the tail was put on),
exactly the ko field of the page's position string. The knock's line L and direction D are
derived from the pair: D is the direction from ``tail`` to ``landing`` and L is the straight
line of squares through ``tail`` in that direction.

Quiet plies: a ply is quiet when its move knocked no checker (F was empty), whether or not
enemy singles were removed. Under the page's invariant (no singles are ever on the board) a
move that knocks nothing cannot make an enemy single anyway, because it moves no enemy
checker; so the choice only matters in words.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

from ludo_flow.errors import ActionError, ParameterError, PositionError

WHITE = 0
BLACK = 1

DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
DIRECTION_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")

STANDARD_WHITE = ("d2", "e2", "f2", "e3", "d4", "c5", "b6", "b4", "a5")
STANDARD_BLACK = ("c7", "d7", "e7", "d6", "e5", "f4", "g3", "g5", "h4")


def square_name(square: int) -> str:
    """Return the algebraic name of a square index, e.g. 0 -> 'a1'."""
    return "abcdefgh"[square % 8] + str(square // 8 + 1)


def parse_square(name: str) -> int:
    """Return the square index of an algebraic name such as 'b4' (case-insensitive)."""
    text = name.strip().lower()
    if len(text) != 2 or text[0] not in "abcdefgh" or text[1] not in "12345678":
        raise PositionError(f"not a square name: {name!r}")
    return (int(text[1]) - 1) * 8 + "abcdefgh".index(text[0])


def step(square: int, direction: int) -> int | None:
    """Return the square one step from `square` in `direction`, or None if that is off the board."""
    file_delta, rank_delta = DIRECTIONS[direction]
    file_index = square % 8 + file_delta
    rank_index = square // 8 + rank_delta
    if 0 <= file_index < 8 and 0 <= rank_index < 8:
        return rank_index * 8 + file_index
    return None


NEIGHBOURS = tuple(
    tuple(n for n in (step(square, d) for d in range(8)) if n is not None) for square in range(64)
)


def neighbours(square: int) -> tuple[int, ...]:
    """Return the on-board squares among the 8 king-step neighbours of `square`."""
    return NEIGHBOURS[square]


def opposite(direction: int) -> int:
    """Return the index of the direction pointing the other way."""
    return (direction + 4) % 8


def line_key(square: int, direction: int) -> tuple[int, int]:
    """Return an id of the straight line through `square` along `direction` (same for both senses)."""
    file_index, rank_index = square % 8, square // 8
    axis = direction % 4  # 0 vertical, 1 a1-h8 diagonal, 2 horizontal, 3 a8-h1 diagonal
    if axis == 0:
        return (0, file_index)
    if axis == 1:
        return (1, file_index - rank_index)
    if axis == 2:
        return (2, rank_index)
    return (3, file_index + rank_index)


def direction_between(from_square: int, to_square: int) -> int | None:
    """Return the direction index in which `to_square` lies on a line from `from_square`, else None."""
    file_delta = to_square % 8 - from_square % 8
    rank_delta = to_square // 8 - from_square // 8
    if (file_delta, rank_delta) == (0, 0):
        return None
    if file_delta != 0 and rank_delta != 0 and abs(file_delta) != abs(rank_delta):
        return None
    unit = ((file_delta > 0) - (file_delta < 0), (rank_delta > 0) - (rank_delta < 0))
    return DIRECTIONS.index(unit)


def singles(checkers: frozenset[int]) -> set[int]:
    """Return the checkers of one colour that have no checker of that colour on a neighbouring square."""
    return {s for s in checkers if not any(n in checkers for n in neighbours(s))}


@dataclass(frozen=True)
class MoveOutcome:
    """The board after one move, before the legality checks of rules 5 and 6 on own singles and ko."""

    own: frozenset[int]
    enemy: frozenset[int]
    landing: int
    knocked: bool


@dataclass(frozen=True)
class TolkRef:
    """An immutable Tolkuchka position; `apply` returns a new one."""

    white: frozenset[int]
    black: frozenset[int]
    side: int = WHITE
    ko: tuple[int, int] | None = None
    quiet: int = 0
    plies: int = 0
    quiet_plies: int = 50
    max_plies: int = 400

    # --- construction -------------------------------------------------------------------

    @classmethod
    def standard(cls, quiet_plies: int = 50, max_plies: int = 400) -> TolkRef:
        """Return the page's standard setup with White to move."""
        return cls.from_position(
            {parse_square(s) for s in STANDARD_WHITE},
            {parse_square(s) for s in STANDARD_BLACK},
            quiet_plies=quiet_plies,
            max_plies=max_plies,
        )

    @classmethod
    def from_position(
        cls,
        white,
        black,
        side: int = WHITE,
        ko: tuple[int, int] | None = None,
        quiet: int = 0,
        plies: int = 0,
        quiet_plies: int = 50,
        max_plies: int = 400,
    ) -> TolkRef:
        """Return a validated position from square sets (ints or names like 'b4').

        A side may be empty (that is how a finished game looks), but no checker may be single,
        and `ko` must be None or a (tail, landing) pair on one line.
        """
        white_set = frozenset(parse_square(s) if isinstance(s, str) else int(s) for s in white)
        black_set = frozenset(parse_square(s) if isinstance(s, str) else int(s) for s in black)
        for square in white_set | black_set:
            if not 0 <= square < 64:
                raise PositionError(f"square {square} is off the board")
        if white_set & black_set:
            names = sorted(square_name(s) for s in white_set & black_set)
            raise PositionError(f"squares hold both colours: {names}")
        for colour_name, checkers in (("white", white_set), ("black", black_set)):
            lonely = singles(checkers)
            if lonely:
                names = sorted(square_name(s) for s in lonely)
                raise PositionError(f"{colour_name} has single checkers: {names}")
        if side not in (WHITE, BLACK):
            raise ParameterError(f"side must be 0 (White) or 1 (Black), not {side!r}")
        if ko is not None:
            ko_tail, ko_landing = ko
            if isinstance(ko_tail, str):
                ko_tail = parse_square(ko_tail)
            if isinstance(ko_landing, str):
                ko_landing = parse_square(ko_landing)
            if not (0 <= ko_tail < 64 and 0 <= ko_landing < 64):
                raise PositionError(f"ko squares off the board: {ko!r}")
            if direction_between(ko_tail, ko_landing) is None:
                raise PositionError(f"ko {ko!r} is not a move along a line")
            ko = (int(ko_tail), int(ko_landing))
        if quiet < 0 or plies < 0:
            raise ParameterError("quiet and plies must be non-negative")
        if quiet_plies < 1 or max_plies < 1:
            raise ParameterError("quiet_plies and max_plies must be positive")
        return cls(white_set, black_set, side, ko, quiet, plies, quiet_plies, max_plies)

    @classmethod
    def from_string(cls, text: str, quiet_plies: int = 50, max_plies: int = 400) -> TolkRef:
        """Return the position described by a page-format position string."""
        fields = text.split()
        if len(fields) != 5:
            raise PositionError(f"a position string has 5 fields, got {len(fields)}: {text!r}")
        board, side_field, ko_field, quiet_field, plies_field = fields
        ranks = board.split("/")
        if len(ranks) != 8:
            raise PositionError(f"the board field needs 8 ranks, got {len(ranks)}")
        white, black = set(), set()
        for row_from_top, rank_text in enumerate(ranks):
            rank_index = 7 - row_from_top
            file_index = 0
            for char in rank_text:
                if char.isdigit():
                    file_index += int(char)
                elif char in "WB" and file_index < 8:
                    (white if char == "W" else black).add(rank_index * 8 + file_index)
                    file_index += 1
                else:
                    raise PositionError(f"bad character {char!r} in rank {rank_index + 1}")
            if file_index != 8:
                raise PositionError(f"rank {rank_index + 1} does not describe 8 squares")
        if not white or not black:
            raise PositionError("each side must have at least one checker")
        if side_field not in ("w", "b"):
            raise PositionError(f"side to move must be 'w' or 'b', not {side_field!r}")
        ko = None
        if ko_field != "-":
            parts = ko_field.split("-")
            if len(parts) != 2:
                raise PositionError(f"ko must be 'tail-landing' or '-', not {ko_field!r}")
            ko = (parse_square(parts[0]), parse_square(parts[1]))
        try:
            quiet, plies = int(quiet_field), int(plies_field)
        except ValueError:
            raise PositionError(f"counters must be integers: {quiet_field!r} {plies_field!r}") from None
        return cls.from_position(
            white, black, WHITE if side_field == "w" else BLACK, ko, quiet, plies, quiet_plies, max_plies
        )

    def to_string(self) -> str:
        """Return the page-format position string of this position."""
        rank_texts = []
        for rank_index in range(7, -1, -1):
            text, empty_run = "", 0
            for file_index in range(8):
                square = rank_index * 8 + file_index
                mark = "W" if square in self.white else "B" if square in self.black else ""
                if mark:
                    text += (str(empty_run) if empty_run else "") + mark
                    empty_run = 0
                else:
                    empty_run += 1
            rank_texts.append(text + (str(empty_run) if empty_run else ""))
        ko_text = "-" if self.ko is None else f"{square_name(self.ko[0])}-{square_name(self.ko[1])}"
        side_text = "w" if self.side == WHITE else "b"
        return f"{'/'.join(rank_texts)} {side_text} {ko_text} {self.quiet} {self.plies}"

    # --- the rules ----------------------------------------------------------------------

    def current_player(self) -> int:
        """Return the side to move: 0 White, 1 Black."""
        return self.side

    def _own_and_enemy(self) -> tuple[frozenset[int], frozenset[int]]:
        if self.side == WHITE:
            return self.white, self.black
        return self.black, self.white

    def _row_from_tail(self, tail: int, direction: int) -> list[int] | None:
        """Return the squares of the maximal row with this tail and direction, or None if there is none."""
        own, _ = self._own_and_enemy()
        if tail not in own:
            return None
        behind = step(tail, opposite(direction))
        if behind is not None and behind in own:
            return None  # tail is not the back end of a maximal row
        row = [tail]
        square = step(tail, direction)
        while square is not None and square in own:
            row.append(square)
            square = step(square, direction)
        return row if len(row) >= 2 else None

    def _outcome(self, action: int) -> MoveOutcome | None:
        """Return the board after `action` per rules 1-4, or None if rules 1 or 3 forbid it."""
        if not 0 <= action < 64 * 8:
            return None
        tail, direction = divmod(action, 8)
        row = self._row_from_tail(tail, direction)
        if row is None:
            return None
        own, enemy = self._own_and_enemy()
        front = step(row[-1], direction)
        if front is None:
            return None  # rule 1: F off the board
        new_enemy = set(enemy)
        knocked = front in enemy
        if knocked:
            beyond = step(front, direction)
            while beyond is not None and beyond in enemy:
                beyond = step(beyond, direction)
            if beyond is not None and beyond in own:
                return None  # rule 3: the knocked checker would land on the mover's checker
            new_enemy.discard(front)
            if beyond is not None:
                new_enemy.add(beyond)
        new_own = (own - {tail}) | {front}
        new_enemy -= singles(frozenset(new_enemy))  # rule 4
        return MoveOutcome(frozenset(new_own), frozenset(new_enemy), front, knocked)

    def _is_ko_barred(self, tail: int, direction: int) -> bool:
        """Return True if a knocking move with this tail and direction undoes the previous ply's knock."""
        if self.ko is None:
            return False
        ko_tail, ko_landing = self.ko
        ko_direction = direction_between(ko_tail, ko_landing)
        return direction == opposite(ko_direction) and line_key(tail, direction) == line_key(
            ko_tail, ko_direction
        )

    def _legal_outcome(self, action: int) -> MoveOutcome | None:
        """Return the outcome of `action` if it is legal by every rule (ignoring game end), else None."""
        outcome = self._outcome(action)
        if outcome is None:
            return None
        if singles(outcome.own):
            return None  # rule 5
        if outcome.knocked and self._is_ko_barred(action // 8, action % 8):
            return None  # rule 6
        return outcome

    def _moves(self) -> list[int]:
        """Return every legal action by the move rules, whether or not the game has ended."""
        own, _ = self._own_and_enemy()
        return [
            tail * 8 + direction
            for tail in sorted(own)
            for direction in range(8)
            if self._legal_outcome(tail * 8 + direction) is not None
        ]

    def termination(self) -> str | None:
        """Return why the game ended, checked in the page's order ('no_checkers', then the draws
        'quiet_plies' and 'max_plies', then 'no_move'), or None while it goes on."""
        own, _ = self._own_and_enemy()
        if not own:
            return "no_checkers"
        if self.quiet >= self.quiet_plies:
            return "quiet_plies"
        if self.plies >= self.max_plies:
            return "max_plies"
        if not self._moves():
            return "no_move"
        return None

    def result(self) -> str:
        """Return 'ongoing', 'white', 'black' or 'draw', checking the end in the page's order."""
        ending = self.termination()
        if ending is None:
            return "ongoing"
        if ending in ("quiet_plies", "max_plies"):
            return "draw"
        return "black" if self.side == WHITE else "white"

    def is_terminal(self) -> bool:
        """Return True if the game is over."""
        return self.result() != "ongoing"

    def returns(self) -> float:
        """Return +1.0 if White won, -1.0 if Black won, else 0.0."""
        return {"white": 1.0, "black": -1.0}.get(self.result(), 0.0)

    def _stopped_before_moving(self) -> bool:
        """Return True if the game ended by a rule checked before move generation (no checkers, draws)."""
        own, _ = self._own_and_enemy()
        return not own or self.quiet >= self.quiet_plies or self.plies >= self.max_plies

    def legal_actions(self) -> list[int]:
        """Return the sorted legal actions; empty when the game is over."""
        if self._stopped_before_moving():
            return []
        return self._moves()

    def apply(self, action: int) -> TolkRef:
        """Return the position after the legal `action`; raise ActionError if it is illegal."""
        if isinstance(action, bool):
            raise ActionError(f"an action is an int, not {action!r}")
        try:
            action = operator.index(action)  # numpy integers from the kernels are fine
        except TypeError:
            raise ActionError(f"an action is an int, not {action!r}") from None
        outcome = None if self._stopped_before_moving() else self._legal_outcome(action)
        if outcome is None:
            raise ActionError(f"illegal action {action!r} in {self.to_string()}")
        white, black = (outcome.own, outcome.enemy) if self.side == WHITE else (outcome.enemy, outcome.own)
        return TolkRef(
            white=white,
            black=black,
            side=1 - self.side,
            ko=(action // 8, outcome.landing) if outcome.knocked else None,
            quiet=0 if outcome.knocked else self.quiet + 1,
            plies=self.plies + 1,
            quiet_plies=self.quiet_plies,
            max_plies=self.max_plies,
        )

    def landing(self, action: int) -> int:
        """Return the square F the tail lands on (in front of the head); raise ActionError if no row moves."""
        action = operator.index(action)
        if not 0 <= action < 64 * 8:
            raise ActionError(f"action {action!r} out of range")
        tail, direction = divmod(action, 8)
        row = self._row_from_tail(tail, direction)
        front = None if row is None else step(row[-1], direction)
        if front is None:
            raise ActionError(f"no row of the side to move moves as action {action}")
        return front

    def action_to_string(self, action: int) -> str:
        """Return the page notation 'tail-landing' of `action`, e.g. 'b4-d6'."""
        return f"{square_name(action // 8)}-{square_name(self.landing(action))}"

    def parse_action(self, text: str) -> int:
        """Return the action whose notation is `text` (e.g. 'b4-d6') among the legal actions."""
        for action in self.legal_actions():
            if self.action_to_string(action) == text.strip().lower():
                return action
        raise ActionError(f"no legal move {text!r} in {self.to_string()}")

    def perft(self, depth: int) -> int:
        """Return the number of move sequences of length `depth` (a finished game has no moves)."""
        if depth == 0:
            return 1
        actions = self.legal_actions()
        if depth == 1:
            return len(actions)
        return sum(self.apply(action).perft(depth - 1) for action in actions)

    def __str__(self) -> str:
        lines = []
        for rank_index in range(7, -1, -1):
            cells = []
            for file_index in range(8):
                square = rank_index * 8 + file_index
                cells.append("W" if square in self.white else "b" if square in self.black else ".")
            lines.append(f"{rank_index + 1}  " + " ".join(cells))
        lines.append("   a b c d e f g h")
        return "\n".join(lines)
