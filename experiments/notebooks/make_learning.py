"""Write learning.ipynb, the learning loop at a small scale, from the cells below (outputs cleared).

Edit the notebook here and run `python experiments/notebooks/make_learning.py`; the test suite
runs it headless (tests/arena/test_notebook.py) and checks the file is what this script writes."""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from make_tour import notebook_of, write

NOTEBOOK = HERE / "learning.ipynb"

CELLS = [
    ("md", """# The learning loop at a small scale

Self-play data → a value network trained with scikit-learn → the network as alpha-beta's
evaluation (`eval=net:FILE`) in a short match against the hand-fitted `texel` evaluation.
Everything here is tiny (96 games, a 16-unit network, a handful of match games) so
that it runs in well under a minute once numba has compiled the searches; the same steps at
full size are `experiments/learned_eval/run.py`, and `docs/learning.md` describes each of them.

Training needs scikit-learn, the `learn` extra: `pip install "ludo_flow[learn]"`."""),
    ("md", """## Self-play

A cheap agent, alpha-beta at depth 1, plays both sides of 96 games of Flow's small `fountain`
variant, each after 4 random opening plies, into `.npz` shards in a temporary folder
(`ludo-flow selfplay` does the same from the command line)."""),
    ("code", """import tempfile
import time
from pathlib import Path

from agents.selfplay import load_shard, run_selfplay, shard_paths

workdir = Path(tempfile.mkdtemp(prefix="ludo_flow_learning_"))
settings = {"game": "flow", "variant": "fountain", "params": {}, "position": "",
            "agent": "alphabeta:depth=1", "seed": 1, "opening_plies": 4, "games_per_shard": 8}
began = time.perf_counter()
games, positions = run_selfplay(settings, workdir / "data", 96, workers=1)
print(f"{games} games, {positions} positions in {time.perf_counter() - began:.1f} s, "
      f"{len(shard_paths(workdir / 'data'))} shards")
shard = load_shard(shard_paths(workdir / "data")[0])
{field: (array.dtype.name, array.shape) for field, array in shard.items()}"""),
    ("md", """## Train a value network

`load_dataset` flattens the observations and turns each game's result to White's view;
`train` fits scikit-learn's `MLPRegressor` (one hidden ReLU layer, a linear output, Adam).
Every tenth game is held out (ten games here, so the figures are rough): a network that
learned something has a lower error there than always answering the mean."""),
    ("code", """from agents.train import load_dataset, train
from ludo_flow import network

data = load_dataset([workdir / "data"], "flow")
report = train(data, hidden=16, epochs=20, lr=3e-3, seed=0, log=print)
print(f"{report.train_rows} positions trained, {report.held_out_rows} held out: held-out mse "
      f"{report.held_out_mse:.3f}, the mean alone {report.held_out_baseline_mse:.3f}")
net_file = network.save_net(workdir / "net.npz", "flow", report.w1, report.b1, report.w2, report.b2)"""),
    ("md", """The weight file is a plain `.npz`. The search evaluates the network in numba, and its value
of a position is scikit-learn's prediction, clipped strictly inside (-1, 1):"""),
    ("code", """import numpy as np

import ludo_flow

state = ludo_flow.load_game("flow", "fountain").new_initial_state()
loaded = network.load_net(net_file)
in_search = network.value(state.game.game_id, state.array, loaded.net)
by_sklearn = report.model.predict(state.observation().reshape(1, -1).astype(np.float64))[0]
print(f"numba {in_search:.6f}, scikit-learn {by_sklearn:.6f}")"""),
    ("md", """## The network inside alpha-beta

Alpha-beta at depth 2 with `eval=net:FILE` against the same search with `eval=texel`: 8 games
(four random 4-ply openings, each played with both colours), in this process. At equal depth
the match compares what the two evaluations know. Eight games of a network fitted to 96 games
say little: `experiments/learned_eval` trains on 20,000 games and plays an SPRT at equal time
per move, where the network's cost counts too (it loses there as well)."""),
    ("code", """from agents.tournament import Tournament

net_spec = f"alphabeta:depth=2,eval=net:{net_file}"
match = Tournament("flow", [net_spec, "alphabeta:depth=2"], variant="fountain", games=8,
                   openings="random:plies=4", seed=1, workers=0, out=workdir / "match.jsonl",
                   progress=False)
result = match.run()
points = sum(1.0 if (r["result"] == "1-0") == (r["white"] == net_spec) else 0.0
             for r in result.records if r["result"] != "1/2-1/2")
points += 0.5 * sum(r["result"] == "1/2-1/2" for r in result.records)
print(f"the network scored {points} of {len(result.records)} against texel")"""),
    ("md", """That's the loop. The temporary folder can go:"""),
    ("code", """import shutil

shutil.rmtree(workdir)"""),
]


def build():
    """Return the notebook as a notebook node, outputs empty."""
    return notebook_of(CELLS)


if __name__ == "__main__":
    write(NOTEBOOK, build())
