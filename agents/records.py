"""Game records: one JSON object per finished game, one whole line each, in a JSON Lines file.

A record holds everything needed to replay the game and to rate it:

    id            the game's slot in the tournament's schedule (unique in a file)
    pair          the opening pair: the two games of one opening with colours swapped
    version       the ludo_flow version that played it
    sources       the id of the sources that played it (`ludo_flow.cache.sources_id()`:
                  version and a hash of every source file; equal ids, same code)
    game, variant, params     the Game (`ludo_flow.load_game(game, variant, **params)`)
    start         the start position string; `opening` the moves played from it before
                  the agents took over (random opening plies), in notation
    white, black  the agent spec strings (`agents.make_agent(spec)` rebuilds them)
    seed_white, seed_black    the seeds each agent was reset with
    moves         the agents' moves in notation
    result        "1-0", "0-1" or "1/2-1/2" ("*": not finished, never rated)
    termination   a `ludo_flow.Termination` value ("far_edge", "quiet_plies", ...), or one of the
                  records' own: "forfeit", "time_forfeit", "adjudicated_win", "adjudicated_draw",
                  "solved" (the solved rule of adjudication)
    forfeit       null, or {"side": "white" | "black", "reason": "..."}
    plies         len(moves); time_white, time_black: each side's thinking time in seconds
    settings      the tournament's settings (a resume must match them)
    search        each move's search as its agent reported it: an object of columns, each a
                  list aligned with `moves` (null where the mover reported nothing), a column
                  present only if some move reported it: `score` (from the mover's view),
                  `depth`, `nodes`, `simulations`, `time` (seconds), `pv` (the first moves of
                  the principal variation, starting with the move played, in notation);
                  `move_search(record)` gives them move by move
    adjudication  present when a rule ended the game early (termination `adjudicated_win` or
                  `adjudicated_draw`, or `solved` for the solved rule; records written before
                  that termination say `adjudicated_*` there): {"rule": "resign" | "draw" |
                  "max_plies" | "solved", "ply": N, "scores": {"white": [...], "black":
                  [...]}}, and for the solved rule "nodes" (df-pn's nodes on the proof)

A game played on a clock (`--tc`) adds `time_control` (fastchess's syntax, e.g. "10+0.1"),
`time_margin` (seconds), `clocks` (the mover's clock in seconds after each move, aligned with
`moves`) and `clock_white`, `clock_black` (each side's clock at the end, below zero by the
overrun of a fallen flag); its `termination` is "time_forfeit" when a flag fell.

Only `white`, `black` and `result` are required (so other programs' results can be rated);
every other field, where present, must have the type above. `check_record` is the one place
that says so: the runner, `ratings`, `replay` and `load_records` all read through
`iter_records`, which checks every line and names the first bad one (`RecordError`, a
ValueError). A line longer than `MAX_LINE_BYTES` is refused before it is parsed, so a file
such as /dev/zero cannot fill the memory. A last line without its newline (a write cut short
by a kill) is not a record: it is reported and skipped, and a resume cuts it off.

A file whose name ends in `.gz` is gzip-compressed, read and written transparently
(`records_gz`): the writer flushes the compressed stream after every record, so a kill loses
at most the record being written, and a resume closes a cut stream (`repair_gzip_tail`)
before appending.
"""
import hashlib
import json
import math
import os
import re
import warnings
import zlib
from itertools import repeat

import ludo_flow
from ludo_flow.errors import LudoFlowError

from .compact import HashCodes
from .ratings.match import printable

FORFEIT = "forfeit"
RESULTS = ("1-0", "0-1", "1/2-1/2")
UNFINISHED = "*"
MAX_LINE_BYTES = 1 << 20  # a record of the longest game with every move's search data is far below
MAX_NUMBER_DIGITS = 30    # longer integers in a record are refused (json would parse any size)
SEARCH_COLUMNS = ("score", "depth", "nodes", "simulations", "time", "pv")
PV_MOVES = 4              # moves of a principal variation a record keeps
MAX_SCORE = 1e9           # a reported score beyond this is not recorded
MAX_SCORES_KEPT = 1000    # scores an adjudication may quote per side
_CHUNK = 1 << 16


class RecordError(LudoFlowError):
    """A records file or a record is malformed, or does not fit the tournament it is used with."""


def record_line(record):
    """Return a record as one JSON line (keys in a fixed order, ending in a newline)."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"


def is_gzip(path):
    """Return True if records at `path` are gzip-compressed (the name ends in .gz)."""
    return str(path).endswith(".gz")


# ---- the schema ------------------------------------------------------------------------------
def _text(value, empty=False):
    return isinstance(value, str) and (empty or bool(value.strip()))


def _count(value):
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 63


def _seconds(value):
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            and value >= 0)


def _clock(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _words(value):  # as all(_text(w) for w in value), at C speed: a record holds hundreds of moves
    return isinstance(value, list) and all(map(isinstance, value, repeat(str))) and all(map(str.strip, value))


def _params(value):
    return isinstance(value, dict) and all(
        isinstance(k, str) and (_text(v, True) or (isinstance(v, (int, float)) and not isinstance(v, bool)
                                                   and math.isfinite(v))) for k, v in value.items())


def _forfeit(value):
    return value is None or (isinstance(value, dict) and value.get("side") in ("white", "black")
                             and _text(value.get("reason"), True))


def _score(value):
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            and abs(value) <= MAX_SCORE)


def _pv(value):
    return isinstance(value, list) and 0 < len(value) <= PV_MOVES and all(
        _text(w) and len(w) <= 40 for w in value)


_CELL = {"score": _score, "depth": _count, "nodes": _count, "simulations": _count,
         "time": lambda v: _seconds(v) and v <= 1e9, "pv": _pv}


def _search(value):
    return isinstance(value, dict) and all(
        key in _CELL and isinstance(column, list) and all(v is None or _CELL[key](v) for v in column)
        for key, column in value.items())


def _adjudication(value):
    if not isinstance(value, dict) or value.get("rule") not in ("resign", "draw", "max_plies", "solved"):
        return False
    if "nodes" in value and not _count(value["nodes"]):
        return False
    scores = value.get("scores", {})
    return _count(value.get("ply")) and isinstance(scores, dict) and all(
        k in ("white", "black") and isinstance(v, list) and len(v) <= MAX_SCORES_KEPT
        and all(_score(x) for x in v) for k, v in scores.items())


# field -> (check, what it must be); `white`, `black` and `result` are required
SCHEMA = {
    "white": (_text, "a non-empty string (an agent spec)"),
    "black": (_text, "a non-empty string (an agent spec)"),
    "result": (lambda v: _text(v) and len(v) <= 40, "a result string: 1-0, 0-1, 1/2-1/2 (others, such as *, "
               "are not rated)"),
    "id": (lambda v: _text(v) or _count(v), "a non-empty string or a count"),
    "pair": (lambda v: v is None or _text(v), "a non-empty string or null"),
    "version": (lambda v: v is None or _text(v), "a string or null"),
    "sources": (lambda v: v is None or _text(v), "a string or null"),
    "game": (_text, "a game name"),
    "variant": (lambda v: v is None or _text(v), "a variant name or null"),
    "params": (_params, "an object of game parameters"),
    "start": (lambda v: v is None or _text(v, True), "a position string"),
    "opening": (_words, "a list of moves in notation"),
    "moves": (_words, "a list of moves in notation"),
    "termination": (_text, "a termination name"),
    "forfeit": (_forfeit, 'null or {"side": "white"|"black", "reason": "..."}'),
    "plies": (_count, "a count of plies"),
    "time_white": (_seconds, "a number of seconds >= 0"),
    "time_black": (_seconds, "a number of seconds >= 0"),
    "seed_white": (_count, "a seed (an int >= 0)"),
    "seed_black": (_count, "a seed (an int >= 0)"),
    "settings": (lambda v: v is None or isinstance(v, dict), "an object"),
    "search": (_search, f"an object of columns ({', '.join(SEARCH_COLUMNS)}), each a list of "
               f"values or nulls"),
    "adjudication": (_adjudication, 'null or {"rule": "resign"|"draw"|"max_plies"|"solved", "ply": N, '
                     '"scores": {"white": [...], "black": [...]}[, "nodes": N]}'),
    "time_control": (lambda v: v is None or (_text(v) and len(v) <= 40), "a time control such as "
                     "'10+0.1' or '40/60', or null"),
    "time_margin": (_seconds, "a number of seconds >= 0"),
    "clocks": (lambda v: isinstance(v, list) and all(_seconds(x) for x in v), "a list of seconds >= 0 "
               "(the mover's clock after each move)"),
    "clock_white": (_clock, "a number of seconds (below zero: a fallen flag)"),
    "clock_black": (_clock, "a number of seconds (below zero: a fallen flag)"),
}
REQUIRED = ("white", "black", "result")


def check_record(record):
    """Return `record` if it is a dict whose fields have the schema's types, else raise
    RecordError saying which field is wrong (the caller adds where the record came from)."""
    if not isinstance(record, dict):
        raise RecordError(f"a record is a JSON object, got {_short(record)}")
    for key in REQUIRED:
        if key not in record:
            raise RecordError(f"the record has no {key!r}")
    for key, value in record.items():
        rule = SCHEMA.get(key)
        if rule is not None and not rule[0](value):
            raise RecordError(f"field {key!r} must be {rule[1]}, got {_short(value)}")
    if "moves" in record and "plies" in record and record["plies"] != len(record["moves"]):
        raise RecordError(f"field 'plies' is {record['plies']} but 'moves' holds {len(record['moves'])}")
    for key, column in (record.get("search") or {}).items():
        if len(column) != len(record.get("moves", ())):
            raise RecordError(f"field 'search': column {key!r} holds {len(column)} values for "
                              f"{len(record.get('moves', ()))} moves")
    if "moves" in record and "clocks" in record and len(record["clocks"]) != len(record["moves"]):
        raise RecordError(f"field 'clocks' holds {len(record['clocks'])} times but 'moves' holds "
                          f"{len(record['moves'])} moves")
    return record


def move_search(record):
    """Return, for each of a record's moves, what its agent reported: {column: value} of the
    columns with a value for that move (empty if none; no `search` field: all empty)."""
    columns = record.get("search") or {}
    return [{k: c[i] for k, c in columns.items() if c[i] is not None}
            for i in range(len(record.get("moves", ())))]


def without_times(record):
    """Return a copy of a record without what differs from run to run of the same games: the
    thinking times (`time_white`, `time_black`, the `search` column `time`)."""
    out = {k: v for k, v in record.items() if k not in ("time_white", "time_black")}
    if isinstance(out.get("search"), dict):
        out["search"] = {k: v for k, v in out["search"].items() if k != "time"}
    return out


def _short(value, limit=60):
    """Return a value as short, printable text for an error message."""
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _refuse_constant(name):
    raise ValueError(f"{name} is not a number a record may hold")


def _bounded_int(text):
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise ValueError(f"an integer of {len(text)} digits")
    return int(text)


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)
_BOUNDED_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_int=_bounded_int)
_LONG_DIGITS = re.compile(r"\d{%d}" % (MAX_NUMBER_DIGITS + 1))
_LONG_DIGITS_BYTES = re.compile(rb"\d{%d}" % (MAX_NUMBER_DIGITS + 1))


def parse_record(line):
    """Return the checked record of one JSON line (str or bytes), or raise RecordError."""
    long_number = _LONG_DIGITS_BYTES if isinstance(line, (bytes, bytearray)) else _LONG_DIGITS
    # Integers are checked one by one only where the line has a run of digits that long: a
    # hook called for every number would cost a fifth of the parse.
    decoder = _BOUNDED_DECODER if long_number.search(line) else _DECODER
    try:
        if isinstance(line, (bytes, bytearray)):  # as json.loads does, with a decoder made once
            line = line.decode(json.detect_encoding(line), "surrogatepass")
        elif line.startswith("\ufeff"):
            raise ValueError("Unexpected UTF-8 BOM (decode using utf-8-sig)")
        value = decoder.decode(line)
    except RecursionError:
        raise RecordError("the line nests too deeply to be a record") from None
    except (ValueError, UnicodeDecodeError) as err:  # JSONDecodeError is a ValueError
        raise RecordError(f"not a JSON record ({str(err).splitlines()[0][:80]})") from None
    return check_record(value)


# ---- the runner's own lines, read without parsing them whole ---------------------------------
# A line as the tournament runner writes it (its keys in its order, no spaces, printable ASCII
# strings without escapes, no forfeit, search or clock data) is checked by a pattern of its
# bytes and only the fields asked for are made: a fifth of what parsing and checking it whole
# costs. Anything else (another layout, an escape, a number out of the pattern's range, a
# rare field) is parsed and checked whole: a bad line is refused by `parse_record` only, with
# its message, and a line the pattern accepts is one `parse_record` accepts with these values.
_TEXT = rb' *[!#-\[\]-~][ !#-\[\]-~]*'   # printable ASCII, not blank, no escape: a text
_STRING = rb'[ !#-\[\]-~]*'
_INT = rb'(?:0|[1-9][0-9]{0,17})'        # a count below 10**18 < 2**63
_SECONDS = rb'(?:0|[1-9][0-9]{0,17})(?:\.[0-9]{1,17})?(?:[eE][-+]?[0-9]{1,2})?'  # finite, >= 0


def _field(name, pattern, null=False):
    """Return the pattern of `"name":"value"` whose value (a string, or null) is group `name`."""
    value = rb'"(?P<' + name.encode() + rb'>' + pattern + rb')"'
    return rb',"' + name.encode() + rb'":' + (rb'(?:null|' + value + rb')' if null else value)


_RUNNER_LINE = re.compile(
    rb'\{"id":(?:"(?P<id>' + _TEXT + rb')"|(?P<id_int>' + _INT + rb'))' + _field("pair", _TEXT, True)
    + _field("version", _TEXT, True) + _field("game", _TEXT) + _field("variant", _TEXT, True)
    + rb',"params":(?P<params>\{[^{}]*\})' + _field("start", _STRING, True)
    + rb',"opening":\[(?P<opening>[^\]]*)\]' + _field("white", _TEXT) + _field("black", _TEXT)
    + rb',"seed_white":' + _INT + rb',"seed_black":' + _INT
    + rb',"moves":\[(?P<moves>[^\]]*)\],"plies":(?P<plies>' + _INT + rb'),"time_white":' + _SECONDS
    + rb',"time_black":' + _SECONDS + rb',"result":"(?P<result>1-0|0-1|1/2-1/2|\*)"'
    + _field("termination", _TEXT) + rb',"forfeit":null(?:,"search":\{\})?'
    + rb'(?P<has_sources>' + _field("sources", _TEXT, True) + rb')?'
    + rb',"settings":(?P<settings>null|\{.*\})\}\n\Z')
#: the fields `iter_records(..., fields=...)` reads from a runner's line without parsing it whole
PATTERN_FIELDS = frozenset(("id", "pair", "version", "game", "variant", "params", "start", "white",
                            "black", "result", "termination", "sources"))
#: what `ratings` needs of a record
RATING_FIELDS = ("id", "pair", "white", "black", "result", "game", "variant", "params", "sources")
# the bytes of a move the pattern vouches for: printable ASCII but a space, a quote, a backslash
# and a comma (a comma or a quote in a move would make the list's layout ambiguous to count)
_MOVE_BYTES = bytes(range(0x21, 0x7f)).translate(None, b'"\\,')
_PARAMS_SEEN, _SETTINGS_SEEN = {}, {}  # bytes -> their value, or None where parse_record refuses it


def _is_dict(value):
    return isinstance(value, dict)


def _words_count(inner):
    """Return how many moves the bytes between a list's brackets hold, or -1 unless they are
    quoted moves of _MOVE_BYTES (none empty) separated by commas: `"e3-e4","f2-f3"`."""
    if not inner:
        return 0
    # without the moves' bytes, k moves leave `"",""...` (3k - 1 bytes); each comma between two
    # quotes and no two quotes together then leave no other way to read them
    layout = inner.translate(None, _MOVE_BYTES)
    words = (len(layout) + 1) // 3
    if (layout != b'"' + b'","' * (words - 1) + b'"' or inner[:1] != b'"' or inner[-1:] != b'"'
            or inner.count(b'","') != words - 1 or b'""' in inner):
        return -1
    return words


def _part(raw, check, seen):
    """Return the value of a params or settings object's bytes if `check` accepts it, else None
    (`seen`: the values of the bytes met before, for this check)."""
    value = seen.get(raw, seen)
    if value is seen:
        try:
            value = _BOUNDED_DECODER.decode(raw.decode("utf-8", "surrogatepass"))
        except (ValueError, RecursionError):
            value = None
        if not check(value):
            value = None
        if len(seen) < 64:  # the same few in a file; a file of ever new ones is not held
            seen[raw] = value
    return value


def _pattern_fields(line, fields):
    """Return {field: value} of a runner's line for `fields` (a subset of PATTERN_FIELDS), or
    None if the line is not one the pattern can vouch for."""
    match = _RUNNER_LINE.match(line)
    if match is None:
        return None
    moves = _words_count(match.group("moves"))
    if moves < 0 or moves != int(match.group("plies")) or _words_count(match.group("opening")) < 0:
        return None
    params = _part(match.group("params"), _params, _PARAMS_SEEN)
    settings = match.group("settings")
    if params is None or (settings != b"null" and _part(settings, _is_dict, _SETTINGS_SEEN) is None):
        return None
    texts = match.group(*fields) if len(fields) > 1 else (match.group(*fields),)
    out = {key: None if raw is None or key == "params" else raw.decode("ascii") for key, raw in zip(fields, texts)}
    if "params" in out:
        out["params"] = dict(params)
    if "id" in out and out["id"] is None:
        out["id"] = int(match.group("id_int"))  # not None: the pattern reads an id one way or the other
    if "sources" in out and match.group("has_sources") is None:
        del out["sources"]
    return out


# ---- reading -------------------------------------------------------------------------------------
def _chunks(path):
    """Yield the (decompressed) bytes of a records file in chunks; a cut gzip stream ends early."""
    try:
        fh = open(path, "rb")
    except FileNotFoundError:
        raise RecordError(f"no records file {str(path)!r}") from None
    except OSError as err:
        raise RecordError(f"cannot read records file {str(path)!r}: {err.strerror or err}") from None
    with fh:
        if os.path.isdir(path):
            raise RecordError(f"{path} is a folder, not a records file")
        if not is_gzip(path):
            while True:
                data = _read(fh, path)
                if not data:
                    return
                yield data
        else:
            yield from _gunzip(fh, path)


def _read(fh, path):
    try:
        return fh.read(_CHUNK)
    except OSError as err:
        raise RecordError(f"cannot read records file {str(path)!r}: {err.strerror or err}") from None


def _gunzip(fh, path):
    """Yield the decompressed bytes of concatenated gzip members, stopping quietly at a cut one."""
    decoder = zlib.decompressobj(wbits=31)
    while True:
        data = _read(fh, path)
        if not data:
            return
        while data:
            try:
                out = decoder.decompress(data, _CHUNK)
            except zlib.error as err:
                raise RecordError(f"{path} is not a gzip records file ({err})") from None
            if out:
                yield out
            # End of a member first: when it ends just as the output limit is reached, the
            # decoder keeps a stale unconsumed_tail, which an ended decoder never consumes.
            if decoder.eof:  # a member ended: the next one starts in its unused data
                data = decoder.unused_data
                decoder = zlib.decompressobj(wbits=31)
                continue
            if decoder.unconsumed_tail:
                data = decoder.unconsumed_tail
                continue
            data = b""


def iter_lines(path):
    """Yield (line number, line bytes with its newline, or without one if it is the cut last
    line) of a records file, refusing any line over MAX_LINE_BYTES before holding it whole."""
    number, pending = 0, b""
    for chunk in _chunks(path):
        pending += chunk
        start = 0
        while True:
            end = pending.find(b"\n", start)
            if end < 0:
                break
            number += 1
            if end + 1 - start > MAX_LINE_BYTES:
                raise RecordError(f"{path}:{number}: a line longer than {MAX_LINE_BYTES} bytes is "
                                  f"not a record")
            yield number, pending[start:end + 1]
            start = end + 1
        pending = pending[start:]
        if len(pending) > MAX_LINE_BYTES:
            raise RecordError(f"{path}:{number + 1}: a line longer than {MAX_LINE_BYTES} bytes is "
                              f"not a record")
    if pending:
        yield number + 1, pending


class ReadReport:
    """What reading records files found besides the records: a cut last line, unfinished
    games, duplicate records of one game (kept once)."""

    def __init__(self):
        self.cut = []          # (path, line number) of last lines cut short by a kill
        self.duplicates = 0    # records repeating an earlier record of the same game
        self.unfinished = 0    # records whose result is "*"

    def skipped(self):
        """Return {reason: count} of what was read but not kept."""
        out = {}
        if self.cut:
            out["lines cut short by a kill"] = len(self.cut)
        if self.duplicates:
            out["duplicate records of one game"] = self.duplicates
        return out

    def describe(self):
        """Return the skipped counts as text ('' if nothing was skipped)."""
        return ", ".join(f"{n} {why}" for why, n in self.skipped().items())


def game_key(record):
    """Return what identifies a game across files: its id and its pair (whose id names the
    tournament's settings), or None for a record without an id."""
    if record.get("id") is None:
        return None
    return (record.get("pair"), str(record["id"]))


def iter_records(path, report=None, seen=None, fields=None):
    """Yield the checked records of a file, in order. A bad line raises RecordError naming
    `path:line`; a cut last line is skipped (noted in `report`). With `seen` (a SeenGames shared
    across files), a record of a game already read is skipped if it is the same record and
    refused if its result differs. With `fields` (names, such as RATING_FIELDS), each record is
    given as a dict of those of its fields it has, and a line as the runner writes it is checked
    by a pattern of its bytes instead of parsed whole (the same records, the same errors)."""
    if seen is not None:
        seen.reading(path)
    if fields is not None:  # what `seen` and `report` read of every record
        fields = tuple(dict.fromkeys(("id", "pair", "result", *fields)))
    fast = fields is not None and PATTERN_FIELDS.issuperset(fields)
    for number, line in iter_lines(path):
        if not line.endswith(b"\n"):
            if report is not None:
                report.cut.append((str(path), number))
            continue
        record = _pattern_fields(line, fields) if fast else None
        if record is None:
            if not line.strip():
                continue
            try:
                record = parse_record(line)
            except RecordError as err:
                raise RecordError(f"{path}:{number}: {err}") from None
            if fields is not None:
                record = {key: record[key] for key in fields if key in record}
        if seen is not None and not seen.add(record, path, number):
            if report is not None:
                report.duplicates += 1
            continue
        if report is not None and record["result"] == UNFINISHED:
            report.unfinished += 1
        yield record


class SeenGames:
    """The games read so far, across files, by `game_key`, each with its result: a 128-bit hash
    and a result code each (`agents.compact.HashCodes`), so a million ids take tens of MB.
    `iter_records` asks it about every record; its paths are read again only to name where a
    game recorded twice with different results was first read."""

    def __init__(self):
        self._codes = HashCodes()
        self._paths = []

    def __len__(self):
        return len(self._codes)

    def reading(self, path):
        """Note that records of `path` are read next."""
        self._paths.append(path)

    def add(self, record, path, number):
        """Return True for a game not read before (or without an id), False for a repeat with the
        same result; raise RecordError naming both places for a repeat with another result."""
        key = game_key(record)
        if key is None:
            return True
        code = _result_code(record["result"])
        previous = self._codes.put(key, code)
        if not previous:
            return True
        if previous == code:
            return False
        where, result = self._first(key)
        raise RecordError(f"{path}:{number}: game {record['id']!r} is recorded twice with different results "
                          f"({result} at {where}, {record['result']} here)")

    def _first(self, key):
        """Return (path:line, result) of the first record of a game (read again: an error's path)."""
        for path in self._paths:
            for number, line in iter_lines(path):
                if not line.endswith(b"\n") or not line.strip():
                    continue
                record = parse_record(line)
                if game_key(record) == key:
                    return f"{path}:{number}", record["result"]
        return "an earlier line", "another result"


_RESULT_CODES = {result: code for code, result in enumerate(RESULTS + (UNFINISHED,), 1)}


def _result_code(result):
    """Return a code 1..255 of a result string: one for each result of RESULTS and "*", a hash
    for others (two other results differ in their codes but for one chance in 250)."""
    code = _RESULT_CODES.get(result)
    if code is None:
        code = 6 + hashlib.blake2b(result.encode("utf-8", "surrogatepass"), digest_size=2).digest()[0] % 250
    return code


def load_records(*paths, report=None):
    """Return the records of one or more JSON Lines files (.jsonl or .jsonl.gz), in file order,
    each game once (see `iter_records`: a last line cut short by a kill is skipped, a malformed
    line raises RecordError naming it); `report` (a ReadReport) collects what was skipped."""
    seen = SeenGames()
    out = []
    for path in paths:
        out.extend(iter_records(path, report, seen))
    return out


def read_records(path):
    """Deprecated (use `load_records` or `iter_records`): return (records, line numbers of a
    last line cut short)."""
    warnings.warn("agents.records.read_records is deprecated: use load_records(path, report=ReadReport()) "
                  "or iter_records(path)", DeprecationWarning, stacklevel=2)
    report = ReadReport()
    return load_records(path, report=report), [number for _, number in report.cut]


def sources_counts(records):
    """Return {sources id: number of records} of records, in order of first appearance; records
    without one (written before records carried it) count under None."""
    counts = {}
    for record in records:
        key = record.get("sources")
        counts[key] = counts.get(key, 0) + 1
    return counts


def describe_sources(counts):
    """Return sources counts as text: `ludo_flow-0.1.0-1a2b... (30 games), no id (4 games)`."""
    return ", ".join(f"{key or 'no id'} ({n} game{'' if n == 1 else 's'})" for key, n in counts.items())


# ---- writing -----------------------------------------------------------------------------------
GZIP_MEMBER_BYTES = 1 << 20  # a gzip member is ended after this much text: a cut one is short


class RecordsAppender:
    """Appends whole record lines to a binary file open for appending; for a `.gz` file the
    lines go into gzip members that are flushed (Z_SYNC_FLUSH) after every write, so what was
    written decodes even if the process is killed before `close` ends the member."""

    def __init__(self, fh, gz=False):
        self.fh = fh
        self.gz = gz
        self._z = None  # a member is begun by the first write: no empty member on disk
        self._in_member = 0

    def write(self, lines):
        """Write record lines (each ending in a newline) and flush them to the file."""
        data = "".join(lines).encode("utf-8")
        if self.gz:
            if self._z is None:
                self._z = zlib.compressobj(6, zlib.DEFLATED, 31)
                self._in_member = 0
            self._in_member += len(data)
            if self._in_member >= GZIP_MEMBER_BYTES:
                data = self._z.compress(data) + self._z.flush(zlib.Z_FINISH)
                self._z = None
            else:
                data = self._z.compress(data) + self._z.flush(zlib.Z_SYNC_FLUSH)
        _write_all(self.fh, data)

    def close(self):
        """End the gzip member (if one was begun) and flush."""
        if self._z is not None:
            _write_all(self.fh, self._z.flush(zlib.Z_FINISH))
            self._z = None
        self.fh.flush()


def _write_all(fh, data):
    """Write all of `data` (an unbuffered file may take it in parts) and flush."""
    view = memoryview(data)
    while view:
        written = fh.write(view)
        view = view[written if written is not None else len(view):]
    fh.flush()


_SYNC = b"\x00\x00\xff\xff"        # the end of a Z_SYNC_FLUSH: the stream is byte-aligned here
_FINAL_EMPTY_BLOCK = b"\x03\x00"     # a last, empty fixed-Huffman block


def cut_tail(fh, gz=False):
    """Cut what a kill left unfinished at the end of a records file open as `fh` (binary, read
    and write): a last line without its newline, or for gzip a cut last member, which is cut at
    its last whole line and closed (a final empty block and its trailer) so that members can
    follow it. Return the number of bytes cut (0 if the file ended cleanly). Run it only after
    every whole record of the file was checked; a gzip file whose whole lines were not all
    kept (a kill between a line's data and its flush) must be read again afterwards."""
    fh.seek(0, os.SEEK_END)
    size = fh.tell()
    if size == 0:
        return 0
    if not gz:
        keep = _last_newline_end(fh, size)
        if keep < size:
            fh.truncate(keep)
        return size - keep
    start = _last_member_start(fh, size)
    if start is None:
        return 0
    fh.seek(start)
    member = _read_all(fh, size - start)
    # A kill inside a sync marker leaves its first bytes: their missing rest is known. Each
    # candidate end is checked by decoding the closed member whole (its trailer's CRC too).
    tails = [member + _SYNC[k:] for k in (3, 2, 1) if member.endswith(_SYNC[:k])] + [member]
    for candidate in tails:
        end = len(candidate)
        while True:
            end = candidate.rfind(_SYNC, 0, end)
            if end < 0:
                break
            closed = _closed_member(candidate[:end + len(_SYNC)])
            if closed is not None:
                keep = min(start + end + len(_SYNC), size)
                fh.truncate(keep)
                fh.seek(keep)
                _write_all(fh, closed[keep - start:])
                return size - keep
    fh.truncate(start)  # not one whole line in it: drop the member
    return size - start


def _closed_member(prefix):
    """Return a gzip member's prefix (cut at a sync point) closed by a final empty block and its
    trailer, if the prefix decodes to whole lines and the closed member decodes whole; else None."""
    found = _inflate_summary(prefix)
    if found is None or found[2] != b"\n":
        return None
    crc, length, _ = found
    closed = prefix + _FINAL_EMPTY_BLOCK + crc.to_bytes(4, "little") + (length & 0xFFFFFFFF).to_bytes(4, "little")
    decoder = zlib.decompressobj(wbits=31)
    try:
        data = closed
        while data:
            decoder.decompress(data, _CHUNK)
            data = decoder.unconsumed_tail
    except zlib.error:
        return None
    return closed if decoder.eof and not decoder.unused_data else None


def _read_all(fh, size):
    """Read `size` bytes (an unbuffered file may give them in parts)."""
    parts = []
    while size > 0:
        data = fh.read(size)
        if not data:
            break
        parts.append(data)
        size -= len(data)
    return b"".join(parts)


def _inflate_summary(member):
    """Return (crc32, length, last byte) of the text a gzip member's prefix holds, or None if it
    does not decode."""
    decoder = zlib.decompressobj(wbits=31)
    crc, length, last = 0, 0, b""
    data = member
    try:
        while data:
            out = decoder.decompress(data, _CHUNK)
            crc, length = zlib.crc32(out, crc), length + len(out)
            last = out[-1:] or last
            data = decoder.unconsumed_tail
    except zlib.error:
        return None
    return crc & 0xFFFFFFFF, length, last


def _last_newline_end(fh, size):
    """Return the offset just after the last newline of a plain file (0 if it has none)."""
    pos = size
    while pos > 0:
        start = max(0, pos - _CHUNK)
        fh.seek(start)
        data = _read_all(fh, pos - start)
        i = data.rfind(b"\n")
        if i >= 0:
            return start + i + 1
        pos = start
    return 0


def _last_member_start(fh, size):
    """Return the offset of a gzip file's last member if that member is cut short, else None."""
    fh.seek(0)
    decoder = zlib.decompressobj(wbits=31)
    member_start = consumed = 0
    while True:
        data = fh.read(_CHUNK)
        if not data:
            return None if consumed == member_start else member_start
        while data:
            decoder.decompress(data)  # output dropped: only where members end matters here
            if decoder.eof:
                used = len(data) - len(decoder.unused_data)
                consumed += used
                member_start = consumed
                data = decoder.unused_data
                decoder = zlib.decompressobj(wbits=31)
            else:
                consumed += len(data)
                data = b""


# ---- one game's positions ---------------------------------------------------------------------
def find_record(records, game_id):
    """Return the first record whose `id` is `game_id` among `records` (any iterable, read to its
    end: a stream of `iter_records` thus checks the whole file), or RecordError listing a few ids."""
    found, ids = None, []
    for record in records:
        if found is None and str(record.get("id")) == str(game_id):
            found = record
        if len(ids) < 8:
            ids.append(str(record.get("id")))
    if found is not None:
        return found
    raise RecordError(f"no game with id {printable(str(game_id))!r}; ids look like: "
                      f"{printable(', '.join(ids)) or '(no records)'} (`ludo-flow replay FILE --list` lists them)")


def record_game(record):
    """Return the Game a record was played in (RecordError if it names none we know)."""
    if "game" not in record:
        raise RecordError(f"record {printable(str(record.get('id')))!r} has no 'game'")
    try:
        return ludo_flow.load_game(record["game"], record.get("variant"), **record.get("params", {}))
    except ValueError as err:
        raise RecordError(f"record {printable(str(record.get('id')))!r}: {err}") from None


def start_state(record):
    """Return the state the agents started from: the start position after the opening moves."""
    game = record_game(record)
    try:
        state = game.from_string(record["start"]) if record.get("start") else game.new_initial_state()
        for word in record.get("opening", []):
            state.apply(state.parse_action(word))
    except ValueError as err:
        raise RecordError(f"record {printable(str(record.get('id')))!r}: its opening: {err}") from None
    return state


def replay_states(record):
    """Yield (ply, move or None, state after it) for every position of a record, from the start
    (RecordError naming the ply of a move that is not legal there)."""
    state = start_state(record)
    yield 0, None, state.clone()
    for ply, word in enumerate(record.get("moves", []), 1):
        try:
            state.apply(state.parse_action(word))
        except ValueError as err:
            raise RecordError(f"record {printable(str(record.get('id')))!r}, ply {ply}: {err}") from None
        yield ply, word, state.clone()


def state_at(record, ply=None):
    """Return the position after `ply` of the record's moves (0: the start after the opening;
    None: the final position)."""
    moves = record.get("moves", [])
    if ply is None:
        ply = len(moves)
    if isinstance(ply, bool) or not isinstance(ply, int) or not 0 <= ply <= len(moves):
        raise RecordError(f"ply must be an int in [0, {len(moves)}], got {ply!r}")
    state = start_state(record)
    for number, word in enumerate(moves[:ply], 1):
        try:
            state.apply(state.parse_action(word))
        except ValueError as err:
            raise RecordError(f"record {printable(str(record.get('id')))!r}, ply {number}: {err}") from None
    return state


_MOVED = {"drop_partial_last_line": None}


def __getattr__(name):
    """Answer a name that is gone (ludo_flow.moved)."""
    from ludo_flow.moved import moved
    return moved(__name__, _MOVED, name, "cut_tail(fh, gz) cuts what a kill left unfinished, in plain "
                 "and gzip records files alike")
