"""The games of a records file in the terminal: a list, and one game a move at a time."""
import sys

from agents.records import printable, replay_states

LIST_COLUMNS = ("id", "white", "black", "result", "termination", "plies")


def game_rows(records):
    """Return one row of strings per record: id, agents, result, termination, plies."""
    rows = []
    for r in records:
        plies = r.get("plies", len(r.get("moves", [])))
        rows.append([printable(str(r.get(k, ""))) if k != "plies" else str(plies) for k in LIST_COLUMNS])
    return rows


def format_list(records):
    """Return the table of games (a header line, one line per game, aligned)."""
    rows = [list(LIST_COLUMNS)] + game_rows(records)
    widths = [min(40, max(len(row[i]) for row in rows)) for i in range(len(LIST_COLUMNS))]
    lines = ["  ".join(cell[:40].ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    return "\n".join(lines)


STEP_HELP = "Enter: next move, b: back, NUMBER: go to that ply, e: end, s: start, q: quit"


def step_through(record, input_fn=None, out=None):
    """Show a game one position at a time, reading a command before each (see STEP_HELP;
    `input_fn` defaults to `input`, `out` to stdout); the end of the input stops. Returns the
    ply shown last."""
    input_fn = input if input_fn is None else input_fn
    out = sys.stdout if out is None else out
    positions = list(replay_states(record))
    movers = [None] + [s.current_player() for _, _, s in positions[:-1]]
    last = len(positions) - 1
    ply = 0
    print(STEP_HELP, file=out)
    while True:
        number, word, state = positions[ply]
        if word is not None:
            print(printable(f"{number}. {'White' if movers[ply] == 0 else 'Black'} {word}"), file=out)
        else:
            print("start", file=out)
        print(state, file=out)
        if ply == last:
            print(printable(f"# end: {record['result']}" + (f" ({record['termination']})"
                                                            if record.get("termination") else "")), file=out)
        try:
            command = input_fn(f"[{ply}/{last}]> ").strip().lower()
        except EOFError:
            return ply
        if command in ("q", "quit"):
            return ply
        if command == "":
            ply = min(last, ply + 1)
        elif command in ("b", "back", "p"):
            ply = max(0, ply - 1)
        elif command == "e":
            ply = last
        elif command == "s":
            ply = 0
        elif command.isdigit():
            ply = min(last, int(command))
        else:
            print(STEP_HELP, file=out)
