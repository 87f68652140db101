"""Watching recorded games: an HTML replay page, a notebook viewer, GIF and animated SVG.

    >>> from agents.records import load_records
    >>> from agents.viewer import view
    >>> records = load_records("games.jsonl")
    >>> view(records)            # in Jupyter: a game list, the board, moves, slider
    >>> view(records[0]).save("game.html")

`ludo-flow replay FILE --html OUT.html` writes the same page; `ludo-flow serve GAME` serves a
page to play an agent in the browser (`agents.viewer.server`). See docs/viewer.md.
"""
from typing import NamedTuple

from agents.records import RecordError, printable

from .page import notebook_html, page_html, replay_html, viewer_data

__all__ = ["Viewer", "view", "replay_html", "write_html"]


class Viewer:
    """A replay of one or more records that Jupyter displays inline (HTML and JavaScript, no
    widgets): a game list when there are several, the board at every ply, the move list,
    keyboard arrows (click the viewer first), a slider, flip, play / pause, and the evaluation
    graph of records with per-move search data. A record that cannot be replayed is named above
    the board."""

    def __init__(self, records):
        if isinstance(records, dict):
            records = [records]
        records = list(records)
        if not all(isinstance(r, dict) for r in records):
            raise TypeError("view() takes a record (a dict) or a list of records")
        self.records = records

    def _repr_html_(self):
        return notebook_html(self.records)

    def html(self):
        """Return the whole self-contained page."""
        return replay_html(self.records)

    def save(self, path):
        """Write the self-contained page to `path`; return the path."""
        write_html(self.records, path)
        return path

    def __repr__(self):
        return f"<Viewer of {len(self.records)} game(s)>"


def view(records):
    """Return a Viewer of a record (dict) or of a list of records, for Jupyter."""
    return Viewer(records)


class PageWritten(NamedTuple):
    """What `write_html` wrote: the page's size in bytes, the games in it, and one message for
    each record left out because it cannot be replayed."""
    size: int
    games: int
    errors: list


def write_html(records, path, title="ludo_flow replay"):
    """Write the replay page of `records` to `path` (UTF-8); return a PageWritten. A record
    that cannot be replayed is left out (named in `errors` and on the page); RecordError, with
    nothing written, when no record can be."""
    records = list(records)
    data = viewer_data(records)
    if not data["games"]:
        if not records:
            raise RecordError("no records to write")
        raise RecordError(f"none of the {len(records)} record(s) can be replayed: {printable(data['errors'][0])}")
    text = page_html(data, title=title).encode("utf-8")
    with open(path, "wb") as fh:
        fh.write(text)
    return PageWritten(len(text), len(data["games"]), data["errors"])
