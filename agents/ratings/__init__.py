"""Ratings of agents from game results: two-agent match statistics, joint Bradley-Terry ratings, reports.

Pure functions over results (a list of dicts with ``white``, ``black`` and ``result``, or
``(white, black, white_score[, pair_id])`` tuples), so results written by any program can be
rated; they never read agents. Three modules, bottom up:

* :mod:`agents.ratings.match`: Elo, nElo and LOS of a two-agent match from its counts, the GSPRT
  of fishtest and fastchess (``match_elo``, ``normalized_elo``, ``sprt_llr``, ``sprt_bounds``,
  ``sprt_decision``, ``game_counts``, ``pair_counts``), and :class:`RatingsError`;
* :mod:`agents.ratings.bradley_terry`: ``bradley_terry(games)``, one joint fit of every agent and
  the first-move advantage, returning a frozen :class:`BradleyTerryFit`;
* :mod:`agents.ratings.report`: ``rate_records(records)`` (a frozen :class:`RatedRecords`), the
  text report (``format_report``) and JSON (``ratings_json``). Records are counted as they are
  read (:class:`RecordCounts`; the fit on counts is ``bradley_terry_counts``), so a stream of a
  million records is rated in memory that does not grow with them.

Every name is re-exported here: ``from agents import ratings; ratings.match_elo([96, 111, 136])``.
``agents.ratings.bradley_terry`` is the function (it hides its module's name here); import from
the module with ``from agents.ratings.bradley_terry import BradleyTerryFit``.
The results are frozen dataclasses (``fit.ratings[0].elo``); ``as_dict()`` gives the plain
dicts and lists, and reading them as dicts (``fit["ratings"]``) still works with a
DeprecationWarning.
"""
from .match import (K, NELO_PER_T, REGULARIZE, RESULT_SCORES, Z95, Match, MatchStats, RatingsError,
                    elo_to_score, game_counts, match_elo, match_stats, normalized_elo, pair_counts,
                    plain, printable, score_to_elo, shown, sprt_bounds, sprt_decision, sprt_llr)
from .bradley_terry import (AgentRating, BradleyTerryFit, FirstMoveAdvantage, GameCounts, bradley_terry,
                            bradley_terry_counts, parse_games)
from .report import (Crosstable, RatedRecords, RecordCounts, RuleSets, crosstable, describe_rule_sets, fixed,
                     format_crosstable, format_match, format_ratings_table, format_report, format_skipped, rate_records,
                     ratings_json, report_json, rule_sets)

__all__ = [
    "match_elo", "normalized_elo", "sprt_llr", "sprt_bounds", "sprt_decision",
    "game_counts", "pair_counts", "match_stats", "bradley_terry", "bradley_terry_counts", "parse_games", "crosstable",
    "format_ratings_table", "format_crosstable", "format_match", "format_skipped", "format_report",
    "rate_records", "rule_sets", "describe_rule_sets", "ratings_json", "report_json",
    "elo_to_score", "score_to_elo", "fixed", "printable", "plain", "shown", "RESULT_SCORES", "Z95", "K", "NELO_PER_T", "REGULARIZE",
    "RatingsError", "MatchStats", "Match", "AgentRating", "FirstMoveAdvantage", "BradleyTerryFit",
    "Crosstable", "RatedRecords", "GameCounts", "RecordCounts", "RuleSets",
]
