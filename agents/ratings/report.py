"""Rating result records, and the reports people read: cross table, ratings table, match block, JSON.

:func:`rate_records` rates a list of record dicts (``white``, ``black``, ``result``, and
optionally ``pair``, ``game``, ``variant``, ``params``) into a :class:`RatedRecords`;
:func:`format_report` prints one as the text report of ``ludo-flow ratings`` and of a
tournament. Every name or result read from records is printed through
:func:`~agents.ratings.match.printable` (control characters escaped), and no number is
printed as ``-0.0``.
"""
from __future__ import annotations

import dataclasses
import json
import math
from collections import OrderedDict, defaultdict

import numpy as np

from ..compact import HashCodes, key_hash
from .bradley_terry import BradleyTerryFit, GameCounts, bradley_terry, bradley_terry_counts, parse_games
from .match import RESULT_SCORES, Match, RatingsError, Result, match_stats, plain, printable, shown


@dataclasses.dataclass(frozen=True)
class Crosstable(Result):
    """Each agent's points and games against each other agent, both colours together."""

    agents: tuple        # the row (and column) order
    points: dict         # points[a][b]: a's points against b; pairs that never met have no entry
    games: dict          # games[a][b]: games of a against b


@dataclasses.dataclass(frozen=True)
class RatedRecords(Result):
    """What :func:`rate_records` returns."""

    ratings: BradleyTerryFit
    crosstable: Crosstable       # agents in rating order
    match: Match | None          # with exactly two agents, the first one's match statistics
    games: int                   # rated games
    skipped: int                 # records not rated (a result other than 1-0, 0-1, 1/2-1/2)
    skipped_results: dict        # {result as written: records} of those


def crosstable(games):
    """Return the Crosstable of games, agents sorted by overall score (best first, then by name).

    ``games`` are (white, black, white_score[, pair_id]) tuples as for bradley_terry.
    """
    rows = parse_games(games)
    points = defaultdict(lambda: defaultdict(float))
    played = defaultdict(lambda: defaultdict(int))
    for w, b, s, _ in rows:
        points[w][b] += s
        points[b][w] += 1.0 - s
        played[w][b] += 1
        played[b][w] += 1
    names = list(OrderedDict.fromkeys(x for r in rows for x in r[:2]))

    def total(a):
        return sum(points[a].values()) / sum(played[a].values())

    agents = tuple(sorted(names, key=lambda a: (-total(a), str(a))))
    return Crosstable(agents, {a: dict(points[a]) for a in agents}, {a: dict(played[a]) for a in agents})


# ---------------------------------------------------------------------------------------------
# records
# ---------------------------------------------------------------------------------------------

_JSON_TYPES = {type(None): "null", bool: "a boolean", int: "a number", float: "a number",
               str: "a string", list: "a list", dict: "an object"}


def _kind(value):
    """Return what a JSON value is, for an error message ("null", "a list", ...)."""
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _is_name(value):
    """Return whether value can name an agent or a pair: a string or a 64-bit integer (not a boolean)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)
                                      and -2 ** 63 <= value < 2 ** 63)


def _rules(record, k):
    """Return (key, label) of the game a record was played in: game, variant and params."""
    if not isinstance(record, dict):
        raise RatingsError(f"record {k} is {_kind(record)}, not an object")
    game, variant, params = record.get("game"), record.get("variant"), record.get("params")
    try:
        key = json.dumps([game, variant, params], sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        raise RatingsError(f"record {k}: game, variant and params must be plain JSON values") from None
    if game is None and variant is None and params is None:
        return key, "(no game given)"
    words = [str(game), str(variant)] if variant is not None else [str(game)]
    if isinstance(params, dict):
        words += [f"{p}={v}" for p, v in sorted(params.items(), key=lambda kv: str(kv[0]))]
    elif params is not None:
        words.append(f"params={params}")
    label = printable(" ".join(words))
    return key, label if len(label) <= 80 else label[:77] + "..."


class RuleSets:
    """The games records were played in (game, variant, params), counted one record at a time."""

    def __init__(self):
        self._seen = OrderedDict()          # key -> [label, records]
        self._known = {}                    # repr of (game, variant, params) -> key, label

    def add(self, record, k):
        """Count record number `k` (RatingsError if it is not an object or its rules are not JSON)."""
        if not isinstance(record, dict):
            raise RatingsError(f"record {k} is {_kind(record)}, not an object")
        # equal reprs, equal JSON: the key of the rules met before is looked up, not made again
        short = repr((record.get("game"), record.get("variant"), record.get("params")))
        found = self._known.get(short)
        if found is None:
            found = _rules(record, k)
            if len(self._known) < 1000:     # a file of ever new rules is not held in memory
                self._known[short] = found
        key, label = found
        entry = self._seen.get(key)
        if entry is None:
            self._seen[key] = [label, 1]
        else:
            entry[1] += 1

    def sets(self):
        """Return {label: number of records}, as `rule_sets`."""
        out = {}
        for label, n in self._seen.values():
            while label in out:       # two games that print alike (a param 200 and "200") stay apart
                label += "'"
            out[label] = n
        return out


def rule_sets(records):
    """Return {label: number of records} of the games records were played in: game, variant, params.

    A label reads ``flow standard max_turns=200``; records of two labels are never rated together."""
    sets = RuleSets()
    for k, record in enumerate(records):
        sets.add(record, k)
    return sets.sets()


def describe_rule_sets(sets):
    """Return rule_sets as text: ``flow standard max_turns=200 (30 records); ...``."""
    return "; ".join(f"{label} ({n} record{'' if n == 1 else 's'})" for label, n in sets.items())


def _game_of(record, k):
    """Return (white, black, white_score or None, pair or None) of a record, checking each field."""
    if not isinstance(record, dict):
        raise RatingsError(f"record {k} is {_kind(record)}, not an object")
    missing = [key for key in ("white", "black", "result") if key not in record]
    if missing:
        raise RatingsError(f"record {k} has no {', '.join(missing)}")
    white, black, result, pair = record["white"], record["black"], record["result"], record.get("pair")
    for side, name in (("white", white), ("black", black)):
        if not _is_name(name):
            raise RatingsError(f"record {k}: {side} must be an agent's name (a string), got {_kind(name)}")
    if white == black:
        raise RatingsError(f"record {k}: agent {shown(white)} plays itself")
    if not isinstance(result, str):
        raise RatingsError(f"record {k}: result must be a string (1-0, 0-1, 1/2-1/2 or *), "
                           f"got {_kind(result)}")
    if pair is not None and not _is_name(pair):
        raise RatingsError(f"record {k}: pair must be a string or an integer, got {_kind(pair)}")
    return white, black, RESULT_SCORES.get(result.strip()), pair


def rate_records(records, anchor=None, **options):
    """Return the RatedRecords (joint ratings, crosstable, two-agent match, counts) of result records.

    Each record is a dict with ``white``, ``black`` (agent names) and ``result`` ("1-0", "0-1",
    "1/2-1/2"; another string, such as "*", is skipped and counted) and optionally ``pair`` (the
    id shared by the two games of one opening). ``ratings`` is the :func:`bradley_terry` fit
    (``options`` are passed on to it), ``crosstable`` the :func:`crosstable` with its agents in
    rating order. With exactly two agents, ``match`` holds the statistics of the first agent to
    appear (as White of the first rated record) against the other, per game and per pair (from
    the pairs whose two games both finished with colours swapped); otherwise ``match`` is None.

    ``records`` may be any iterable (a stream of ``agents.records.iter_records``): it is read
    once and counted as it goes (:class:`RecordCounts`), so the memory does not grow with the
    records, except with sandwich or bootstrap intervals (``errors="sandwich"``,
    ``bootstrap=n``), which keep the games one by one.

    Raises RatingsError (naming the record's index) on a record that is not a dict or lacks a
    field or has one of the wrong type; on records of different games, variants or params
    (never pooled); on no rated game; and as bradley_terry does.
    """
    per_game = bool(options.get("bootstrap")) or options.get("errors", "hessian") != "hessian"
    counts = RecordCounts(keep_games=per_game)
    for record in records:
        counts.add(record)
    return counts.rate(anchor=anchor, **options)


# the state of a pair id in RecordCounts, from the side of the agent the match is counted for:
# 1..6 one game (1 + 3 * that agent had White + 2 * its score), 7..11 two games with colours
# swapped (7 + the pentanomial index), 12 two games with the same colours, 13 more than two
_ONE, _SWAPPED, _SAME, _MORE = 1, 7, 12, 13


class RecordCounts:
    """Result records counted one at a time: what :func:`rate_records` needs of them, never the
    records themselves (`add(record)`, then `rate()`).

    Kept: the games and White's points of each ordered pair of agents, which agents and pairs
    appeared first (so the fit and the tables equal those of the records in a list), results
    not rated, the rule sets, and for the two-agent match its per-game counts, pentanomial pair
    counts and a code for each pair id (a 128-bit hash of it in `agents.compact.HashCodes`, or,
    with `pairs_of_two`, a dict of the pairs with one game so far, forgotten when the second
    comes: for a file where no pair id has more than two records, such as a tournament's own).

    `add(record, rank)` counts records given out of order: `rank` (such as the schedule slot)
    says where the record stands, and the result equals that of the records sorted by rank.
    A bad record is reported by `rate()`, as `rate_records` does, after the others were read."""

    def __init__(self, pairs_of_two=False, keep_games=False):
        self.records = 0                   # records added
        self.games = 0                     # of them rated
        self._error = None                 # the first bad record's error
        self._rules_error = None
        self._rules = RuleSets()
        self._skipped = {}                 # result -> [records, first rank]
        self._agents = {}                  # name -> (rank, 0 for White or 1 for Black) where first seen
        self._met = {}                     # frozenset of two agents -> (rank, (white, black)) of their first game
        self._played = {}                  # (white, black) -> [games, White's points]
        self._side = None                  # the agent the match's counts are kept for (the first seen)
        self._first = None                 # (rank, White) of the first rated game
        self._per_game = [0, 0, 0]         # L, D, W of _side
        self._penta = [0] * 5              # LL, LD, WL+DD, WD, WW of _side over pairs with colours swapped
        self._pair_ids = 0
        self._pairs_of_two = pairs_of_two
        self._pairs = {} if pairs_of_two else HashCodes()
        self._games = [] if keep_games else None

    def add(self, record, rank=None):
        """Count one record (`rank`: its place in the order the result must match; default: the
        order of adding)."""
        k = self.records
        self.records += 1
        if self._error is not None:
            return
        try:
            white, black, score, pair = _game_of(record, k)
        except RatingsError as err:
            self._error = err
            return
        if self._rules_error is None:
            try:
                self._rules.add(record, k)
            except RatingsError as err:
                self._rules_error = err
        rank = k if rank is None else rank
        if score is None:
            entry = self._skipped.get(record["result"])
            if entry is None:
                self._skipped[record["result"]] = [1, rank]
            else:
                entry[0] += 1
                entry[1] = min(entry[1], rank)
            return
        self.games += 1
        if self._games is not None:
            self._games.append((white, black, score) + ((pair,) if pair is not None else ()))
        agents = self._agents
        for side, name in ((0, white), (1, black)):
            seen = agents.get(name)
            if seen is None or (rank, side) < seen:
                agents[name] = (rank, side)
        key = frozenset((white, black))
        met = self._met.get(key)
        if met is None or rank < met[0]:
            self._met[key] = (rank, (white, black))
        entry = self._played.get((white, black))
        if entry is None:
            self._played[(white, black)] = [1, score]
        else:
            entry[0] += 1
            entry[1] += score
        if self._first is None or rank < self._first[0]:
            self._first = (rank, white)
        if self._side is None:
            self._side = white
        as_white = white == self._side
        x = score if as_white else 1.0 - score
        self._per_game[int(2 * x)] += 1
        if pair is not None:
            self._count_pair(pair, as_white, int(2 * x))

    def _count_pair(self, pair, as_white, twice):
        """Count a rated game of a pair id: `as_white` if the match's agent had White, `twice`
        its score times two."""
        pairs = self._pairs
        if not self._pairs_of_two:  # read, then written: hashed once
            pair = key_hash(pair)
            code = pairs.get_hashed(pair)
        else:
            code = pairs.get(pair, 0)
        if code == 0:
            self._pair_ids += 1
            new = _ONE + 3 * as_white + twice
        elif code < _SWAPPED:
            before = code - _ONE
            if before // 3 != as_white:
                index = before % 3 + twice
                self._penta[index] += 1
                new = _SWAPPED + index
            else:
                new = _SAME
            if self._pairs_of_two:
                del pairs[pair]
                return
        elif code < _SAME:
            self._penta[code - _SWAPPED] -= 1
            new = _MORE
        else:
            new = _MORE
        if self._pairs_of_two:
            pairs[pair] = new
        else:
            pairs.put_hashed(pair, new)

    def game_counts(self):
        """Return the GameCounts of the rated games (agents and pairs in the order they first appeared)."""
        names = sorted(self._agents, key=self._agents.get)
        index = {name: i for i, name in enumerate(names)}
        pairs, games, points = [], [], []
        for _, (w, b) in sorted(self._met.values(), key=lambda met: met[0]):
            for x, y in ((w, b), (b, w)):
                n, won = self._played.get((x, y), (0, 0.0))
                pairs.append((index[x], index[y]))
                games.append(float(n))
                points.append(won)
        return GameCounts(tuple(names), tuple(pairs), np.array(games), np.array(points, dtype=float))

    def crosstable(self):
        """Return the Crosstable of the rated games (agents by score, as :func:`crosstable`)."""
        points, played = {}, {}
        for _, (w, b) in sorted(self._met.values(), key=lambda met: met[0]):
            gw, pw = self._played.get((w, b), (0, 0.0))
            gb, pb = self._played.get((b, w), (0, 0.0))
            points.setdefault(w, {})[b] = 0.0 + pw + (gb - pb)
            points.setdefault(b, {})[w] = 0.0 + (gw - pw) + pb
            played.setdefault(w, {})[b] = gw + gb
            played.setdefault(b, {})[w] = gw + gb
        names = sorted(self._agents, key=self._agents.get)

        def total(a):
            return sum(points[a].values()) / sum(played[a].values())

        agents = tuple(sorted(names, key=lambda a: (-total(a), str(a))))
        return Crosstable(agents, {a: points[a] for a in agents}, {a: played[a] for a in agents})

    def match(self):
        """Return the Match of a two-agent set of games (from the first rated game's White), else None."""
        if len(self._agents) != 2:
            return None
        a = self._first[1]
        b = next(name for name in self._agents if name != a)
        per_game, penta = list(self._per_game), list(self._penta)
        if a != self._side:
            per_game.reverse()
            penta.reverse()
        return Match(a, b, match_stats(per_game), match_stats(penta) if sum(penta) else None,
                     self._pair_ids - sum(penta))

    def rate(self, anchor=None, **options):
        """Return the RatedRecords of the records added (RatingsError as `rate_records`)."""
        if self._error is not None:
            raise self._error
        if self._rules_error is not None:
            raise self._rules_error
        sets = self._rules.sets()
        if len(sets) > 1:
            raise RatingsError(f"the records mix {len(sets)} games or rule sets, which are never rated "
                               f"together: {describe_rule_sets(sets)}; rate each apart")
        n_skipped = sum(n for n, _ in self._skipped.values())
        if not self.games:
            raise RatingsError(f"no rated games among {n_skipped} record(s) (results must be 1-0, 0-1 or 1/2-1/2)")
        if self._games is not None:
            fit = bradley_terry(self._games, anchor=anchor, **options)
        else:
            fit = bradley_terry_counts(self.game_counts(), anchor=anchor, **options)
        # Rows in rating order: in a sparse schedule the raw score says little about strength.
        table = dataclasses.replace(self.crosstable(), agents=fit.agents)
        skipped = {result: n for result, (n, _) in sorted(self._skipped.items(), key=lambda kv: kv[1][1])}
        return RatedRecords(fit, table, self.match(), self.games, n_skipped, skipped)


# ---------------------------------------------------------------------------------------------
# text
# ---------------------------------------------------------------------------------------------

def fixed(x, digits=1):
    """Return x with `digits` decimals, never as a negative zero ("-0.0" becomes "0.0")."""
    text = f"{x:.{digits}f}"
    if text.startswith("-") and not any(c in "123456789" for c in text):
        return text[1:]
    return text


def _name(name):
    """Return an agent's name as printed: a string, control characters escaped."""
    return printable(str(name))


def _table(header, rows, right):
    """Return aligned plain-text lines: columns padded to the widest cell, right-aligned where asked."""
    widths = [max(len(str(r[c])) for r in [header] + rows) for c in range(len(header))]

    def line(r):
        cells = [str(v).rjust(w) if right[c] else str(v).ljust(w) for c, (v, w) in enumerate(zip(r, widths))]
        return "  ".join(cells).rstrip()

    return [line(header), line(["-" * w for w in widths])] + [line(r) for r in rows]


def _fit_of(result):
    """Return the BradleyTerryFit of a bradley_terry or rate_records result."""
    if isinstance(result, RatedRecords):
        return result.ratings
    if isinstance(result, BradleyTerryFit):
        return result
    raise RatingsError("expected the BradleyTerryFit of bradley_terry or the RatedRecords of rate_records")


def format_ratings_table(result):
    """Return a plain-text table of a bradley_terry (or rate_records) result, best agent first.

    Columns: rank, agent, Elo, the 95 % interval as -/+ distances, games, score %, and
    LOS = P(this agent is stronger than the next one down); then the first-move advantage and
    what the ratings are relative to.
    """
    fit = _fit_of(result)
    rows = []
    for k, e in enumerate(fit.ratings):
        los_next = f"{fixed(100 * fit.los[k][k + 1])}%" if k + 1 < len(fit.ratings) else ""
        minus, plus = max(e.elo - e.low, 0.0), max(e.high - e.elo, 0.0)
        bars = ["-", "-"] if minus == plus == 0.0 else [_signed("-", minus), _signed("+", plus)]
        rows.append([k + 1, _name(e.agent), fixed(e.elo), *bars, e.games, f"{fixed(100 * e.score)}%", los_next])
    header = ["#", "agent", "Elo", "-95%", "+95%", "games", "score", "LOS next"]
    lines = _table(header, rows, [True, False, True, True, True, True, True, True])
    fma = fit.first_move_advantage
    if fma.fitted:
        lines.append(f"first-move advantage: {fixed(fma.elo)} Elo (95%: {fixed(fma.low)} .. {fixed(fma.high)})")
    else:
        lines.append("first-move advantage: not fitted (fixed at 0)")
    reference = f"anchor {_name(fit.anchor)} = 0" if fit.anchor is not None else "mean of the agents = 0"
    method = fit.interval if fit.interval != "bootstrap" else f"bootstrap, {fit.bootstrap} resamples"
    lines.append(f"{fit.games} games; ratings relative to {reference}; intervals: {method}; "
                 f"prior: {fit.prior_draws + 0.0:g} virtual draw(s) per pair that met")
    return "\n".join(lines)


def _signed(sign, x):
    """Return a distance x >= 0 with one decimal after `sign`, or unsigned where it rounds to 0."""
    text = fixed(x)
    return text if float(text) == 0.0 else sign + text


def _fmt_points(x):
    return f"{x:.2f}".rstrip("0").rstrip(".")


def format_crosstable(table):
    """Return a plain-text cross table: row agent's points / games against each numbered column agent."""
    if isinstance(table, RatedRecords):
        table = table.crosstable
    if not isinstance(table, Crosstable):
        raise RatingsError("expected the Crosstable of crosstable or the RatedRecords of rate_records")
    agents = table.agents
    rows = []
    for k, a in enumerate(agents):
        pts = sum(table.points.get(a, {}).values())
        n = sum(table.games.get(a, {}).values())
        row = [k + 1, _name(a), f"{_fmt_points(pts)}/{n}", f"{fixed(100 * pts / n)}%" if n else ""]
        for b in agents:
            if b == a:
                row.append("-")
            elif b in table.games.get(a, {}):
                row.append(f"{_fmt_points(table.points[a][b])}/{table.games[a][b]}")
            else:
                row.append("")
        rows.append(row)
    header = ["#", "agent", "points", "score"] + [str(k + 1) for k in range(len(agents))]
    return "\n".join(_table(header, rows, [True, False, True, True] + [True] * len(agents)))


def format_match(match):
    """Return the text block of a two-agent Match: Elo +/- (95 %), LOS and nElo per game and per pair."""
    if not isinstance(match, Match):
        raise RatingsError("expected the Match of rate_records")

    def stats(s):
        return (f"Elo {fixed(s.elo)} +/- {fixed(s.error)}, LOS {fixed(100 * s.los)}%, "
                f"nElo {fixed(s.nelo)} +/- {fixed(s.nelo_error)}")

    losses, draws, wins = match.per_game.counts
    lines = [f"{_name(match.agent)} against {_name(match.opponent)}:",
             f"  per game: {wins} won, {draws} drawn, {losses} lost: {stats(match.per_game)}"]
    if match.per_pair is not None:
        counts = match.per_pair.counts
        named = ", ".join(f"{k} {n}" for k, n in zip(("LL", "LD", "WL+DD", "WD", "WW"), counts))
        lines.append(f"  per pair: {sum(counts)} pairs ({named}): {stats(match.per_pair)}")
    else:
        lines.append("  per pair: no complete pair (two games of one opening, colours swapped)")
    if match.incomplete_pairs:
        lines.append(f"  {match.incomplete_pairs} pair(s) without both games rated, left out per pair")
    return "\n".join(lines)


def format_skipped(rated):
    """Return the line saying which records rate_records skipped and why ("" if none)."""
    if not rated.skipped:
        return ""
    why = ", ".join(f"{n} with result {printable(repr(result[:40]))}"
                    for result, n in rated.skipped_results.items())
    return (f"{rated.skipped} record(s) skipped, not a finished game (results must be 1-0, 0-1 "
            f"or 1/2-1/2): {why}")


def format_report(rated):
    """Return the text report of a rate_records result: crosstable, ratings, two-agent match, skipped."""
    if not isinstance(rated, RatedRecords):
        raise RatingsError("expected the RatedRecords of rate_records")
    parts = [format_crosstable(rated.crosstable), format_ratings_table(rated)]
    if rated.match is not None:
        parts.append(format_match(rated.match))
    if rated.skipped:
        parts.append(format_skipped(rated))
    return "\n\n".join(parts)


# ---------------------------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------------------------

def ratings_json(result):
    """Return a copy of any result of this package made of JSON types only (str keys, finite floats or None)."""
    def clean(x):
        if isinstance(x, dict):
            return {str(k): clean(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        if isinstance(x, (bool, np.bool_)) or x is None or isinstance(x, str):
            return bool(x) if isinstance(x, np.bool_) else x
        if isinstance(x, (int, np.integer)):
            return int(x)
        if isinstance(x, (float, np.floating)):
            return float(x) if math.isfinite(x) else None
        return str(x)

    return clean(plain(result))


def report_json(rated):
    """Return the object ``ludo-flow ratings --json`` prints for a rate_records result."""
    fit = rated.ratings
    return ratings_json({
        "ratings": fit.ratings, "first_move_advantage": fit.first_move_advantage,
        "anchor": fit.anchor, "los": {"agents": fit.agents, "matrix": fit.los},
        "crosstable": rated.crosstable, "match": rated.match, "games": rated.games,
        "skipped": rated.skipped})
