"""Game records: one JSON object per finished game, appended as one whole line to a JSON Lines file.

A record holds everything needed to replay the game and to rate it:

    id            the game's slot in the tournament's schedule (unique in a file)
    pair          the opening pair: the two games of one opening with colours swapped
    version       the ludo_flow version that played it
    sources       the id of the sources that played it (`ludo_flow.cache.sources_id()`:
                  version and a hash of every source file; equal ids, same code). Records
                  written before it existed have none.
    game, variant, params     the Game (`ludo_flow.load_game(game, variant, **params)`)
    start         the start position string; `opening` the moves played from it before
                  the agents took over (random opening plies), in notation
    white, black  the agent spec strings (`agents.make_agent(spec)` rebuilds them)
    seed_white, seed_black    the seeds each agent was reset with
    moves         the agents' moves in notation
    result        "1-0", "0-1" or "1/2-1/2"
    termination   a `ludo_flow.Termination` value ("far_edge", "quiet_plies", ...) or "forfeit"
    forfeit       null, or {"side": "white" | "black", "reason": "..."}
    plies         len(moves); time_white, time_black: each side's thinking time in seconds
    settings      the tournament's settings (a resume must match them)

`load_records` reads a file back, skipping a last line cut short by a kill; `state_at`
rebuilds the position after any ply so a game can be studied in a notebook.
"""
import json
import os

import ludo_flow
from ludo_flow.errors import LudoFlowError

FORFEIT = "forfeit"


class RecordError(LudoFlowError):
    """A records file or a record is malformed, or does not fit the tournament it is used with."""


def record_line(record):
    """Return a record as one JSON line (keys in a fixed order, ending in a newline)."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"


def read_records(path):
    """Return (records, bad_lines) from a JSON Lines file: the whole records and the numbers
    (1-based) of the lines that are not one whole JSON object (e.g. cut short by a kill)."""
    records, bad = [], []
    try:
        with open(path, "r", encoding="utf-8") as fh:
            for number, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    bad.append(number)
                    continue
                if not isinstance(record, dict) or not line.endswith("\n"):
                    bad.append(number)
                    continue
                records.append(record)
    except FileNotFoundError:
        raise RecordError(f"no records file {str(path)!r}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise RecordError(f"cannot read records file {str(path)!r}: {err}") from None
    return records, bad


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


def load_records(*paths):
    """Return the records of one or more JSON Lines files, in file order (cut lines skipped)."""
    out = []
    for path in paths:
        out.extend(read_records(path)[0])
    return out


def drop_partial_last_line(path):
    """Cut a last line that has no newline (a write stopped by a kill); return True if one was cut.

    Appending after such a line would glue the next record onto it."""
    with open(path, "rb+") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        if size == 0:
            return False
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return False
        # Find the last newline; everything after it is the cut line.
        pos = size - 1
        chunk = 4096
        keep = 0
        while pos > 0:
            start = max(0, pos - chunk)
            fh.seek(start)
            data = fh.read(pos - start)
            i = data.rfind(b"\n")
            if i >= 0:
                keep = start + i + 1
                break
            pos = start
        fh.truncate(keep)
        return True


def find_record(records, game_id):
    """Return the record whose `id` is `game_id` (RecordError listing a few ids if none)."""
    for record in records:
        if str(record.get("id")) == str(game_id):
            return record
    ids = [str(r.get("id")) for r in records[:8]]
    raise RecordError(f"no game with id {game_id!r}; ids look like: {', '.join(ids) or '(no records)'}")


def record_game(record):
    """Return the Game a record was played in."""
    try:
        return ludo_flow.load_game(record["game"], record.get("variant"), **record.get("params", {}))
    except KeyError as err:
        raise RecordError(f"record {record.get('id')!r} has no {err.args[0]!r}") from None


def start_state(record):
    """Return the state the agents started from: the start position after the opening moves."""
    game = record_game(record)
    state = game.from_string(record["start"]) if record.get("start") else game.new_initial_state()
    for word in record.get("opening", []):
        state.apply(state.parse_action(word))
    return state


def state_at(record, ply=None):
    """Return the position after `ply` of the record's moves (0: the start after the opening;
    None: the final position)."""
    moves = record.get("moves", [])
    if ply is None:
        ply = len(moves)
    if isinstance(ply, bool) or not isinstance(ply, int) or not 0 <= ply <= len(moves):
        raise RecordError(f"ply must be an int in [0, {len(moves)}], got {ply!r}")
    state = start_state(record)
    for word in moves[:ply]:
        state.apply(state.parse_action(word))
    return state


def replay_states(record):
    """Yield (ply, move or None, state after it) for every position of a record, from the start."""
    state = start_state(record)
    yield 0, None, state.clone()
    for ply, word in enumerate(record.get("moves", []), 1):
        state.apply(state.parse_action(word))
        yield ply, word, state.clone()
