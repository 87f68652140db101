"""Pictures of ratings and cross tables (needs matplotlib: ``pip install 'ludo_flow[plots]'``).

matplotlib is imported only when a function is called, and only through its object-oriented
API with the Agg canvas, so this never changes the backend of an interactive session.

    >>> from agents import ratings, plots
    >>> result = ratings.rate_records(records)
    >>> plots.plot_ratings(result, "ratings.png")
    >>> plots.plot_score_matrix(result.crosstable, "scores.png")
"""
from __future__ import annotations

import math

import numpy as np

from . import ratings


class PlotsUnavailable(ImportError):
    """matplotlib is not installed (it is the optional ``plots`` extra)."""


def _figure(width, height):
    """Return a matplotlib Figure attached to an Agg canvas, or raise PlotsUnavailable."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise PlotsUnavailable("plots need matplotlib, the 'plots' extra: "
                               "pip install 'ludo_flow[plots]' (or pip install matplotlib)") from exc
    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    return fig


def plot_ratings(result, path):
    """Write a PNG (or any format matplotlib infers from `path`) of ratings with 95 % bars; return path.

    ``result`` is what :func:`agents.ratings.bradley_terry` or :func:`~agents.ratings.rate_records`
    returns; agents are drawn best at the top.
    """
    if isinstance(result, ratings.RatedRecords):
        result = result.ratings
    if not isinstance(result, ratings.BradleyTerryFit):
        raise ratings.RatingsError("expected the BradleyTerryFit of bradley_terry or the RatedRecords "
                                   "of rate_records")
    entries = sorted(result.ratings, key=lambda e: e.elo)          # best ends up on top
    names = [ratings.printable(str(e.agent)) for e in entries]
    elo = [e.elo for e in entries]
    lower = [max(e.elo - e.low, 0.0) for e in entries]
    upper = [max(e.high - e.elo, 0.0) for e in entries]
    longest = max(len(n) for n in names)
    fig = _figure(6.0 + 0.07 * longest, 1.0 + 0.4 * len(entries))
    ax = fig.add_subplot(1, 1, 1)
    ys = list(range(len(entries)))
    ax.errorbar(elo, ys, xerr=[lower, upper], fmt="o", capsize=4, color="tab:blue")
    ax.axvline(0.0, color="grey", linewidth=0.8, linestyle=":")
    ax.set_yticks(ys)
    ax.set_yticklabels(names)
    anchor = result.anchor
    ax.set_xlabel("Elo (95 % interval), " + (f"{ratings.printable(str(anchor))} = 0" if anchor is not None
                                             else "mean = 0"))
    fma = result.first_move_advantage
    if fma.fitted:
        fixed = ratings.fixed
        ax.set_title(f"first-move advantage {fixed(fma.elo)} Elo "
                     f"[{fixed(fma.low)}, {fixed(fma.high)}], {result.games} games")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100, bbox_inches="tight")
    return path


def plot_score_matrix(table, path):
    """Write a heat map of each row agent's score fraction against each column agent; return path.

    ``table`` is what :func:`agents.ratings.crosstable` returns (or the ``crosstable`` of
    :func:`~agents.ratings.rate_records`); cells that never met stay blank.
    """
    if isinstance(table, ratings.RatedRecords):
        table = table.crosstable
    if not isinstance(table, ratings.Crosstable):
        raise ratings.RatingsError("expected the Crosstable of crosstable or rate_records")
    agents = list(table.agents)
    n = len(agents)
    if n == 0:
        raise ValueError("no agents to plot")
    labels = [ratings.printable(str(a)) for a in agents]
    fig = _figure(2.5 + 0.9 * n + 0.09 * max(len(name) for name in labels), 1.5 + 0.8 * n)
    ax = fig.add_subplot(1, 1, 1)
    grid = [[math.nan] * n for _ in range(n)]
    for i, a in enumerate(agents):
        for j, b in enumerate(agents):
            games = table.games.get(a, {}).get(b, 0)
            if i != j and games:
                grid[i][j] = table.points[a][b] / games
    data = np.ma.masked_invalid(np.array(grid, dtype=float))
    image = ax.imshow(data, cmap="RdYlGn", vmin=0.0, vmax=1.0)
    for i in range(n):
        for j in range(n):
            if not math.isnan(grid[i][j]):
                games = table.games[agents[i]][agents[j]]
                ax.text(j, i, f"{100 * grid[i][j]:.0f}%\n({games})", ha="center", va="center", fontsize=8)
    ax.set_xticks(range(n))
    ax.set_xticklabels([str(k + 1) for k in range(n)])
    ax.set_yticks(range(n))
    ax.set_yticklabels([f"{k + 1}. {name}" for k, name in enumerate(labels)])
    ax.set_xlabel("opponent")
    ax.set_title("score of row agent against column agent")
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="score")
    fig.tight_layout()
    fig.savefig(path, dpi=100, bbox_inches="tight")
    return path
