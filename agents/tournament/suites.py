"""Opening suites shipped in the package, and when two opening positions are the same.

A suite is an openings file (one position string a line, `#` comments) in `agents/suites/`,
named `GAME-VARIANT` (`flow-standard`, `tolkuchka-standard`, ...). A tournament names one with
`openings="suite"` (the suite of its game and variant) or `"suite:NAME"`; `agents.openings`
builds them (`ludo-flow openings`). See docs/openings.md.

Two positions are *the same* when they differ only in the move counters (Flow's completed
turns; Tolkuchka's quiet-ply and ply counts) and, in Flow, rook against knight (the rules treat
both as one kind, a dame): `position_key`. They are *equivalent* when one is the other under
a symmetry of the rules (RULES.md), so that every game from one is a game from the other:
`canonical_key` is the same for both.

- Flow: the mirror of the files (a left-right reflection: steps, walls and their edge
  candidates are symmetric), and the colour swap (ranks turned over, White and Black exchanged,
  the other side to move: each side washes towards its own home edge).
- Tolkuchka: the eight symmetries of the square (rotations and reflections: rows run along
  ranks, files and both diagonals alike) and the colour swap (the rules treat both colours
  alike), each moving the ko move with the board.
"""
import re
from pathlib import Path

from ludo_flow.render import board_field

SUITES_DIR = Path(__file__).resolve().parent.parent / "suites"
SUITE_SUFFIX = ".txt"
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
_SQUARE = re.compile(r"([a-h])([1-8])")


def suite_names():
    """Return the names of the suites shipped in the package, sorted."""
    return sorted(p.name[:-len(SUITE_SUFFIX)] for p in SUITES_DIR.glob("*" + SUITE_SUFFIX))


def suite_name(game_name, variant):
    """Return the name of the suite of a game's variant (whether or not one is shipped)."""
    return f"{game_name}-{variant}"


def suite_path(name):
    """Return the path of the shipped suite `name` (ValueError naming the suites if none)."""
    names = suite_names()
    if not isinstance(name, str) or not _NAME.fullmatch(name) or name not in names:
        raise ValueError(f"no opening suite {name!r}; the package ships {', '.join(names) or 'none'}")
    return SUITES_DIR / (name + SUITE_SUFFIX)


def _grid(board):
    """Return the ranks of a board field as lists of one character a square ('.' empty), top first."""
    rows = []
    for rank in board.split("/"):
        row = []
        for ch in rank:
            row.extend("." * int(ch) if ch.isdigit() else ch)
        rows.append(row)
    return rows


def _field(grid):
    """Return the board field of ranks of characters ('.' empty), top first: digits for empty runs."""
    height = len(grid)
    chars = {(height - 1 - i) * 8 + f: c for i, row in enumerate(grid) for f, c in enumerate(row)
             if c != "."}
    return board_field(len(grid[0]) if grid else 0, height, chars)


def _flow_keys(fields):
    """Return the keys of a Flow position (fields of its string) under the rules' symmetries."""
    board, side, step, first = fields[0], fields[1], fields[2], fields[3]
    rows = [["R" if c == "N" else "r" if c == "n" else c for c in row] for row in _grid(board)]
    width, height = len(rows[0]), len(rows)
    keys = []
    for mirror in (False, True):
        for swap in (False, True):
            grid = [row[::-1] if mirror else row for row in rows]
            square = first
            if swap:
                grid = [[c.swapcase() for c in row] for row in grid[::-1]]
            found = _SQUARE.fullmatch(first)
            if found:
                f, r = ord(found.group(1)) - 97, int(found.group(2)) - 1
                f = width - 1 - f if mirror else f
                r = height - 1 - r if swap else r
                square = f"{chr(97 + f)}{r + 1}"
            mover = ("b" if side == "w" else "w") if swap else side
            keys.append(" ".join((_field(grid), mover, step, square)))
    return keys


def _tolkuchka_keys(fields):
    """Return the keys of a Tolkuchka position (fields of its string) under the rules' symmetries."""
    board, side, ko = fields[0], fields[1], fields[2]
    rows = _grid(board)
    n = len(rows)
    # (file, rank) with rank 0 at the bottom; the eight maps of the square onto itself
    maps = (lambda f, r: (f, r), lambda f, r: (n - 1 - f, r), lambda f, r: (f, n - 1 - r),
            lambda f, r: (n - 1 - f, n - 1 - r), lambda f, r: (r, f), lambda f, r: (n - 1 - r, f),
            lambda f, r: (r, n - 1 - f), lambda f, r: (n - 1 - r, n - 1 - f))
    pieces = [(f, n - 1 - top, c) for top, row in enumerate(rows) for f, c in enumerate(row) if c != "."]
    keys = []
    for move in maps:
        for swap in (False, True):
            grid = [["."] * n for _ in range(n)]
            for f, r, c in pieces:
                g, s = move(f, r)
                grid[n - 1 - s][g] = ({"W": "B", "B": "W"}.get(c, c)) if swap else c
            squares = _SQUARE.findall(ko)
            ko_key = ko
            if ko != "-" and len(squares) == 2:
                ko_key = "-".join(f"{chr(97 + g)}{s + 1}" for g, s in
                                  (move(ord(a) - 97, int(b) - 1) for a, b in squares))
            mover = ("b" if side == "w" else "w") if swap else side
            keys.append(" ".join((_field(grid), mover, ko_key)))
    return keys


def equivalent_keys(game_name, text):
    """Return the keys of the positions equivalent to position string `text` (its own first)."""
    fields = str(text).split()
    if game_name == "flow" and len(fields) >= 4:
        return _flow_keys(fields)
    if game_name == "tolkuchka" and len(fields) >= 3:
        return _tolkuchka_keys(fields)
    return [" ".join(fields)]


def position_key(game_name, text):
    """Return what two strings of the same position share: the position without its move
    counters (and, in Flow, with knights written as rooks)."""
    return equivalent_keys(game_name, text)[0]


def canonical_key(game_name, text):
    """Return one key shared by every position equivalent to `text` under the rules' symmetries."""
    return min(equivalent_keys(game_name, text))
