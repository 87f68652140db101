"""Tournaments: a schedule of games played in parallel, each appended to a records file as it ends.

    >>> from agents.tournament import Tournament
    >>> result = Tournament("flow", ["random", "alphabeta:depth=2"], games=10, out="flow.jsonl").run()
    >>> print(result.report())          # crosstable and ratings

The schedule is a round robin over the agents (or a gauntlet: one agent against each of the
others), `games` games per pairing, as `games / 2` openings each played twice with the colours
swapped (the two games of an opening are a *pair*). The package's parts, each doing one job:

    config.py      TournamentConfig: every setting, checked; the embedded default tournament
    schedule.py    the slots, made on demand from the settings and the seed; openings
    suites.py      the opening suites shipped in the package; when two positions are the same
    runner.py      Tournament: the run, the records written once per slot, resume
    output.py      the records file: checked, locked, read once, appended to
    games.py       one slot's game in any worker
    workers.py     worker processes on this machine
    ray_runner.py  the Ray backend
    sprt.py        the SPRT of a two-agent match, kept up to date game by game
"""
from .config import (DEFAULT_AGENTS, DEFAULT_GAMES, DEFAULT_MOVE_LIMIT, DEFAULT_OPENINGS, TournamentConfig,
                     TournamentError, default_openings, parse_sprt)
from .games import play_slot
from .runner import Tournament, TournamentResult
from .schedule import Schedule, derive_seed, random_opening

__all__ = ["Tournament", "TournamentConfig", "TournamentResult", "TournamentError", "Schedule", "DEFAULT_AGENTS",
           "DEFAULT_GAMES", "DEFAULT_MOVE_LIMIT", "DEFAULT_OPENINGS", "default_openings", "derive_seed", "random_opening", "parse_sprt",
           "play_slot"]


# Names of the single-file tournament module, now in the package's files.
_MOVED = {
    "warm_up": "agents.warmup:warm_up",
    "start_ray": "agents.tournament.ray_runner:start_ray",
    "MAX_WORKER_DEATHS": "agents.tournament.workers:MAX_WORKER_DEATHS",
    "PREFETCH": "agents.tournament.workers:PREFETCH",
    "SPRT_MODELS": "agents.tournament.config:SPRT_MODELS",
    "OPENING_UNITS": "agents.tournament.schedule:OPENING_UNITS",
}


def __getattr__(name):
    """Answer a name that moved away (ludo_flow.moved)."""
    from ludo_flow.moved import moved
    return moved(__name__, _MOVED, name)
