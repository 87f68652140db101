"""A recorded game as the data a replay page draws: every position of the game, compactly.

The page draws each board from this data with the layout and colours of the SVG boards
(`ludo_flow.render`), so the data carries what `State.board_picture()` says at every ply,
not pictures. One game is a dict (JSON):

    info     the record's header fields (id, agents, result, termination, plies, times, ...)
    w, h     board width and height
    board    the first position: w*h piece codes, rank 1 first, file a first ('.' empty)
    moves    every decision in notation: the opening's first, then the agents' (`opening`
             says how many belong to the opening)
    movers   "0" or "1" per move: White or Black made it
    plies    one string per move: "L,D,R,K" where L are the squares of the decision (the
             yellow tint), D pairs of (square, new piece code) for every square the move
             changed, R the ringed squares (Flow's wash candidates), K the barred pair
             (Tolkuchka's ko) or empty
    search   None, or one [score from White's view or null, depth, nodes, simulations,
             seconds, pv] per agents' move, from a record's optional `search` field

A square is one character of SQUARE_CHARS (its index, a1 = 0, h8 = 63). A piece code is one
character naming a (fill, outline, letter) triple of the page's palette. The squares a move
changed besides its own (the blue tint) are D's squares not in L, exactly `board_picture`'s
`changed`.
"""
import math

from agents.records import RecordError, move_search, printable, start_state

SQUARE_CHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/"
EMPTY = "."
PIECE_CHARS = "PQRSTUVWXYZpqrstuvwxyz"
INFO_FIELDS = ("id", "game", "variant", "params", "white", "black", "result", "termination", "plies",
               "time_white", "time_black", "forfeit", "seed_white", "seed_black", "start")
SEARCH_LIMIT = 1e6  # a score beyond this (a win or loss, or a broken number) is drawn at the edge


class Palette:
    """Piece codes: one character for each (fill, outline, letter) triple met, shared by a page."""

    def __init__(self):
        self.codes = {}

    def code(self, triple):
        """Return the one-character code of a piece's (fill, outline, letter)."""
        triple = tuple(triple)
        found = self.codes.get(triple)
        if found is None:
            if len(self.codes) >= len(PIECE_CHARS):
                raise RecordError("too many kinds of piece for one page")
            found = self.codes[triple] = PIECE_CHARS[len(self.codes)]
        return found

    def table(self):
        """Return {code: [fill, outline, letter]} for the page."""
        return {c: list(t) for t, c in self.codes.items()}


def _sq(sq):
    return SQUARE_CHARS[sq]


def _board_codes(picture, palette):
    """Return {square: code} of a board picture's pieces."""
    return {sq: palette.code(t) for sq, t in picture["pieces"].items()}


def _ply_string(picture, before, after):
    """Return the "L,D,R,K" string of one move (see the module docstring)."""
    diff = "".join(_sq(sq) + after.get(sq, EMPTY)
                   for sq in sorted(set(before) | set(after)) if before.get(sq) != after.get(sq))
    barred = picture["barred"]
    return ",".join(("".join(_sq(s) for s in picture["last_move"]), diff,
                     "".join(_sq(s) for s in picture["rings"]),
                     "" if barred is None else _sq(barred[0]) + _sq(barred[1])))


def _number(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return value


def search_rows(items, movers):
    """Return the per-move search rows of a record's `search` field (None without one).

    `items` is a list aligned with the agents' moves whose items are null or objects with any
    of score (from the mover's view), depth, nodes, simulations, time and pv (a list of moves
    in notation, or a string); anything else is ignored. `movers` are the players (0 White,
    1 Black) who made those moves: scores are turned to White's view."""
    if not isinstance(items, list) or not items:
        return None
    rows = []
    for i, mover in enumerate(movers):
        item = items[i] if i < len(items) else None
        if not isinstance(item, dict):
            rows.append(None)
            continue
        score = _number(item.get("score"))
        if score is not None:
            score = max(-SEARCH_LIMIT, min(SEARCH_LIMIT, float(score)))
            score = score if mover == 0 else -score
        pv = item.get("pv")
        if isinstance(pv, list):
            pv = " ".join(str(w) for w in pv[:40])
        rows.append([score, _number(item.get("depth")), _number(item.get("nodes")),
                     _number(item.get("simulations")), _number(item.get("time")),
                     printable(pv[:400]) if isinstance(pv, str) else None])
    return rows if any(r is not None for r in rows) else None


def _search_items(record):
    """Return a record's `search` columns as one item a move (records.move_search), or None
    without a well-formed `search` field."""
    columns = record.get("search")
    if not isinstance(columns, dict) or not columns:
        return None
    try:
        return move_search(record)
    except (IndexError, TypeError, AttributeError):
        return None


def game_data(record, palette):
    """Return the page data of one record (see the module docstring); RecordError if a move
    in it is not legal where it is played."""
    name = printable(str(record.get("id")))
    state = start_state_of_start(record)
    picture = state.board_picture()
    width, height = picture["width"], picture["height"]
    codes = _board_codes(picture, palette)
    board = "".join(codes.get(r * 8 + f, EMPTY) for r in range(height) for f in range(width))
    opening = list(record.get("opening", []))
    words = opening + list(record.get("moves", []))
    plies, movers = [], []
    for number, word in enumerate(words, 1):
        movers.append(state.current_player())
        try:
            state.apply(state.parse_action(word))
        except ValueError as err:
            raise RecordError(f"record {name!r}, move {number} ({printable(word)}): {err}") from None
        picture = state.board_picture()
        after = _board_codes(picture, palette)
        plies.append(_ply_string(picture, codes, after))
        codes = after
    info = {k: record[k] for k in INFO_FIELDS if k in record}
    info["opening"] = opening
    info["mover"] = movers[0] if movers else state.current_player()
    search = search_rows(_search_items(record), movers[len(opening):])
    return {"info": info, "w": width, "h": height, "board": board, "moves": words,
            "movers": "".join(str(m) for m in movers),
            "opening": len(opening), "plies": plies, "search": search}


def start_state_of_start(record):
    """Return the record's start position, before its opening moves."""
    return start_state(dict(record, opening=[]))


def page_data(records):
    """Return the data of a page of records: {"palette", "games", "errors"}; a record that
    cannot be replayed is left out and named in `errors`."""
    palette = Palette()
    games, errors = [], []
    for record in records:
        try:
            games.append(game_data(record, palette))
        except RecordError as err:
            errors.append(str(err))
    return {"palette": palette.table(), "games": games, "errors": errors}
