"""Two-agent match statistics: Elo, nElo and LOS from result counts, and the GSPRT.

Small pure functions on numbers and plain Python containers. They follow fishtest
(``server/fishtest/stats/LLRcalc.py``, ``stat_util.py``) and fastchess (``matchmaking/elo``,
``matchmaking/sprt/sprt.cpp``):

* counts of length 3 are ``(losses, draws, wins)`` of the first agent, one entry per game;
* counts of length 5 are pentanomial: game pairs (one opening, colours swapped) scored
  ``LL, LD, WL+DD, WD, WW`` = 0, 1/4, 1/2, 3/4, 1 of the pair's two points;
* a zero count is replaced by 1e-3 (fishtest's ``regularize``) so that nothing divides by zero
  or takes ``log(0)``; the published test vectors contain no zeros except where the reference
  programs regularize the same way.

    >>> elo, err, los = match_elo([96, 111, 136])     # L, D, W
    >>> f"{elo:.2f} +/- {err:.2f}, LOS {100 * los:.2f} %"
    '40.70 +/- 30.43, LOS 99.60 %'
    >>> round(sprt_llr([36027, 68692, 36433], 0, 2, "normalized"), 2)
    0.92

This module also holds what the whole package shares: :class:`RatingsError` and the base of its
frozen result types.
"""
from __future__ import annotations

import dataclasses
import math
import warnings
from collections import defaultdict

from ludo_flow.errors import LudoFlowError

#: z such that P(|N(0,1)| < z) = 0.95, the value fishtest (Phi_inv(0.975)) and fastchess use.
Z95 = 1.959963984540054
#: normalized Elo per unit of t = (score - 1/2) / sigma (fishtest's ``nelo_divided_by_nt``).
NELO_PER_T = 800.0 / math.log(10.0)
#: d(score)/d(Elo) scale of the logistic curve: score = 1 / (1 + exp(-K * elo)).
K = math.log(10.0) / 400.0
#: What a zero count becomes before any statistic is computed (fishtest and fastchess).
REGULARIZE = 1e-3
#: PGN result of a game -> White's score; any other result (such as "*") is not rated.
RESULT_SCORES = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


class RatingsError(LudoFlowError):
    """Results that cannot be rated, or a bad argument to a statistic (one line, exit status 2)."""


def plain(value):
    """Return a result of this package as plain Python: dicts for its dataclasses, lists for tuples."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def printable(text):
    """Return text with each character that is not printable (controls, format marks) escaped.

    Names and results come from records files, which anyone may have written: a raw
    ``\\x1b]0;...`` would retitle the terminal, a raw newline forge a line of a report."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else
                   f"\\x{ord(c):02x}" if ord(c) < 0x100 else
                   f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}" for c in text)


class Result:
    """Base of the package's frozen results: ``as_dict()``, and dict-style reading, deprecated."""

    def as_dict(self):
        """Return this result as plain dicts and lists (the shape ``ratings_json`` writes)."""
        return plain(self)

    def _deprecated_dict(self, key):
        warnings.warn(f"{type(self).__name__} is a dataclass: read .{key} (or .as_dict()[{key!r}]) "
                      f"instead of [{key!r}]", DeprecationWarning, stacklevel=3)
        return self.as_dict()

    def __getitem__(self, key):
        return self._deprecated_dict(key)[key]

    def __contains__(self, key):
        return key in self._deprecated_dict(key)


def _phi(x):
    """Return the standard normal cumulative distribution function at x."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def elo_to_score(elo):
    """Return the expected score 1 / (1 + 10^(-elo/400)) of a logistic Elo difference."""
    exponent = -_number(elo, "elo") / 400.0
    # past 10^300 the score is below 1e-300 (0 to double precision), and 10^309 would overflow
    return 0.0 if exponent > 300.0 else 1.0 / (1.0 + 10.0 ** exponent)


def score_to_elo(score):
    """Return the logistic Elo difference -400 log10(1/s - 1), s clamped to [1e-3, 1 - 1e-3] as fishtest."""
    s = min(max(_number(score, "score"), REGULARIZE), 1.0 - REGULARIZE)
    return -400.0 * math.log10(1.0 / s - 1.0)


def shown(value, limit=60):
    """Return a short repr of value for an error message: at most `limit` characters, never raising."""
    try:
        text = repr(value)
    except Exception:            # a huge int's repr raises ValueError; a foreign object anything
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _number(value, what):
    """Return value as a float, or raise RatingsError naming `what`."""
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        raise RatingsError(f"{what} must be a number, got {shown(value)}") from None


def _counts(counts):
    """Return counts as a list of floats after checking length (3 or 5), sign and finiteness."""
    if isinstance(counts, (str, bytes)):
        raise RatingsError("counts must be a sequence of 3 (L, D, W) or 5 (LL, LD, WL+DD, WD, WW) numbers")
    try:
        values = [float(c) for c in counts]
    except (TypeError, ValueError, OverflowError):
        raise RatingsError(f"counts must be a sequence of numbers, got {shown(counts)}") from None
    if len(values) not in (3, 5):
        raise RatingsError(f"counts must have length 3 (L, D, W) or 5 (LL, LD, WL+DD, WD, WW), got {len(values)}")
    for v in values:
        if not math.isfinite(v) or v < 0:
            raise RatingsError(f"counts must be finite and non-negative, got {values}")
    return values


def _regularized_pdf(counts):
    """Return (total, scores, probabilities) of the regularized counts (zeros become 1e-3)."""
    values = [c if c > 0 else REGULARIZE for c in counts]
    total = sum(values)
    n = len(values)
    scores = [i / (n - 1) for i in range(n)]
    return total, scores, [v / total for v in values]


def _mean_var(scores, probs):
    """Return the mean and variance of a discrete distribution."""
    mu = sum(p * a for a, p in zip(scores, probs))
    return mu, sum(p * (a - mu) ** 2 for a, p in zip(scores, probs))


# ---------------------------------------------------------------------------------------------
# two-agent match statistics
# ---------------------------------------------------------------------------------------------

def match_elo(counts):
    """Return (elo, half_width_95, los) of the first agent from trinomial or pentanomial counts.

    Score mean and variance come from the multinomial; Elo = -400 log10(1/s - 1); the 95 %
    interval is s +/- 1.96 sd(s) mapped through that function and the half width is
    (hi - lo) / 2, as fastchess prints it; LOS = Phi((s - 1/2) / sd(s)) (fishtest's
    ``get_elo``; for W=136 L=96 D=111 this gives fastchess's published 99.60 %, whereas
    Phi((W - L) / sqrt(W + L)) would give 99.57 %).
    """
    total, scores, probs = _regularized_pdf(_counts(counts))
    s, var = _mean_var(scores, probs)
    sd = math.sqrt(var / total)
    elo = score_to_elo(s)
    half = (score_to_elo(s + Z95 * sd) - score_to_elo(s - Z95 * sd)) / 2.0
    return elo, half, _phi((s - 0.5) / sd)


def normalized_elo(counts):
    """Return (nelo, half_width_95) of the first agent from trinomial or pentanomial counts.

    nElo = (s - 1/2) / sigma * 800 / ln 10 with sigma the per-game standard deviation
    (for pairs sigma = sqrt(2 * pair variance), as fishtest and fastchess); the half width maps
    s +/- 1.96 sd(s) the same way.
    """
    values = _counts(counts)
    total, scores, probs = _regularized_pdf(values)
    s, var = _mean_var(scores, probs)
    sigma = math.sqrt(var if len(values) == 3 else 2.0 * var)
    sd = math.sqrt(var / total)
    return (s - 0.5) / sigma * NELO_PER_T, Z95 * sd / sigma * NELO_PER_T


def _secular(a, p):
    """Return x solving sum_i p_i a_i / (1 + x a_i) = 0 on (-1/max a, -1/min a) by bisection."""
    lo_a, hi_a = min(a), max(a)
    if not (lo_a < 0.0 < hi_a):
        raise RatingsError("no maximum likelihood distribution with this constraint "
                         "(the SPRT bound is outside what the results can express)")
    lo, hi = -1.0 / hi_a, -1.0 / lo_a          # f(lo+) = +inf, f(hi-) = -inf, f decreasing

    def f(x):
        return sum(pi * ai / (1.0 + x * ai) for ai, pi in zip(a, p))

    for _ in range(2000):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if f(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _mle_expected(scores, probs, s):
    """Return the MLE distribution on `scores` with mean s given the empirical `probs`."""
    shifted = [a - s for a in scores]
    x = _secular(shifted, probs)
    return [p / (1.0 + x * a) for a, p in zip(shifted, probs)]


def _mle_t_value(scores, probs, ref, t):
    """Return the MLE distribution on `scores` with (mean - ref) / sd = t given the empirical `probs`."""
    q = [1.0 / len(scores)] * len(scores)
    for _ in range(200):
        mu, var = _mean_var(scores, q)
        sigma = math.sqrt(var)
        phi = [a - ref - t * sigma * (1.0 + ((mu - a) / sigma) ** 2) / 2.0 for a in scores]
        x = _secular(phi, probs)
        new = [p / (1.0 + x * f) for f, p in zip(phi, probs)]
        done = max(abs(u - v) for u, v in zip(new, q)) < 1e-12
        q = new
        if done:
            break
    return q


def sprt_llr(counts, elo0, elo1, model="logistic"):
    """Return the generalized SPRT log-likelihood ratio of H1 (elo1) against H0 (elo0).

    As fishtest's ``LLR_logistic`` / ``LLR_normalized``: the maximum-likelihood multinomial under
    each hypothesis (score = L(elo) for "logistic"; t = nelo / (800 / ln 10), times sqrt 2 for
    pairs, for "normalized"), then N * sum p_i log(q1_i / q0_i).
    """
    values = _counts(counts)
    if model not in ("logistic", "normalized"):
        raise RatingsError(f"unknown SPRT model {shown(model)}: use 'logistic' or 'normalized'")
    elo0, elo1 = _number(elo0, "elo0"), _number(elo1, "elo1")
    if not (math.isfinite(elo0) and math.isfinite(elo1)):
        raise RatingsError("elo0 and elo1 must be finite")
    if elo0 >= elo1:
        raise RatingsError(f"elo0 must be less than elo1, got [{elo0}, {elo1}]")
    total, scores, probs = _regularized_pdf(values)
    if model == "logistic":
        q0, q1 = (_mle_expected(scores, probs, elo_to_score(e)) for e in (elo0, elo1))
    else:
        scale = 1.0 if len(values) == 3 else math.sqrt(2.0)
        q0, q1 = (_mle_t_value(scores, probs, 0.5, scale * e / NELO_PER_T) for e in (elo0, elo1))
    return total * sum(p * (math.log(b) - math.log(a)) for p, a, b in zip(probs, q0, q1))


def _check_alpha_beta(alpha, beta):
    """Return (alpha, beta) as floats after checking 0 < alpha, beta and alpha + beta < 1."""
    alpha, beta = _number(alpha, "alpha"), _number(beta, "beta")
    if not 0.0 < alpha < 1.0:
        raise RatingsError(f"alpha must be between 0 and 1, got {alpha}")
    if not 0.0 < beta < 1.0:
        raise RatingsError(f"beta must be between 0 and 1, got {beta}")
    if alpha + beta >= 1.0:
        raise RatingsError(f"alpha + beta must be less than 1, got {alpha + beta}")
    return alpha, beta


def sprt_bounds(alpha=0.05, beta=0.05):
    """Return the SPRT stopping bounds (ln(beta / (1 - alpha)), ln((1 - beta) / alpha))."""
    alpha, beta = _check_alpha_beta(alpha, beta)
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def sprt_decision(llr, alpha=0.05, beta=0.05):
    """Return "H1" if llr reached the upper bound, "H0" if it reached the lower one, else None."""
    lower, upper = sprt_bounds(alpha, beta)
    llr = _number(llr, "llr")
    if math.isnan(llr):
        raise RatingsError("llr is NaN")
    if llr >= upper:
        return "H1"
    if llr <= lower:
        return "H0"
    return None


def game_counts(scores):
    """Return (losses, draws, wins) counted from per-game scores in {0, 0.5, 1}."""
    out = [0, 0, 0]
    for s in scores:
        try:
            index = {0.0: 0, 0.5: 1, 1.0: 2}[float(s)]
        except (KeyError, TypeError, ValueError, OverflowError):
            raise RatingsError(f"a game score must be 0, 0.5 or 1, got {shown(s)}") from None
        out[index] += 1
    return tuple(out)


def pair_counts(results, skip_incomplete=False):
    """Return the pentanomial counts [LL, LD, WL+DD, WD, WW] from (pair_id, score_of_A) games.

    Each pair id must occur exactly twice (the two games of one opening); with
    ``skip_incomplete=True`` pairs with another number of games are left out instead.
    """
    pairs = defaultdict(list)
    for item in results:
        try:
            pair_id, score = item
        except (TypeError, ValueError):
            raise RatingsError(f"each result must be (pair_id, score_of_A), got {shown(item)}") from None
        pairs[pair_id].append(score)
    out = [0] * 5
    for pair_id, scores in pairs.items():
        if len(scores) != 2:
            if skip_incomplete:
                continue
            raise RatingsError(f"pair {shown(pair_id)} has {len(scores)} game(s), a pair needs exactly 2")
        losses, draws, wins = game_counts(scores)
        out[draws + 2 * wins] += 1
    return out


@dataclasses.dataclass(frozen=True)
class MatchStats(Result):
    """Elo, LOS and nElo of one side of a match, from its counts (per game or per pair)."""

    counts: tuple        # (L, D, W) games or (LL, LD, WL+DD, WD, WW) pairs, from this side
    elo: float           # logistic Elo difference
    error: float         # half width of its 95 % interval
    los: float           # likelihood of superiority, in [0, 1]
    nelo: float          # normalized Elo
    nelo_error: float    # half width of its 95 % interval


def match_stats(counts):
    """Return the MatchStats (Elo +/-, LOS, nElo +/-) of trinomial or pentanomial counts."""
    elo, err, los = match_elo(counts)
    nelo, nerr = normalized_elo(counts)
    return MatchStats(tuple(int(c) for c in counts), elo, err, los, nelo, nerr)


@dataclasses.dataclass(frozen=True)
class Match(Result):
    """The statistics of a two-agent match, from ``agent``'s side."""

    agent: object
    opponent: object
    per_game: MatchStats
    per_pair: MatchStats | None   # from the pairs whose two games both finished; None if none did
    incomplete_pairs: int         # pair ids seen with fewer than two rated games (or other agents)
