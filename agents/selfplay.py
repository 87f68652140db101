"""Self-play data for learners: an agent plays itself and every decision becomes a training row.

    ludo-flow selfplay flow --agent mcts:simulations=400 --games 1000 --out data/ --workers 2
    from agents.selfplay import iter_batches
    for batch in iter_batches("data/", 256, shuffle=True):   # dicts of numpy arrays
        batch["observation"], batch["policy"], batch["result"]

The data is a folder of `.npz` shards (numpy alone reads them: `np.load(path,
allow_pickle=False)`), each holding whole games, one row per decision the agent made (the
random opening decisions are not rows). The fields (docs/learning.md):

- `observation` float32 (P, planes, 8, 8): `State.observation()` before the decision
- `legal_mask` bool (P, action space): the legal actions
- `policy` float32 (P, action space): the search's policy target, summing to 1: MCTS's root
  visit distribution over every legal action (`MCTSAgent.root_visit_counts()`: each root
  child's visits over their sum), or a one-hot of the action played (alpha-beta's best move,
  any other agent's choice, and MCTS's move when the search never visited it: a proven win)
- `result` float32 (P,): the game's final result from the mover's view: +1 win, 0 draw, -1 loss
- `score` float32 (P,): the search's score from the mover's view (MCTS: the played action's
  mean value in [-1, 1], 1 for a proven win; alpha-beta: its score, a win p plies away is
  1000 - p); NaN if none
- `player` int8 (P,): the mover, 0 White or 1 Black
- `game` int64 (P,): the game's id (0 .. games - 1 of the run)
- `ply` int32 (P,): decisions played in the game before this one (the opening's included)

A shard is written to a temporary name and renamed into place (`agents.files.replacing`), so a
shard on disk is whole. `selfplay.json` in the folder holds the run's settings. `--resume` reads the
game ids of the shards present and plays only the missing games: nothing is lost or doubled.
"""
import json
import os
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from ludo_flow.errors import LudoFlowError

from .files import replacing
from .registry import make_agent
from .tournament.schedule import derive_seed, random_opening

MANIFEST = "selfplay.json"
SHARD_PREFIX = "shard-"
FIELDS = {  # name -> (dtype, trailing shape: "obs" the observation shape, "actions" the action space)
    "observation": (np.float32, "obs"), "legal_mask": (np.bool_, "actions"),
    "policy": (np.float32, "actions"), "result": (np.float32, ()), "score": (np.float32, ()),
    "player": (np.int8, ()), "game": (np.int64, ()), "ply": (np.int32, ()),
}
_SETTINGS = ("game", "variant", "params", "position", "agent", "seed", "opening_plies", "games_per_shard")


class SelfPlayError(LudoFlowError):
    """Self-play settings or data are wrong (a one-line CLI error)."""


def policy_target(action, stats, action_space, root=None):
    """Return (policy float32 (action_space,), score) of one decision: `root` is an MCTS
    search's (actions, visits) of every root child (`root_visit_counts()`), None for another
    agent; `stats` the agent's `last_stats` (its `score`)."""
    policy = np.zeros(action_space, dtype=np.float32)
    if root is not None:
        actions, visits = root
        total = int(visits.sum())
        if total > 0 and visits[actions == action].sum() > 0:
            policy[actions] = visits / total
        else:  # a proven win the search never had to visit, or no search at all
            policy[action] = 1.0
    else:
        policy[action] = 1.0
    value = (stats or {}).get("score")
    return policy, np.nan if value is None else float(value)


def play_game(settings, game_id):
    """Return the rows (dict of arrays) of one self-play game `game_id` of a run's settings."""
    from ludo_flow import load_game
    game = load_game(settings["game"], settings["variant"], **settings["params"])
    start = game.from_string(settings["position"]) if settings["position"] else game.new_initial_state()
    state = start.clone()
    seed = derive_seed(settings["seed"], game_id)
    if settings["opening_plies"]:
        state.apply_sequence(" ".join(random_opening(start, settings["opening_plies"], seed)))
    ply = settings["opening_plies"]
    agent = make_agent(settings["agent"], game)
    agent.reset(seed=seed)
    space = game.kernels.ACTION_SPACE
    counts_visits = callable(getattr(agent, "root_visit_counts", None))
    rows = {name: [] for name in FIELDS}
    while not state.is_terminal():
        legal = state.legal_actions()
        action = int(agent.select_action(state))
        root = agent.root_visit_counts() if counts_visits else None
        policy, score = policy_target(action, getattr(agent, "last_stats", None), space, root)
        mask = np.zeros(space, dtype=np.bool_)
        mask[legal] = True
        for name, value in (("observation", state.observation()), ("legal_mask", mask),
                            ("policy", policy), ("score", score), ("player", state.current_player()),
                            ("game", game_id), ("ply", ply)):
            rows[name].append(value)
        state.apply(action)
        ply += 1
    returns = state.returns()
    rows["result"] = [returns[p] for p in rows["player"]]
    shape = game.observation_shape
    return {name: np.asarray(rows[name], dtype=dtype).reshape(
        (-1, *(shape if tail == "obs" else (space,) if tail == "actions" else ())))
        for name, (dtype, tail) in FIELDS.items()}


def write_shard(folder, rows):
    """Write one shard atomically (`replacing`: a temporary file, then renamed); return its path."""
    first = int(rows["game"].min()) if rows["game"].size else 0
    path = Path(folder) / f"{SHARD_PREFIX}{first:08d}.npz"
    with replacing(path, "wb") as f:
        np.savez_compressed(f, **rows)
    return path


def play_shard(settings, folder, game_ids):
    """Play the games `game_ids`, write them as one shard; return (games, rows)."""
    games = [play_game(settings, g) for g in game_ids]
    rows = {name: np.concatenate([g[name] for g in games]) for name in FIELDS}
    write_shard(folder, rows)
    return len(game_ids), int(rows["game"].size)


def shard_paths(folder):
    """Return the shard files of a folder, in order of their first game."""
    return sorted(Path(folder).glob(f"{SHARD_PREFIX}*.npz"))


def load_shard(path):
    """Return the fields of one shard as a dict of arrays (SelfPlayError if it is not a whole shard)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            rows = {name: data[name] for name in FIELDS if name in data.files}
    except (OSError, ValueError, EOFError) as err:
        raise SelfPlayError(f"{path}: not a readable .npz shard: {err}") from None
    missing = [name for name in FIELDS if name not in rows]
    if missing:
        raise SelfPlayError(f"{path}: not a self-play shard (no field {missing[0]!r})")
    n = rows["game"].shape[0]
    for name, (dtype, tail) in FIELDS.items():
        array = rows[name]
        if array.dtype != dtype or array.shape[:1] != (n,) or (tail == () and array.ndim != 1):
            raise SelfPlayError(f"{path}: field {name!r} is {array.dtype} {array.shape}, expected "
                                f"{np.dtype(dtype)} with {n} rows")
    return rows


def finished_games(folder):
    """Return the set of game ids the shards of a folder hold."""
    done = set()
    for path in shard_paths(folder):
        done.update(np.unique(load_shard(path)["game"]).tolist())
    return done


def _check_settings(folder, settings, resume):
    """Write the run's settings to the folder, or on resume check they match those there."""
    folder = Path(folder)
    manifest = folder / MANIFEST
    if resume and manifest.exists():
        try:
            before = json.loads(manifest.read_text())
        except (OSError, ValueError) as err:
            raise SelfPlayError(f"{manifest}: unreadable settings: {err}") from None
        changed = [k for k in _SETTINGS if before.get(k) != settings[k]]
        if changed:
            raise SelfPlayError(f"--resume: {folder} was played with other settings ({changed[0]}: "
                                f"{before.get(changed[0])!r}, now {settings[changed[0]]!r})")
        return
    if not resume and (manifest.exists() or shard_paths(folder)):
        raise SelfPlayError(f"{folder} already holds self-play data: add --resume, or choose another --out")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with replacing(manifest, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(settings, indent=1) + "\n")
    except OSError as err:
        raise SelfPlayError(f"--out {str(folder)!r}: cannot write the self-play folder there: "
                            f"{err.strerror or err}") from None


def run_selfplay(settings, folder, games, workers=1, resume=False, progress=None):
    """Play games 0 .. games-1 (those not yet in `folder` with `resume`), `games_per_shard` per
    shard, in `workers` processes (0 or 1: this one); return (games played now, rows written now).

    `settings`: game, variant, params, position ('' for the variant's start), agent (a spec),
    seed, opening_plies (random decisions before the agent plays), games_per_shard.
    `progress(games, rows)` is called as each shard is written."""
    if games < 0 or settings["games_per_shard"] < 1:
        raise SelfPlayError("games must be >= 0 and games_per_shard >= 1")
    make_agent(settings["agent"])  # a bad spec fails here, not in a worker
    _check_settings(folder, settings, resume)
    for stale in Path(folder).glob(".*.tmp"):  # an interrupted write left it; its games are missing
        stale.unlink()
    done = finished_games(folder) if resume else set()
    todo = [g for g in range(games) if g not in done]
    per = settings["games_per_shard"]
    chunks = [todo[i:i + per] for i in range(0, len(todo), per)]
    played = rows = 0
    if workers <= 1:
        for chunk in chunks:
            g, r = play_shard(settings, folder, chunk)
            played, rows = played + g, rows + r
            if progress:
                progress(g, r)
        return played, rows
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        for g, r in pool.map(play_shard, [settings] * len(chunks), [folder] * len(chunks), chunks):
            played, rows = played + g, rows + r
            if progress:
                progress(g, r)
    return played, rows


def iter_batches(source, batch_size, shuffle=False, seed=0, fields=None, drop_last=False):
    """Yield batches (dicts of arrays, `batch_size` rows; the last may be shorter unless
    `drop_last`) from a folder of shards or a list of shard paths, one shard in memory at a time.

    With `shuffle` the shards are read in a random order and each shard's rows are shuffled
    (seeded by `seed`); rows left over from one shard open the next batch. `fields` picks the
    fields (default: all of FIELDS)."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise SelfPlayError(f"batch_size must be an integer >= 1, got {batch_size!r}")
    fields = list(FIELDS) if fields is None else list(fields)
    unknown = [f for f in fields if f not in FIELDS]
    if unknown:
        raise SelfPlayError(f"unknown field {unknown[0]!r}; fields: {', '.join(FIELDS)}")
    paths = shard_paths(source) if isinstance(source, (str, os.PathLike)) else [Path(p) for p in source]
    rng = np.random.default_rng(seed)
    if shuffle:
        paths = [paths[i] for i in rng.permutation(len(paths))]
    carry = None
    for path in paths:
        rows = load_shard(path)
        rows = {f: rows[f] for f in fields}
        if shuffle:
            order = rng.permutation(rows[fields[0]].shape[0])
            rows = {f: a[order] for f, a in rows.items()}
        if carry is not None:
            rows = {f: np.concatenate([carry[f], rows[f]]) for f in fields}
        n = rows[fields[0]].shape[0]
        full = n - n % batch_size
        for i in range(0, full, batch_size):
            yield {f: a[i:i + batch_size] for f, a in rows.items()}
        carry = {f: a[full:] for f, a in rows.items()}
    if carry is not None and carry[fields[0]].shape[0] and not drop_last:
        yield carry
