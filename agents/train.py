"""Train a value network (`ludo_flow.network`) on self-play shards, with numpy alone.

    ludo-flow train flow --data data/ --out net.npz --hidden 64 --epochs 8
    alphabeta:eval=net:net.npz      # the searches read it (docs/learning.md)

The network maps a position's observation planes to White's expected result in (-1, 1):
one hidden ReLU layer, a tanh output, trained by Adam on the mean squared error to the
target (the game's final result from White's side, optionally blended with the search's
score: `score_weight`). Every tenth game (game id % 10 == 0) is held out: the report gives
its error next to the error of always answering the mean, so a network that learned nothing
shows.
"""
from typing import NamedTuple

import numpy as np

from ludo_flow import network, registry

from .selfplay import SelfPlayError, iter_batches, shard_paths

HELD_OUT_EVERY = 10  # games whose id is a multiple of this are the validation set
FIELDS = ("observation", "result", "score", "player", "game")


class TrainError(SelfPlayError):
    """Training settings or data are wrong (a one-line CLI error)."""


class Dataset(NamedTuple):
    """Positions as the trainer reads them: flat observations and White's targets."""

    x: np.ndarray
    """float32 (N, inputs): the observation planes, flat."""
    y: np.ndarray
    """float64 (N,): the target, White's view, in [-1, 1]."""
    game: np.ndarray
    """int64 (N,): the game id of each row (folder index * 2**40 + the id in its run)."""


def targets(result, score, player, score_weight):
    """Return White's targets of shard rows: (1 - w) x result + w x score clipped to [-1, 1],
    both turned from the mover's view to White's (a row without a score keeps its result)."""
    sign = np.where(np.asarray(player) == 0, 1.0, -1.0)
    result = np.asarray(result, dtype=np.float64)
    score = np.clip(np.asarray(score, dtype=np.float64), -1.0, 1.0)
    blended = np.where(np.isnan(score), result, (1.0 - score_weight) * result + score_weight * score)
    return sign * blended


def load_dataset(folders, game, score_weight=0.0, max_rows=None):
    """Return the `Dataset` of the shards in `folders` (each a `ludo-flow selfplay` folder of
    `game`), at most `max_rows` rows (the first shards' rows, in file order)."""
    shape = registry.entry_of(game).observation_shape
    xs, ys, ids = [], [], []
    rows = 0
    for k, folder in enumerate(folders):
        if not shard_paths(folder):
            raise TrainError(f"train: {folder}: no self-play shards there")
        for batch in iter_batches(folder, 8192, fields=FIELDS):
            obs = batch["observation"]
            if obs.shape[1:] != shape:
                raise TrainError(f"train: {folder}: observations of shape {obs.shape[1:]}, not "
                                 f"{registry.entry_of(game).name}'s {shape}")
            xs.append(obs.reshape(len(obs), -1))
            ys.append(targets(batch["result"], batch["score"], batch["player"], score_weight))
            ids.append(batch["game"] + (np.int64(k) << 40))
            rows += len(obs)
            if max_rows is not None and rows >= max_rows:
                break
        if max_rows is not None and rows >= max_rows:
            break
    x = np.concatenate(xs)[:max_rows]
    return Dataset(x, np.concatenate(ys)[:max_rows], np.concatenate(ids)[:max_rows])


class Adam:
    """Adam over a list of float64 arrays, updated in place."""

    def __init__(self, params, lr, beta1=0.9, beta2=0.999, eps=1e-8):
        self.params = params
        self.lr, self.beta1, self.beta2, self.eps = lr, beta1, beta2, eps
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, grads):
        """Apply one update with `grads` (arrays shaped as the parameters)."""
        self.t += 1
        c1 = 1.0 - self.beta1 ** self.t
        c2 = 1.0 - self.beta2 ** self.t
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m *= self.beta1
            m += (1.0 - self.beta1) * g
            v *= self.beta2
            v += (1.0 - self.beta2) * g * g
            p -= self.lr * (m / c1) / (np.sqrt(v / c2) + self.eps)


def _forward(params, x):
    """Return (pre-activation hidden, hidden, output) of a batch (float64)."""
    w1, b1, w2, b2 = params
    pre = x @ w1 + b1
    h = np.maximum(pre, 0.0)
    return pre, h, np.tanh(h @ w2 + b2[0])


def mse(params, x, y, batch=8192):
    """Return the mean squared error of the network on (x, y)."""
    total = 0.0
    for i in range(0, len(x), batch):
        out = _forward(params, x[i:i + batch].astype(np.float64))[2]
        total += float(np.sum((out - y[i:i + batch]) ** 2))
    return total / max(len(x), 1)


class TrainReport(NamedTuple):
    """What `train` returns: the weights (float32) and the figures of the fit."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    train_rows: int
    held_out_rows: int
    train_mse: float
    held_out_mse: float
    held_out_baseline_mse: float
    """The held-out error of always answering the training targets' mean."""
    epochs: list
    """Per epoch: {"epoch", "train_mse", "held_out_mse"}."""


def train(data, hidden=64, epochs=8, batch_size=256, lr=1e-3, weight_decay=1e-5, seed=0,
          log=None):
    """Fit a network to `data` (a `Dataset`); return a `TrainReport`. `log(line)` is told each epoch."""
    if not 1 <= hidden <= network.MAX_HIDDEN:
        raise TrainError(f"train: hidden must be in 1..{network.MAX_HIDDEN}, got {hidden}")
    if epochs < 1 or batch_size < 1 or not lr > 0:
        raise TrainError("train: epochs, batch size and learning rate must be positive")
    held = data.game % HELD_OUT_EVERY == 0
    x_train, y_train = data.x[~held], data.y[~held]
    x_held, y_held = data.x[held], data.y[held]
    if len(x_train) == 0:
        raise TrainError("train: no training rows (every game held out)")
    rng = np.random.default_rng(seed)
    inputs = data.x.shape[1]
    params = [rng.normal(0.0, np.sqrt(2.0 / inputs), (inputs, hidden)), np.zeros(hidden),
              rng.normal(0.0, np.sqrt(1.0 / hidden), hidden), np.zeros(1)]
    adam = Adam(params, lr)
    history = []
    for epoch in range(epochs):
        order = rng.permutation(len(x_train))
        for i in range(0, len(order), batch_size):
            idx = order[i:i + batch_size]
            x = x_train[idx].astype(np.float64)
            y = y_train[idx]
            pre, h, out = _forward(params, x)
            # d(mean squared error)/d(output before tanh)
            d_out = 2.0 * (out - y) * (1.0 - out * out) / len(idx)
            w1, b1, w2, b2 = params
            d_h = np.outer(d_out, w2) * (pre > 0.0)
            grads = [x.T @ d_h + weight_decay * w1, d_h.sum(axis=0), h.T @ d_out + weight_decay * w2,
                     np.array([d_out.sum()])]
            adam.step(grads)
        row = {"epoch": epoch + 1, "train_mse": mse(params, x_train, y_train),
               "held_out_mse": mse(params, x_held, y_held) if len(x_held) else float("nan")}
        history.append(row)
        if log is not None:
            log(f"epoch {row['epoch']}: train mse {row['train_mse']:.4f}, held-out mse "
                f"{row['held_out_mse']:.4f}")
    baseline = float(np.mean((y_held - y_train.mean()) ** 2)) if len(x_held) else float("nan")
    w1, b1, w2, b2 = (p.astype(np.float32) for p in params)
    return TrainReport(w1, b1, w2, b2, len(x_train), len(x_held), history[-1]["train_mse"],
                       history[-1]["held_out_mse"], baseline, history)
