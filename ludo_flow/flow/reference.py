"""Flow reference engine: a slow, plain-Python transcription of the Flow rules in RULES.md.

It exists to be obviously correct, not fast: tests run it in lockstep with the numba kernels
and benchmarks use it as the baseline. It shares no code with the kernels on purpose.

Squares are rank_index * 8 + file_index on every board size (a1 = 0, h8 = 63).
Actions: a step from square f to square t is `f * 64 + t`; choosing square s to wash is
`WASH_BASE + s`.
"""

WASH_BASE = 4096
WHITE, BLACK = 0, 1
# A cascade may hold at most this many washes in one step; the next one counts as a loop.
MAX_WASHES_PER_STEP = 32

PIECE_LETTERS = "PRNprn"
PRESETS = {
    "standard": (8, 8, {
        "a1": "R", "c1": "N", "e1": "N", "g1": "R",
        "b2": "P", "d2": "P", "f2": "P", "h2": "P",
        "a3": "P", "c3": "P", "e3": "P", "g3": "P",
        "h8": "r", "f8": "n", "d8": "n", "b8": "r",
        "a7": "p", "c7": "p", "e7": "p", "g7": "p",
        "b6": "p", "d6": "p", "f6": "p", "h6": "p",
    }),
    "stones": (6, 6, {
        **{sq: "P" for sq in ("a1", "c1", "d1", "f1", "a2", "c2", "d2", "f2")},
        **{sq: "p" for sq in ("a5", "c5", "d5", "f5", "a6", "c6", "d6", "f6")},
    }),
    "fountain": (5, 5, {
        **{sq: "P" for sq in ("a1", "c1", "e1", "a2", "c2", "e2")},
        **{sq: "p" for sq in ("a4", "c4", "e4", "a5", "c5", "e5")},
    }),
}


def square_index(name):
    """Return the square index of a square name such as 'b4'."""
    return (int(name[1:]) - 1) * 8 + (ord(name[0]) - ord("a"))


def square_name(square):
    """Return the name ('a1'..'h8') of a square index."""
    return "abcdefgh"[square % 8] + str(square // 8 + 1)


def action_to_string(action):
    """Return the page's notation of an action: 'b2-b4' for a step, '~d4' for a wash choice."""
    if action >= WASH_BASE:
        return "~" + square_name(action - WASH_BASE)
    return square_name(action // 64) + "-" + square_name(action % 64)


def colour_of(letter):
    """Return WHITE for an upper-case piece letter, BLACK for a lower-case one."""
    return WHITE if letter.isupper() else BLACK


def is_dame(letter):
    """Return True for a rook or knight (they move alike), False for a pawn."""
    return letter.upper() in "RN"


def arrangement(pieces):
    """Return the loop rule's arrangement: colour and pawn-or-dame of every occupied square."""
    return frozenset((square, colour_of(letter), is_dame(letter))
                     for square, letter in pieces.items())


def wall_candidates(pieces, width, height):
    """Return the sorted candidate squares of every wall on the board."""
    candidates = []
    for rank in range(height):
        file_index = 0
        while file_index < width:
            if rank * 8 + file_index not in pieces:
                file_index += 1
                continue
            run_start = file_index
            while file_index < width and rank * 8 + file_index in pieces:
                file_index += 1
            run_end = file_index - 1
            run_length = run_end - run_start + 1
            touches_left, touches_right = run_start == 0, run_end == width - 1
            if run_length >= 3 or (run_length >= 2 and (touches_left or touches_right)):
                # squares with an occupied neighbour on both sides in the rank
                inner = range(run_start + 1, run_end)
                candidates.extend(rank * 8 + f for f in inner)
                if touches_left:
                    candidates.append(rank * 8 + run_start)
                if touches_right:
                    candidates.append(rank * 8 + run_end)
    return sorted(candidates)


def wash(pieces, square, height, tracked):
    """Return (pieces after washing the piece on `square`, new square of `tracked` or None)."""
    letter = pieces[square]
    rank_step = -1 if colour_of(letter) == WHITE else 1
    pieces = dict(pieces)
    file_index, rank = square % 8, square // 8

    def on_board(r):
        return 0 <= r < height

    next_rank = rank + rank_step
    if not on_board(next_rank):
        del pieces[square]
        return pieces, (None if tracked == square else tracked)
    if next_rank * 8 + file_index not in pieces:
        stop_rank = rank
        while (on_board(stop_rank + rank_step)
               and (stop_rank + rank_step) * 8 + file_index not in pieces):
            stop_rank += rank_step
        del pieces[square]
        falls_off = not on_board(stop_rank + rank_step)
        if falls_off:
            return pieces, (None if tracked == square else tracked)
        destination = stop_rank * 8 + file_index
        pieces[destination] = letter
        return pieces, (destination if tracked == square else tracked)
    column = [rank]
    while on_board(column[-1] + rank_step) and (column[-1] + rank_step) * 8 + file_index in pieces:
        column.append(column[-1] + rank_step)
    moved = {r * 8 + file_index: pieces.pop(r * 8 + file_index) for r in column}
    new_tracked = tracked
    for r in column:
        source, target_rank = r * 8 + file_index, r + rank_step
        target = target_rank * 8 + file_index if on_board(target_rank) else None
        if target is not None:
            pieces[target] = moved[source]
        if tracked == source:
            new_tracked = target
    return pieces, new_tracked


def can_rest(pieces, width, height, seen):
    """Return True if some sequence of wash choices brings the current to rest without a loop."""
    candidates = wall_candidates(pieces, width, height)
    if not candidates:
        return True
    if len(seen) - 1 >= MAX_WASHES_PER_STEP:
        return False
    for square in candidates:
        washed, _ = wash(pieces, square, height, None)
        washed_arrangement = arrangement(washed)
        if washed_arrangement in seen:
            continue
        if can_rest(washed, width, height, seen + (washed_arrangement,)):
            return True
    return False


def wash_is_legal(pieces, width, height, seen, square):
    """Return True if washing `square` makes a new arrangement from which the current can rest."""
    if len(seen) - 1 >= MAX_WASHES_PER_STEP:
        return False
    washed, _ = wash(pieces, square, height, None)
    washed_arrangement = arrangement(washed)
    return (washed_arrangement not in seen
            and can_rest(washed, width, height, seen + (washed_arrangement,)))


class FlowRef:
    """One Flow position, including the choose phase; `apply` returns a new FlowRef."""

    __slots__ = ("width", "height", "pieces", "side", "step", "first", "turns", "max_turns",
                 "choosing", "seen", "winner", "ending", "_legal")

    def __init__(self, width, height, pieces, side, step, first, turns, max_turns, seen=(),
                 ending=None):
        """A position; `seen` (the choose phase only, never empty there) holds the arrangements
        since the current step began, in order of creation; `ending` ends the game: "far_edge"
        (the side to move, whose step ended it, wins) or "opponent_far_edge" (the other wins)."""
        self.width, self.height = width, height
        self.pieces = dict(pieces)
        self.side, self.step, self.first = side, step, first
        self.turns, self.max_turns = turns, max_turns
        self.seen = tuple(seen)
        self.choosing = bool(self.seen)
        self.ending = ending
        self.winner = None
        if ending is not None:
            colour = side if ending == "far_edge" else 1 - side
            self.winner = "white" if colour == WHITE else "black"
        self._legal = None

    @classmethod
    def from_pieces(cls, width, height, pieces, side=0, step=1, first=None, turns=0, max_turns=200):
        """Return a validated position from a dict square -> letter ('P','R','N','p','r','n')."""
        if not (4 <= width <= 8 and 4 <= height <= 8):
            raise ValueError(f"board {width}x{height} is outside 4..8 x 4..8")
        if side not in (WHITE, BLACK) or step not in (1, 2):
            raise ValueError(f"side must be 0 or 1 and step 1 or 2, got side={side} step={step}")
        if turns < 0 or max_turns < 0:
            raise ValueError("turns and max_turns must not be negative")
        board = {}
        for square, letter in pieces.items():
            if isinstance(square, str):
                square = square_index(square)
            if not (0 <= square < 64 and square % 8 < width and square // 8 < height):
                raise ValueError(f"square {square} is off the {width}x{height} board")
            if letter not in PIECE_LETTERS or len(letter) != 1:
                raise ValueError(f"unknown piece letter {letter!r}")
            board[square] = letter
        if wall_candidates(board, width, height):
            raise ValueError("the position has a wall")
        for square, letter in board.items():
            far_rank = height - 1 if colour_of(letter) == WHITE else 0
            if square // 8 == far_rank:
                raise ValueError(
                    f"{letter} on {square_name(square)} stands on its owner's far edge")
        if isinstance(first, str):
            first = square_index(first)
        if step == 1 and first is not None:
            raise ValueError("a first-moved piece is named at step 1")
        if first is not None and (first not in board or colour_of(board[first]) != side):
            raise ValueError(f"square {first} does not hold a piece of the side to move")
        state = cls(width, height, board, side, step, first, turns, max_turns)
        if step == 2 and not state._legal_steps():
            raise ValueError("at step 2 the side to move has no legal step")
        return state

    @classmethod
    def preset(cls, name, max_turns=200):
        """Return the start position of a named preset: 'standard', 'stones' or 'fountain'."""
        width, height, pieces = PRESETS[name]
        return cls.from_pieces(width, height, pieces, max_turns=max_turns)

    def current_player(self):
        """Return the side to move (0 White, 1 Black); in the choose phase, the chooser."""
        return self.side

    def _steps_of_piece(self, square):
        """Return the target squares one piece can step to (ignoring the loop rule)."""
        letter = self.pieces[square]
        if is_dame(letter):
            directions, reach = ((1, 0), (-1, 0), (0, 1), (0, -1)), max(self.width, self.height)
        else:
            forward = 1 if colour_of(letter) == WHITE else -1
            directions, reach = ((0, forward), (1, 0), (-1, 0)), 2
        targets = []
        for file_step, rank_step in directions:
            file_index, rank = square % 8, square // 8
            for _ in range(reach):
                file_index, rank = file_index + file_step, rank + rank_step
                if not (0 <= file_index < self.width and 0 <= rank < self.height):
                    break
                if rank * 8 + file_index in self.pieces:
                    break
                targets.append(rank * 8 + file_index)
        return targets

    def _legal_steps(self):
        """Return the sorted step actions of the side to move that pass the loop rule."""
        actions = []
        for square, letter in self.pieces.items():
            if colour_of(letter) != self.side or (self.step == 2 and square == self.first):
                continue
            for target in self._steps_of_piece(square):
                moved = dict(self.pieces)
                moved[target] = moved.pop(square)
                if can_rest(moved, self.width, self.height, (arrangement(moved),)):
                    actions.append(square * 64 + target)
        return sorted(actions)

    def _legal_washes(self):
        """Return the sorted WASH actions allowed by the loop rule in the choose phase."""
        return [WASH_BASE + square
                for square in wall_candidates(self.pieces, self.width, self.height)
                if wash_is_legal(self.pieces, self.width, self.height, self.seen, square)]

    def legal_actions(self):
        """Return the sorted list of legal action ints (empty once the game is over)."""
        if self._legal is None:
            if self.winner is not None:
                self._legal = []
            elif self.choosing:
                self._legal = self._legal_washes()
            elif self.step == 1 and self.turns >= self.max_turns:
                self._legal = []
            else:
                self._legal = self._legal_steps()
        return list(self._legal)

    def termination(self):
        """Return why the game ended ('far_edge', 'opponent_far_edge', 'no_first_step',
        'turn_limit'), or None while it goes on."""
        if self.winner is not None:
            return self.ending
        if self.choosing:
            return None
        if self.step == 1 and self.turns >= self.max_turns:
            return "turn_limit"
        if not self.legal_actions():
            # only at step 1: a step-2 state without a step is never created
            return "no_first_step"
        return None

    def result(self):
        """Return 'ongoing', 'white', 'black' or 'draw'."""
        ending = self.termination()
        if ending is None:
            return "ongoing"
        if ending == "turn_limit":
            return "draw"
        if ending == "no_first_step":
            return "black" if self.side == WHITE else "white"
        return self.winner

    def is_terminal(self):
        """Return True if the game is over."""
        return self.result() != "ongoing"

    def returns(self):
        """Return +1.0 if White won, -1.0 if Black won, else 0.0."""
        return {"white": 1.0, "black": -1.0}.get(self.result(), 0.0)

    def apply(self, action):
        """Return the position after `action`; raise ValueError if it is not legal here."""
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action} in {self!r}")
        if self.choosing:
            square = action - WASH_BASE
            pieces, tracked = wash(self.pieces, square, self.height, self.first)
            return self._settle(pieces, self.seen + (arrangement(pieces),), tracked)
        source, target = divmod(action, 64)
        pieces = dict(self.pieces)
        pieces[target] = pieces.pop(source)
        tracked = target if self.step == 1 else self.first
        return self._settle(pieces, (arrangement(pieces),), tracked)

    def _settle(self, pieces, seen, tracked):
        """Return the position once forced washes are done: a choose phase or the step's end."""
        while True:
            candidates = wall_candidates(pieces, self.width, self.height)
            if len(candidates) >= 2:
                return FlowRef(self.width, self.height, pieces, self.side, self.step, tracked,
                               self.turns, self.max_turns, seen=seen)
            if not candidates:
                return self._end_step(pieces, tracked)
            pieces, tracked = wash(pieces, candidates[0], self.height, tracked)
            seen = seen + (arrangement(pieces),)

    def _end_step(self, pieces, tracked):
        """Return the position after a step whose current is at rest: win, step 2 or next turn."""
        mover, opponent = self.side, 1 - self.side

        def on_far_edge(colour):
            far_rank = self.height - 1 if colour == WHITE else 0
            return any(colour_of(letter) == colour and square // 8 == far_rank
                       for square, letter in pieces.items())

        for colour in (mover, opponent):
            if on_far_edge(colour):
                return FlowRef(self.width, self.height, pieces, self.side, self.step, tracked,
                               self.turns, self.max_turns,
                               ending="far_edge" if colour == mover else "opponent_far_edge")
        next_turn = FlowRef(self.width, self.height, pieces, opponent, 1, None,
                            self.turns + 1, self.max_turns)
        if self.step == 2:
            return next_turn
        second_step = FlowRef(self.width, self.height, pieces, self.side, 2, tracked,
                              self.turns, self.max_turns)
        return second_step if second_step._legal_steps() else next_turn

    def perft(self, depth):
        """Return the number of leaves of the decision tree `depth` plies deep."""
        if depth == 0:
            return 1
        actions = self.legal_actions()
        if depth == 1:
            return len(actions)
        return sum(self.apply(action).perft(depth - 1) for action in actions)

    def divide(self, depth):
        """Return {action notation: perft(depth - 1) of the child} for every legal action."""
        return {action_to_string(action): self.apply(action).perft(depth - 1)
                for action in self.legal_actions()}

    def board_string(self):
        """Return the board as text, rank H first, '.' for an empty square."""
        rows = []
        for rank in reversed(range(self.height)):
            rows.append("".join(self.pieces.get(rank * 8 + f, ".") for f in range(self.width)))
        return "\n".join(rows)

    def __repr__(self):
        """Return a one-line description of the position."""
        rows = "/".join(reversed([
            "".join(self.pieces.get(rank * 8 + f, ".") for f in range(self.width))
            for rank in range(self.height)]))
        phase = " choosing" if self.choosing else ""
        first = square_name(self.first) if self.first is not None else "-"
        return (f"FlowRef({rows} {'wb'[self.side]} {self.step} {first} {self.turns}"
                f"/{self.max_turns}{phase} {self.result()})")
