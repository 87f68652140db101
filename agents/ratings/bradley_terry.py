"""Joint ratings: one Bradley-Terry (logistic, Elo-scale) fit to all games at once.

:func:`bradley_terry` fits every agent's rating and a first-move (White) advantage together and
returns a :class:`BradleyTerryFit`; see its docstring for the prior used when an agent won or
lost every game, and for the three kinds of interval.
"""
from __future__ import annotations

import dataclasses
import math
from collections import OrderedDict
from typing import NamedTuple

import numpy as np

from .match import K, Z95, RatingsError, Result, _number, _phi, printable, shown


@dataclasses.dataclass(frozen=True)
class AgentRating(Result):
    """One agent's joint rating: Elo with its 95 % interval, games played and score."""

    agent: object        # the name (a spec string in records)
    elo: float
    low: float           # 95 % interval [low, high]
    high: float
    games: int
    score: float         # points / games


@dataclasses.dataclass(frozen=True)
class FirstMoveAdvantage(Result):
    """White's advantage on the Elo scale with its 95 % interval (all 0 when not fitted)."""

    elo: float
    low: float
    high: float
    fitted: bool


@dataclasses.dataclass(frozen=True)
class BradleyTerryFit(Result):
    """What :func:`bradley_terry` returns."""

    ratings: tuple                  # AgentRating, best first
    agents: tuple                   # the names in that order
    los: tuple                      # los[i][j] = P(r_i > r_j) in that order; 0.5 on the diagonal
    first_move_advantage: FirstMoveAdvantage
    anchor: object                  # the agent rated 0, or None (the mean is 0)
    interval: str                   # "hessian", "sandwich" or "bootstrap"
    bootstrap: int                  # resamples (0 unless interval is "bootstrap")
    prior_draws: float              # virtual draws per pair of agents that met
    games: int
    log_likelihood: float           # of the games (without the prior) at the fitted ratings

def parse_games(games):
    """Return a list of (white, black, score, pair_id) after validating every game (RatingsError if one is bad)."""
    rows = []
    for k, game in enumerate(games):
        if isinstance(game, (str, bytes)) or not hasattr(game, "__len__") or len(game) not in (3, 4):
            raise RatingsError(f"game {k}: expected (white, black, white_score[, pair_id]), got {shown(game)}")
        white, black, score = game[0], game[1], game[2]
        pair = game[3] if len(game) == 4 else None
        try:
            hash((white, black, pair))
        except TypeError:
            raise RatingsError(f"game {k}: agent names and pair id must be hashable, got {shown(game)}") from None
        if white == black:
            raise RatingsError(f"game {k}: agent {shown(white)} plays itself")
        try:
            score = float(score)
        except (TypeError, ValueError, OverflowError):
            raise RatingsError(f"game {k}: white_score must be a number in [0, 1], got {shown(score)}") from None
        if not 0.0 <= score <= 1.0:
            raise RatingsError(f"game {k}: white_score must be in [0, 1], got {score}")
        rows.append((white, black, score, pair))
    if not rows:
        raise RatingsError("no games to rate")
    return rows


def _components(n, edges):
    """Return the connected components (lists of vertex indices) of an undirected graph."""
    parent = list(range(n))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in edges:
        ri, rj = find(i), find(j)
        if ri != rj:
            parent[ri] = rj
    groups = OrderedDict()
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def _log_sigmoid(z):
    return -np.logaddexp(0.0, -z)


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


class _Model:
    """The aggregated data of a fit: one row per ordered (white, black) pair that met."""

    def __init__(self, n, white, black, ref, fit_first_move):
        self.n = n
        design = np.zeros((len(white), n + 1))
        rows = np.arange(len(white))
        design[rows, white] = 1.0
        design[rows, black] = -1.0
        design[:, n] = 1.0
        self.free = [i for i in range(n) if i != ref] + ([n] if fit_first_move else [])
        self.design = design[:, self.free]        # rows: ordered pairs, columns: free parameters

    def loglik(self, theta, weight, points):
        z = K * (self.design @ theta)
        return float(np.sum(points * _log_sigmoid(z) + (weight - points) * _log_sigmoid(-z)))

    def fit(self, weight, points, theta=None, max_iter=200):
        """Newton's method with step halving; return (theta, information matrix) or raise RatingsError."""
        a = self.design
        theta = np.zeros(a.shape[1]) if theta is None else theta.copy()
        current = self.loglik(theta, weight, points)
        for _ in range(max_iter):
            p = _sigmoid(K * (a @ theta))
            grad = K * (a.T @ (points - weight * p))
            info = (K * K) * (a.T * (weight * p * (1.0 - p))) @ a
            try:
                step = np.linalg.solve(info, grad)
            except np.linalg.LinAlgError:
                break
            t = 1.0
            while True:
                trial = theta + t * step
                value = self.loglik(trial, weight, points)
                if value >= current - 1e-12 * abs(current) or t < 1e-10:
                    break
                t *= 0.5
            theta, current = trial, value
            if np.max(np.abs(t * step)) < 1e-9:
                p = _sigmoid(K * (a @ theta))
                info = (K * K) * (a.T * (weight * p * (1.0 - p))) @ a
                if np.all(np.isfinite(theta)) and np.max(np.abs(theta)) < 1e5:
                    return theta, info
                break
        raise RatingsError("the maximum-likelihood ratings diverge (an agent, or a group of agents, won or "
                           "lost every game against the others); use prior_draws > 0")


def bradley_terry(games, anchor=None, bootstrap=0, seed=0, *, prior_draws=1.0, first_move=True,
                  errors="hessian"):
    """Return joint Elo ratings with 95 % intervals, first-move advantage and a LOS matrix.

    ``games``: iterable of ``(white, black, white_score)`` or ``(white, black, white_score,
    pair_id)``, white_score in [0, 1] (1, 0.5, 0 for a win, draw, loss).

    Model: P(White scores) = 1 / (1 + 10^(-(r_white - r_black + h) / 400)); the likelihood is
    score-weighted (a draw counts as half a win and half a loss), maximised jointly over all
    ratings r and the first-move advantage h (``first_move=False`` fixes h = 0) by Newton's method.
    Ratings are reported with ``anchor`` at 0, or with mean 0 when ``anchor`` is None.

    Prior (so the fit never diverges): every pair of agents that met gets ``prior_draws``
    virtual drawn games (default 1: half a draw with each agent as White), the BayesElo-style
    prior on rating differences (BayesElo uses 2). An agent that won every game therefore gets a
    large but finite rating, about what one draw among its games would give (Ordo's "floor" for
    perfect winners). ``prior_draws=0`` gives the plain MLE and raises RatingsError if it diverges.

    Intervals: ``errors="hessian"`` (default) uses the inverse of the observed information (of
    the posterior with the prior above), which treats every game as a Bernoulli trial and so is
    conservative when there are draws; ``errors="sandwich"`` uses the robust H^-1 J H^-1, with
    games of one pair (same pair id and agents) as one cluster; ``bootstrap=n > 0`` refits on n
    resamples of the games (of whole pairs where pair ids are given) and reports percentile
    intervals, with the LOS matrix from the bootstrap covariance. The mean-0 or anchor constraint
    is applied to the covariance by the linear map from the fitted parameters (so the anchor's
    interval is [0, 0] and mean-0 intervals are relative to the pool mean, as in Ordo).

    Returns a :class:`BradleyTerryFit`: ``ratings`` (a tuple of :class:`AgentRating`, best first;
    ``fit.ratings[0].elo``), ``agents`` (names in that order), ``los`` (``los[i][j]`` =
    P(r_i > r_j) in that order, normal approximation; 0.5 on the diagonal),
    ``first_move_advantage`` (a :class:`FirstMoveAdvantage`), ``anchor``, ``interval``
    ("hessian", "sandwich" or "bootstrap"), ``bootstrap``, ``prior_draws``, ``games``,
    ``log_likelihood``. Raises RatingsError on a bad game or option, an anchor that played no
    game, or games that split into groups that never met (naming the groups).
    """
    rows = parse_games(games)
    names = list(OrderedDict.fromkeys(x for r in rows for x in r[:2]))
    index = {name: i for i, name in enumerate(names)}
    # ordered (white, black) pairs, both orientations of every pair that met, as they first met
    pair_of = {}
    for w, b, _, _ in rows:
        for key in ((index[w], index[b]), (index[b], index[w])):
            pair_of.setdefault(key, len(pair_of))
    game_pair = np.array([pair_of[(index[w], index[b])] for w, b, _, _ in rows], dtype=np.intp)
    game_score = np.array([r[2] for r in rows])
    m = len(pair_of)
    counts = GameCounts(tuple(names), tuple(pair_of),
                        np.bincount(game_pair, minlength=m).astype(float),
                        np.bincount(game_pair, weights=game_score, minlength=m))
    return _fit(counts, anchor, _Options(bootstrap, seed, prior_draws, first_move, errors),
                _Games(rows, game_pair, game_score))


class GameCounts(NamedTuple):
    """What a joint fit needs of the games: the agents in order and, for each ordered
    (white, black) pair of agents that met (both orientations, in the order they first met),
    its games and White's points. `bradley_terry_counts` fits them."""

    agents: tuple      # names
    pairs: tuple       # (white index, black index) into agents
    games: object      # float array: games of each ordered pair (0 for an orientation never played)
    points: object     # float array: White's points in them


class _Options(NamedTuple):
    bootstrap: int
    seed: int
    prior_draws: float
    first_move: bool
    errors: str


class _Games(NamedTuple):
    """The games one by one (for the sandwich intervals and the bootstrap)."""

    rows: list
    pair: object       # each game's index into GameCounts.pairs
    score: object


def bradley_terry_counts(counts, anchor=None, bootstrap=0, seed=0, *, prior_draws=1.0, first_move=True,
                         errors="hessian"):
    """Return the :func:`bradley_terry` fit of games given as counts: a :class:`GameCounts`.

    Equal to ``bradley_terry(games)`` of the games counted, the agents and pairs in the order
    the games first named them; its memory does not grow with the games. Hessian intervals
    only: sandwich and bootstrap intervals need the games one by one (RatingsError)."""
    return _fit(counts, anchor, _Options(bootstrap, seed, prior_draws, first_move, errors), None)


def _fit(counts, anchor, options, per_game):
    """Fit the counts (with `per_game`, the games one by one, for sandwich or bootstrap intervals)."""
    bootstrap, seed, prior_draws, first_move, errors = options
    if errors not in ("hessian", "sandwich"):
        raise RatingsError(f"errors must be 'hessian' or 'sandwich', got {shown(errors)}")
    try:
        bootstrap = int(bootstrap)
    except (TypeError, ValueError, OverflowError):
        raise RatingsError(f"bootstrap must be a non-negative integer, got {shown(bootstrap)}") from None
    if bootstrap < 0:
        raise RatingsError(f"bootstrap must be a non-negative integer, got {bootstrap}")
    prior_draws = _number(prior_draws, "prior_draws")
    if not (math.isfinite(prior_draws) and prior_draws >= 0):
        raise RatingsError(f"prior_draws must be a finite number >= 0, got {prior_draws}")
    if (bootstrap or errors != "hessian") and per_game is None:
        raise RatingsError("sandwich and bootstrap intervals need the games one by one: use bradley_terry")
    if not len(counts.pairs) or not np.sum(counts.games):
        raise RatingsError("no games to rate")

    names = list(counts.agents)
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    if anchor is not None and not _is_key(anchor, index):
        raise RatingsError(f"anchor {printable(repr(anchor))} played no game; the agents are "
                           f"{', '.join(printable(str(a)) for a in names)}")

    played = np.asarray(counts.games, dtype=float)
    white = np.array([k[0] for k in counts.pairs], dtype=np.intp)
    black = np.array([k[1] for k in counts.pairs], dtype=np.intp)
    groups = _components(n, [k for k, g in zip(counts.pairs, played) if g > 0])
    if len(groups) > 1:
        described = "; ".join("{" + ", ".join(printable(str(names[i])) for i in g) + "}" for g in groups)
        raise RatingsError(f"the games are disconnected: {len(groups)} groups of agents never play "
                           f"each other, so their ratings cannot be compared: {described}; "
                           f"rate each group apart")

    m = len(counts.pairs)
    prior_weight = np.full(m, prior_draws / 2.0)
    prior_points = np.full(m, prior_draws / 4.0)

    ref = index[anchor] if anchor is not None else 0
    model = _Model(n, white, black, ref, first_move)

    def totals(game_weight):
        weight = np.bincount(per_game.pair, weights=game_weight, minlength=m) + prior_weight
        points = np.bincount(per_game.pair, weights=game_weight * per_game.score, minlength=m) + prior_points
        return weight, points

    won = np.asarray(counts.points, dtype=float)
    weight = played + prior_weight
    points = won + prior_points
    theta, info = model.fit(weight, points)

    # linear map from the free parameters to reported ratings (anchor or mean 0) and h
    embed = np.zeros((n + 1, len(model.free)))
    embed[model.free, np.arange(len(model.free))] = 1.0
    gauge = np.eye(n) - (np.outer(np.ones(n), np.eye(n)[index[anchor]]) if anchor is not None
                         else np.full((n, n), 1.0 / n))
    to_out = np.zeros((n + 1, n + 1))
    to_out[:n, :n] = gauge
    to_out[n, n] = 1.0
    transform = to_out @ embed                                   # (n + 1) x free
    estimate = transform @ theta

    info_inv = np.linalg.inv(info)
    if bootstrap > 0 or errors == "sandwich":
        # clusters: one per (pair id, agents), else one per game
        cluster_key = {}
        cluster = np.empty(len(per_game.rows), dtype=np.intp)
        for g, (w, b, _, pid) in enumerate(per_game.rows):
            key = ("pair", pid, frozenset((w, b))) if pid is not None else ("game", g)
            cluster[g] = cluster_key.setdefault(key, len(cluster_key))
        n_clusters = len(cluster_key)
    if bootstrap > 0:
        rng = np.random.default_rng(seed)
        samples = np.empty((bootstrap, n + 1))
        for b in range(bootstrap):
            multiplicity = np.bincount(rng.integers(0, n_clusters, n_clusters), minlength=n_clusters)
            w_b, p_b = totals(multiplicity[cluster].astype(float))
            theta_b, _ = model.fit(w_b, p_b, theta)
            samples[b] = transform @ theta_b
        cov = np.cov(samples, rowvar=False)
        low, high = np.percentile(samples, [2.5, 97.5], axis=0)
        interval = "bootstrap"
    else:
        if errors == "sandwich":
            p = _sigmoid(K * (model.design @ theta))
            residual = K * (per_game.score - p[per_game.pair])
            per_row = model.design[per_game.pair] * residual[:, None]
            per_cluster = np.zeros((n_clusters, per_row.shape[1]))
            np.add.at(per_cluster, cluster, per_row)
            cov_free = info_inv @ (per_cluster.T @ per_cluster) @ info_inv
        else:
            cov_free = info_inv
        cov = transform @ cov_free @ transform.T
        half = Z95 * np.sqrt(np.maximum(np.diag(cov), 0.0))
        low, high = estimate - half, estimate + half
        interval = errors

    games_played = np.zeros(n)
    points_won = np.zeros(n)
    np.add.at(games_played, white, played)
    np.add.at(games_played, black, played)
    np.add.at(points_won, white, won)
    np.add.at(points_won, black, played - won)

    order = sorted(range(n), key=lambda i: (-estimate[i], str(names[i])))
    ratings = tuple(AgentRating(names[i], float(estimate[i]), float(low[i]), float(high[i]),
                                int(games_played[i]), float(points_won[i] / games_played[i]))
                    for i in order)
    los = []
    for i in order:
        line = []
        for j in order:
            if i == j:
                line.append(0.5)
                continue
            var = cov[i, i] + cov[j, j] - 2.0 * cov[i, j]
            diff = estimate[i] - estimate[j]
            line.append(float(_phi(diff / math.sqrt(var))) if var > 0 else (0.5 if diff == 0 else float(diff > 0)))
        los.append(tuple(line))
    if first_move:
        fma = FirstMoveAdvantage(float(estimate[n]), float(low[n]), float(high[n]), True)
    else:
        fma = FirstMoveAdvantage(0.0, 0.0, 0.0, False)
    return BradleyTerryFit(
        ratings=ratings, agents=tuple(names[i] for i in order), los=tuple(los),
        first_move_advantage=fma, anchor=anchor, interval=interval, bootstrap=bootstrap,
        prior_draws=prior_draws, games=int(np.sum(played)),
        log_likelihood=model.loglik(theta, weight - prior_weight, points - prior_points))


def _is_key(value, mapping):
    """Return whether value is a key of mapping (False for an unhashable value)."""
    try:
        return value in mapping
    except TypeError:
        return False
