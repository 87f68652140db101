"""Each move's search as a record keeps it, and the adjudication that may end a game early.

`MoveLog` is given to `play_game`: after every move it reads what the mover's agent reported
(`agent.last_stats`, read with .get: any key may be missing, and a value of the wrong type is
left out) into the record's `search` columns, and feeds the score to the `Adjudicator` of the
tournament's rules; with the solved rule, the position after each move is given to df-pn too.
The columns (`records.SEARCH_COLUMNS`) are lists aligned with `moves`,
null where the mover reported nothing; a column no move reported is left out, so a game of
agents that report nothing costs `"search":{}`.
"""
import math
import numbers

from .adjudication import Adjudicator, SolvedJudge
from .records import MAX_SCORE, PV_MOVES, SEARCH_COLUMNS


_KEYS = frozenset(SEARCH_COLUMNS)


def _count(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and 0 <= value < 1 << 63


def _number(value, limit):
    return (isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
            and abs(value) <= limit)


def _short(value):
    """Return a float with 5 significant digits (what a record needs, in fewer bytes)."""
    return float(f"{float(value):.5g}")


def _pv_words(state, pv):
    """Return the first PV_MOVES actions of `pv` in notation, played from `state`, stopping at
    the first that is not legal."""
    if not isinstance(pv, (list, tuple)) or not pv:
        return None
    line = state.clone()
    words = []
    for action in pv[:PV_MOVES]:
        if not _count(action) or line.is_terminal() or not line.is_legal(int(action)):
            break
        words.append(line.action_to_string(int(action)))
        line.apply(int(action))
    return words or None


def search_entry(state, stats):
    """Return {column: value} of what an agent reported for its move from `state` (only the
    columns it reported, each checked)."""
    if not isinstance(stats, dict) or not stats:
        return {}
    out = {}
    score = stats.get("score")
    if _number(score, MAX_SCORE):
        out["score"] = _short(score)
    for key in ("depth", "nodes", "simulations"):
        if _count(stats.get(key)):
            out[key] = int(stats[key])
    seconds = stats.get("time")
    if _number(seconds, 1e9) and seconds >= 0:
        out["time"] = float(f"{float(seconds):.4g}")
    pv = _pv_words(state, stats.get("pv"))
    if pv is not None:
        out["pv"] = pv
    return out


class MoveLog:
    """The `search` columns of one game, filled move by move, and its adjudication (`rules`:
    `parse_adjudication`'s dict, or None)."""

    def __init__(self, rules=None):
        self.columns = {}
        self.plies = 0
        self.judge = Adjudicator(rules) if rules else None
        self.solved = SolvedJudge(rules["solved"]) if rules and "solved" in rules else None
        self.verdict = None

    def add(self, state, agent):
        """Note the move the agent (whose side is to move in `state`) has just chosen."""
        stats = getattr(agent, "last_stats", None)
        reported = isinstance(stats, dict) and not _KEYS.isdisjoint(stats)
        entry = search_entry(state, stats) if reported else {}
        if entry or self.columns:  # agents that report nothing cost only this test
            for name in SEARCH_COLUMNS:
                value = entry.get(name)
                column = self.columns.get(name)
                if column is None:
                    if value is None:
                        continue
                    column = self.columns[name] = [None] * self.plies
                column.append(value)
        self.plies += 1
        if self.judge is not None:
            self.verdict = self.judge.add(state.current_player(), entry.get("score"), self.plies)

    def decided(self, state):
        """Return the verdict that ends the game in `state`, after the last move added (None if
        the rules let it go on, or if the game's own rules have ended it)."""
        if state.is_terminal():
            self.verdict = None
        elif self.verdict is None and self.solved is not None:
            self.verdict = self.solved.verdict(state, self.plies)
        return self.verdict

    def fields(self):
        """Return the record fields: `search`, and `adjudication` if a rule ended the game."""
        out = {"search": self.columns}
        if self.verdict is not None:
            out["adjudication"] = {k: self.verdict[k] for k in ("rule", "ply", "scores", "nodes")
                                   if k in self.verdict}
        return out
