"""A learned value network as a search's evaluation (`eval=net:FILE`).

The network is a small multilayer perceptron over a game's observation planes (docs/adapters.md):
`inputs` = the observation's size, one hidden layer of `hidden` ReLU units, one output through
tanh, White's view in (-1, 1) like the games' own evaluations:

    value = tanh(b2 + w2 . relu(b1 + observation.ravel() @ w1))

clipped to +-VALUE_BOUND (a search reads +-1 as a won game). Its weights come from a plain
`.npz` file (`save_net` / `load_net`; experiments/learned_eval trains one), read with
`allow_pickle=False` and checked field by field.

Inside a search the network is a `Net` bundle of arrays, passed to the jitted search as an
argument: the weights never become compile-time constants, so one compiled search serves every
weight file. The searches call `evaluate` and `child_outcome` below, which take the evaluation id
as a compile-time constant: for `NET` they run the network, for the others they are the
kernels' own (`dispatch.evaluate`, `dispatch.child_outcome`), the network's code pruned away.

The forward pass is sparse in the input: most observation planes are boards of a few pieces,
so the first layer adds the rows of `w1` of the nonzero squares only, and a plane that is one
value over all its squares (the side to move, the turn count) adds that value times the sum of
its rows (`plane_sums`, made when the file is loaded). `forward_numpy` is the dense reference.
"""
import os
from typing import NamedTuple

import numpy as np
from numba import njit

from . import dispatch, registry
from .bits import odd_tanh
from .errors import LudoFlowError
from .flow import kernels as flow
from .specialize import game_jit
from .tolkuchka import kernels as tolkuchka

FLOW = dispatch.FLOW
TOLKUCHKA = dispatch.TOLKUCHKA
WHITE_WINS = dispatch.WHITE_WINS
BLACK_WINS = dispatch.BLACK_WINS
NET = dispatch.NET
FORMAT = "ludo_flow value net 1"  # the file's `format` field
MAX_HIDDEN = 4096
VALUE_BOUND = 1.0 - 1e-9  # the network's value stays strictly inside (-1, 1)
FIELDS = ("format", "game", "w1", "b1", "w2", "b2")


class NetError(LudoFlowError):
    """A value-network file or evaluation name is wrong (a one-line CLI error)."""


class Net(NamedTuple):
    """A value network as a search reads it: weights (float64) and its own scratch arrays.

    I = the observation's size (planes x 8 x 8), H = hidden units, P = observation planes."""

    w1: np.ndarray
    """float64 (I, H): the first layer, one row per observation entry (plane-major, as ravel)."""
    b1: np.ndarray
    """float64 (H,): the first layer's bias."""
    w2: np.ndarray
    """float64 (H,): the output's weights."""
    b2: np.ndarray
    """float64 (1,): the output's bias."""
    plane_sums: np.ndarray
    """float64 (P, H): the sum of the rows of `w1` of each plane's squares."""
    observation: np.ndarray
    """float32 (P, 8, 8): scratch, the observation of the position being evaluated."""
    flat: np.ndarray
    """float32 (I,): the same memory as `observation`, flat."""
    hidden: np.ndarray
    """float64 (H,): scratch, the hidden layer."""


def make_net(w1, b1, w2, b2, observation_shape):
    """Return the `Net` of these weights for observations of `observation_shape`."""
    w1 = np.ascontiguousarray(w1, dtype=np.float64)
    planes = observation_shape[0]
    per_plane = int(np.prod(observation_shape[1:]))
    observation = np.zeros(observation_shape, dtype=np.float32)
    return Net(w1=w1, b1=np.ascontiguousarray(b1, dtype=np.float64),
               w2=np.ascontiguousarray(w2, dtype=np.float64),
               b2=np.asarray(b2, dtype=np.float64).reshape(1),
               plane_sums=w1.reshape(planes, per_plane, -1).sum(axis=1),
               observation=observation, flat=observation.reshape(-1),
               hidden=np.zeros(w1.shape[1], dtype=np.float64))


def no_net(game):
    """Return an empty `Net` for `game` (a name or id): what a search that evaluates by the
    game's own evaluation is given (its arrays have the types of a real one, and are never read)."""
    shape = registry.entry_of(game).observation_shape
    return make_net(np.zeros((int(np.prod(shape)), 0)), np.zeros(0), np.zeros(0), np.zeros(1), shape)


class NetFile(NamedTuple):
    """A loaded weight file: the game it is for, its weights (float32, as stored) and its `Net`."""

    game: str
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    net: Net


def save_net(path, game, w1, b1, w2, b2):
    """Write the weights to `path` (an .npz) as `load_net` reads them; return the path."""
    entry = registry.entry_of(game)
    with open(path, "wb") as f:  # a file object: np.savez would add ".npz" to another name
        np.savez(f, format=np.array(FORMAT), game=np.array(entry.name),
                 w1=np.asarray(w1, dtype=np.float32), b1=np.asarray(b1, dtype=np.float32),
                 w2=np.asarray(w2, dtype=np.float32), b2=np.asarray(b2, dtype=np.float32).reshape(1))
    _check(load_arrays(path), str(path))  # never write a file that would be refused
    return path


def load_arrays(path):
    """Return {field: array} of the weight file `path` (NetError if it is not a readable .npz
    without pickled objects)."""
    name = str(path)
    if not os.path.isfile(name):
        raise NetError(f"net file {name}: no such file")
    with open(name, "rb") as f:
        if f.read(4) != b"PK\x03\x04":  # else np.load would take it for a pickle
            raise NetError(f"net file {name}: not a .npz file (a zip of .npy arrays)")
    try:
        with np.load(name, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except ValueError as err:
        if "pickle" in str(err).lower():
            raise NetError(f"net file {name}: holds pickled objects (refused)") from None
        raise NetError(f"net file {name}: not a .npz file of arrays ({err})") from None
    except (OSError, EOFError) as err:
        raise NetError(f"net file {name}: not a .npz file ({type(err).__name__}: {err})") from None
    except Exception as err:  # noqa: BLE001 - zipfile raises its own errors on a damaged file
        raise NetError(f"net file {name}: not a readable .npz file ({type(err).__name__})") from None


def _check(arrays, name):
    """Return the game entry of the checked weight `arrays` (NetError naming the first problem)."""
    for field in FIELDS:
        if field not in arrays:
            raise NetError(f"net file {name}: no array {field!r} (a value net has {', '.join(FIELDS)})")
    for field in ("format", "game"):
        a = arrays[field]
        if a.dtype.kind != "U" or a.shape != ():
            raise NetError(f"net file {name}: {field} must be a string, got {a.dtype} {a.shape}")
    if str(arrays["format"]) != FORMAT:
        raise NetError(f"net file {name}: format {str(arrays['format'])!r} is not {FORMAT!r}")
    if str(arrays["game"]) not in registry.BY_NAME:
        raise NetError(f"net file {name}: game {str(arrays['game'])!r} is not one of "
                       f"{', '.join(registry.BY_NAME)}")
    entry = registry.BY_NAME[str(arrays["game"])]
    for field in ("w1", "b1", "w2", "b2"):
        a = arrays[field]
        if a.dtype != np.float32:
            raise NetError(f"net file {name}: {field} must be float32, got {a.dtype}")
        if not np.all(np.isfinite(a)):
            raise NetError(f"net file {name}: {field} holds a value that is not finite")
    inputs = int(np.prod(entry.observation_shape))
    w1 = arrays["w1"]
    if w1.ndim != 2 or w1.shape[0] != inputs or not 1 <= w1.shape[1] <= MAX_HIDDEN:
        raise NetError(f"net file {name}: w1 must have shape ({inputs}, hidden) with 1 <= hidden "
                       f"<= {MAX_HIDDEN} ({entry.name}'s observation has {inputs} entries), "
                       f"got {w1.shape}")
    hidden = w1.shape[1]
    for field, shape in (("b1", (hidden,)), ("w2", (hidden,)), ("b2", (1,))):
        if arrays[field].shape != shape:
            raise NetError(f"net file {name}: {field} must have shape {shape}, got {arrays[field].shape}")
    return entry


def load_net(path):
    """Return the `NetFile` of the weight file `path`, checked (NetError naming the problem)."""
    arrays = load_arrays(path)
    entry = _check(arrays, str(path))
    w1, b1, w2, b2 = (arrays[k] for k in ("w1", "b1", "w2", "b2"))
    return NetFile(entry.name, w1, b1, w2, b2, make_net(w1, b1, w2, b2, entry.observation_shape))


def parse_evaluation(value):
    """Return (evaluation id, weight file path or None) of an `eval` setting: a name of
    `dispatch.EVALUATIONS` (hand, texel) or net:FILE."""
    if value in dispatch.EVALUATIONS:
        return dispatch.EVALUATIONS[value], None
    kind, sep, path = value.partition(":")
    if kind == "net" and sep and path:
        return NET, path
    raise NetError(f"eval must be one of {', '.join(dispatch.EVALUATIONS)} or net:FILE "
                   f"(a weight .npz), got {value!r}")


def forward_numpy(w1, b1, w2, b2, observations):
    """Return the network's values (float64 (N,), clipped as the search's) of float32
    observations (N, planes, 8, 8): the dense reference of `value`."""
    x = np.asarray(observations, dtype=np.float64).reshape(len(observations), -1)
    h = np.maximum(x @ np.asarray(w1, np.float64) + np.asarray(b1, np.float64), 0.0)
    out = h @ np.asarray(w2, np.float64) + np.float64(np.asarray(b2).reshape(-1)[0])
    return np.clip(np.tanh(out), -VALUE_BOUND, VALUE_BOUND)


@njit(cache=True)
def forward(net):
    """Return the network's value of the observation in `net.observation` (White's view)."""
    w1 = net.w1
    hidden = net.hidden
    plane_sums = net.plane_sums
    flat = net.flat
    width = hidden.size
    for j in range(width):
        hidden[j] = net.b1[j]
    planes = plane_sums.shape[0]
    per_plane = flat.size // planes
    for p in range(planes):
        base = p * per_plane
        first = flat[base]
        uniform = True
        for k in range(base + 1, base + per_plane):
            if flat[k] != first:
                uniform = False
                break
        if uniform:  # one value over the plane: its rows' sum, made at load
            if first != 0.0:
                x = np.float64(first)
                for j in range(width):
                    hidden[j] += x * plane_sums[p, j]
            continue
        for k in range(base, base + per_plane):
            x = np.float64(flat[k])
            if x != 0.0:
                for j in range(width):
                    hidden[j] += x * w1[k, j]
    out = net.b2[0]
    w2 = net.w2
    for j in range(width):
        h = hidden[j]
        if h > 0.0:
            out += h * w2[j]
    return min(max(odd_tanh(out), -VALUE_BOUND), VALUE_BOUND)


@game_jit()
def value(game, state, net):
    """Return the network's value of the non-final `state`, White's view, in (-1, 1)."""
    if game == FLOW:
        flow.observation(state, net.observation)
    elif game == TOLKUCHKA:
        tolkuchka.observation(state, net.observation)
    else:
        raise ValueError(dispatch.UNKNOWN_GAME)
    return forward(net)


@game_jit(inline="always")
def evaluate(game, state, evaluation, net):
    """Return the evaluation `evaluation` (NET, or a `dispatch.EVALUATIONS` id) of the
    non-final `state`, White's view, in (-1, 1)."""
    if evaluation == NET:
        return value(game, state, net)
    else:
        return dispatch.evaluate(game, state, evaluation)


@game_jit(inline="always")
def child_outcome(game, state, action, evaluation, net, out):
    """`dispatch.child_outcome` with the evaluation NET too: (result, White's value) of the
    child the legal `action` leads to (`out` is scratch)."""
    if evaluation == NET:
        dispatch.apply(game, state, action, out)
        code = dispatch.result(game, out)
        if code == WHITE_WINS:
            return code, 1.0
        if code == BLACK_WINS:
            return code, -1.0
        return code, value(game, out, net)
    else:
        return dispatch.child_outcome(game, state, action, evaluation, out)
