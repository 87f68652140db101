"""Train a value network (`ludo_flow.network`) on self-play shards with scikit-learn.

    pip install "ludo_flow[learn]"                 # scikit-learn, the `learn` extra
    ludo-flow train flow --data data/ --out net.npz --hidden 64 --epochs 8
    alphabeta:eval=net:net.npz                     # the searches read it (docs/learning.md)

The network maps a position's observation planes to White's expected result: scikit-learn's
`MLPRegressor` with one hidden ReLU layer and its linear (identity) output, fitted by Adam on
the squared error to the target (the game's final result from White's side, optionally blended
with the search's score: `score_weight`); `ludo_flow.network` evaluates the same function in
numba, clipped strictly inside (-1, 1). Every tenth game (game id % 10 == 0) is held out: the
report gives its error next to the error of always answering the mean, so a network that
learned nothing shows.

scikit-learn is imported here only, when a training starts: the engine (`ludo_flow`) and the
searches that read a weight file need numpy and numba alone.
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


def require_scikit_learn():
    """Return scikit-learn's `MLPRegressor` class (TrainError naming the extra to install if
    scikit-learn is missing)."""
    try:
        from sklearn.neural_network import MLPRegressor
    except ImportError:
        raise TrainError('train: needs scikit-learn, the `learn` extra: pip install "ludo_flow[learn]"') from None
    return MLPRegressor


def predict(model, x, batch=8192):
    """Return the fitted `model`'s values of the rows of `x` (float64 (N,)), clipped as the
    search reads them (`network.VALUE_BOUND`)."""
    out = np.empty(len(x), dtype=np.float64)
    for i in range(0, len(x), batch):
        out[i:i + batch] = model.predict(x[i:i + batch]).reshape(-1)
    return np.clip(out, -network.VALUE_BOUND, network.VALUE_BOUND)


def mse(model, x, y):
    """Return the mean squared error of the fitted `model` on (x, y), its values clipped as the
    search reads them (nan without rows)."""
    if len(x) == 0:
        return float("nan")
    return float(np.mean((predict(model, x) - y) ** 2))


class TrainReport(NamedTuple):
    """What `train` returns: the weights (float32, as `network.save_net` writes them), the fitted
    model and the figures of the fit."""

    w1: np.ndarray
    """float32 (inputs, hidden): the first layer (the model's coefs_[0])."""
    b1: np.ndarray
    """float32 (hidden,): its bias (intercepts_[0])."""
    w2: np.ndarray
    """float32 (hidden,): the output's weights (coefs_[1])."""
    b2: np.ndarray
    """float32 (1,): the output's bias (intercepts_[1])."""
    model: object
    """The fitted `sklearn.neural_network.MLPRegressor`: network.value(state) equals
    np.clip(model.predict(observation), -VALUE_BOUND, VALUE_BOUND)."""
    train_rows: int
    held_out_rows: int
    train_mse: float
    held_out_mse: float
    held_out_baseline_mse: float
    """The held-out error of always answering the training targets' mean."""
    epochs: list
    """Per epoch: {"epoch", "training_loss" (scikit-learn's: half the squared error plus the
    L2 penalty, over the epoch's batches), "held_out_mse"}."""


def train(data, hidden=64, epochs=8, batch_size=256, lr=1e-3, l2_penalty=1e-4, seed=0, log=None):
    """Fit a value network to `data` (a `Dataset`) and return a `TrainReport`.

    scikit-learn's `MLPRegressor(hidden_layer_sizes=(hidden,), activation="relu",
    solver="adam")` with `learning_rate_init=lr`, `alpha=l2_penalty` and `random_state=seed`
    (the initial weights and the order of the rows), one `partial_fit` pass per epoch over the
    training rows in batches of `batch_size`. No early stopping: the held-out games are the
    report's, and scikit-learn's own validation split would take rows of the training games.
    `log(line)` is told each epoch. The rows stay float32 (the model's weights are float32, as
    the file stores them). Raises TrainError on bad settings or without scikit-learn."""
    if not 1 <= hidden <= network.MAX_HIDDEN:
        raise TrainError(f"train: hidden must be in 1..{network.MAX_HIDDEN}, got {hidden}")
    if epochs < 1 or batch_size < 1 or not lr > 0 or not l2_penalty >= 0:
        raise TrainError("train: epochs, batch size and learning rate must be positive, the L2 "
                         "penalty not negative")
    regressor = require_scikit_learn()
    held = data.game % HELD_OUT_EVERY == 0
    x_train = np.ascontiguousarray(data.x[~held], dtype=np.float32)
    y_train = np.asarray(data.y[~held], dtype=np.float32)
    x_held, y_held = data.x[held], data.y[held]
    if len(x_train) == 0:
        raise TrainError("train: no training rows (every game held out)")
    model = regressor(hidden_layer_sizes=(hidden,), activation="relu", solver="adam",
                      learning_rate_init=lr, alpha=l2_penalty,
                      batch_size=min(batch_size, len(x_train)),
                      shuffle=True, random_state=seed)
    history = []
    for epoch in range(epochs):
        model.partial_fit(x_train, y_train)
        row = {"epoch": epoch + 1, "training_loss": float(model.loss_),
               "held_out_mse": mse(model, x_held, y_held)}
        history.append(row)
        if log is not None:
            log(f"epoch {row['epoch']}: training loss {row['training_loss']:.4f}, held-out mse "
                f"{row['held_out_mse']:.4f}")
    baseline = float(np.mean((y_held - y_train.mean()) ** 2)) if len(x_held) else float("nan")
    w1, w2 = (np.asarray(c, dtype=np.float32) for c in model.coefs_)
    b1, b2 = (np.asarray(b, dtype=np.float32) for b in model.intercepts_)
    return TrainReport(w1, b1, w2.reshape(-1), b2.reshape(1), model, len(x_train), len(x_held),
                       mse(model, x_train, y_train), history[-1]["held_out_mse"], baseline, history)
