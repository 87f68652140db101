"""The learned evaluation (`ludo_flow.network`, `eval=net:FILE`) and its trainer (`agents.train`):
the jitted forward pass equals numpy's and scikit-learn's prediction on real positions of both
games, the searches run with it and repeat themselves for a seed, bad weight files are refused
with one line, training lowers the error, and without scikit-learn training says which extra
to install."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ludo_flow
from agents import AgentError, make_agent
from agents import cli
from agents.train import Dataset, TrainError, load_dataset, targets, train
from ludo_flow import dispatch, network

from clitext import messages
from walks import random_walk

REPO = Path(__file__).resolve().parents[2]


def random_weights(game, hidden=16, seed=0):
    """Return (w1, b1, w2, b2) float32 of a random network for `game`."""
    rng = np.random.default_rng(seed)
    inputs = int(np.prod(ludo_flow.load_game(game).observation_shape))
    return (rng.normal(0, 0.1, (inputs, hidden)).astype(np.float32),
            rng.normal(0, 0.1, hidden).astype(np.float32),
            rng.normal(0, 0.5, hidden).astype(np.float32), np.array([0.05], dtype=np.float32))


def weight_file(tmp_path, game="flow", name="net.npz", **kw):
    return network.save_net(tmp_path / name, game, *random_weights(game, **kw))


def positions(game, variant=None, walks=6, plies=60):
    g = ludo_flow.load_game(game, variant) if variant else ludo_flow.load_game(game)
    out = []
    for seed in range(walks):
        out += [s for s in random_walk(g, seed, plies) if not s.is_terminal()]
    return out


@pytest.mark.parametrize("game,variant", [("flow", None), ("flow", "fountain"), ("tolkuchka", None)])
def test_the_jitted_forward_pass_equals_numpy_on_real_positions(tmp_path, game, variant):
    loaded = network.load_net(weight_file(tmp_path, game))
    states = positions(game, variant)
    assert len(states) > 100
    observations = np.stack([s.observation() for s in states])
    expected = network.forward_numpy(loaded.w1, loaded.b1, loaded.w2, loaded.b2, observations)
    gid = states[0].game.game_id
    got = np.array([network.value(gid, s.array, loaded.net) for s in states])
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)
    assert np.all(np.abs(got) < 1.0) and np.std(got) > 0.01  # a real spread, strictly inside
    # the searches' entry points pick it by the evaluation id, and the others as before
    for s, v in zip(states[:20], got):
        assert network.evaluate(gid, s.array, network.NET, loaded.net) == v
        assert (network.evaluate(gid, s.array, dispatch.TUNED, loaded.net)
                == dispatch.evaluate(gid, s.array, dispatch.TUNED))


def test_child_outcome_with_the_network_is_apply_then_result_and_value(tmp_path):
    loaded = network.load_net(weight_file(tmp_path))
    scratch = np.zeros(ludo_flow.load_game("flow").new_initial_state().array.size, dtype=np.uint64)
    checked = 0
    for s in positions("flow", "fountain", walks=3)[::5]:
        for a in s.legal_actions()[:8]:
            child = s.clone()
            child.apply(a)
            code, v = network.child_outcome(0, s.array, a, network.NET, loaded.net, scratch)
            expected = {1: 1.0, 2: -1.0}.get(int(code))
            if expected is None:
                expected = network.value(0, child.array, loaded.net)
            assert code == dispatch.result(0, child.array) and v == expected
            checked += 1
    assert checked > 50


@pytest.mark.slow  # compiles both searches for the network: outside the fast lane
@pytest.mark.parametrize("spec", ["alphabeta:depth=3", "mcts:simulations=300,seed=5"])
def test_a_search_with_the_network_runs_and_repeats_for_a_seed(tmp_path, spec):
    path = weight_file(tmp_path)
    game = ludo_flow.load_game("flow", "fountain")

    def play(agent_spec):
        agent = make_agent(agent_spec, game)
        state = game.new_initial_state()
        moves, stats = [], []
        for _ in range(6):
            if state.is_terminal():
                break
            moves.append(agent.select_action(state))
            stats.append(agent.last_stats.get("nodes"))
            state.apply(moves[-1])
        return moves, stats

    first = play(f"{spec},eval=net:{path}")
    assert first == play(f"{spec},eval=net:{path}")
    # another network plays otherwise: the weights are read, not compiled in
    other = network.save_net(tmp_path / "other.npz", "flow", *random_weights("flow", seed=9))
    assert play(f"{spec},eval=net:{other}") != first


def test_the_network_is_for_one_game(tmp_path):
    agent = make_agent(f"alphabeta:depth=1,eval=net:{weight_file(tmp_path, 'tolkuchka')}")
    with pytest.raises(AgentError, match="the network is for tolkuchka, not flow"):
        agent.select_action(ludo_flow.load_game("flow").new_initial_state())


def _save(path, **arrays):
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    return path


def _fields(**changes):
    w1, b1, w2, b2 = random_weights("flow", hidden=4)
    out = dict(format=np.array(network.FORMAT), game=np.array("flow"), w1=w1, b1=b1, w2=w2, b2=b2)
    out.update(changes)
    return {k: v for k, v in out.items() if v is not None}


@pytest.mark.parametrize("arrays,problem", [
    (_fields(w1=None), "no array 'w1'"),
    (_fields(w1=np.zeros((768, 4), dtype=np.float64)), "w1 must be float32, got float64"),
    (_fields(w1=np.zeros((700, 4), dtype=np.float32)), r"w1 must have shape \(768, hidden\)"),
    (_fields(b1=np.zeros(5, dtype=np.float32)), r"b1 must have shape \(4,\)"),
    (_fields(w2=np.array([1, np.nan, 0, 0], dtype=np.float32)), "w2 holds a value that is not finite"),
    (_fields(game=np.array("chess")), "game 'chess' is not one of flow, tolkuchka"),
    (_fields(format=np.array("other")), "format 'other' is not"),
    (_fields(format=np.array("ludo_flow value net 1")),
     "format 'ludo_flow value net 1' is not 'ludo_flow value net 2' .*train it again"),
    (_fields(game=np.array([1, 2])), "game must be a string"),
])
def test_bad_weight_files_are_refused_naming_the_problem(tmp_path, arrays, problem):
    path = _save(tmp_path / "bad.npz", **arrays)
    with pytest.raises(network.NetError, match=problem):
        network.load_net(path)
    with pytest.raises(AgentError, match="alphabeta: setting eval: net file .*" + problem):
        make_agent(f"alphabeta:eval=net:{path}")


def test_files_that_are_not_weights_are_refused(tmp_path):
    (tmp_path / "text.npz").write_text("not a zip")
    pickled = _save(tmp_path / "pickled.npz", **_fields(b2=np.array([{"x": 1}], dtype=object)))
    for path, problem in ((tmp_path / "missing.npz", "no such file"),
                          (tmp_path / "text.npz", "not a .*npz file"),
                          (pickled, "holds pickled objects")):
        with pytest.raises(network.NetError, match=problem):
            network.load_net(path)
    with pytest.raises(AgentError, match="mcts: setting eval must be one of hand, texel or net:FILE"):
        make_agent("mcts:eval=net")


def test_a_bad_weight_file_is_one_line_on_the_command_line(tmp_path):
    (tmp_path / "bad.npz").write_text("not a zip")
    done = subprocess.run([sys.executable, "-m", "agents.cli", "tournament", "flow", "--agents",
                           "random", f"alphabeta:depth=1,eval=net:{tmp_path / 'bad.npz'}",
                           "--games", "2", "--out", str(tmp_path / "t.jsonl")],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    lines = messages(done.stderr)
    assert len(lines) == 1 and "net file" in lines[0] and "bad.npz" in lines[0], done.stderr


def test_targets_are_whites_view_and_blend_the_score():
    result = np.array([1.0, 1.0, -1.0, 0.0])
    score = np.array([0.5, np.nan, -999.0, -0.2])  # a loss found: -(1000 - p)
    player = np.array([0, 1, 1, 0])
    np.testing.assert_allclose(targets(result, score, player, 0.0), [1, -1, 1, 0])
    np.testing.assert_allclose(targets(result, score, player, 0.5), [0.75, -1, 1, -0.1])


def test_training_learns_a_signal_and_writes_a_file_the_search_reads(tmp_path):
    rng = np.random.default_rng(1)
    x = (rng.random((3000, 768)) < 0.05).astype(np.float32)
    y = np.tanh(x[:, :64].sum(axis=1) - x[:, 128:192].sum(axis=1))  # pieces on two planes
    lines = []
    report = train(Dataset(x, y, np.arange(3000)), hidden=8, epochs=6, lr=3e-3, log=lines.append)
    assert report.held_out_rows == 300 and report.train_rows == 2700
    assert report.held_out_mse < 0.5 * report.held_out_baseline_mse
    assert len(report.epochs) == len(lines) == 6 and "held-out mse" in lines[-1]
    path = network.save_net(tmp_path / "fit.npz", "flow", report.w1, report.b1, report.w2, report.b2)
    loaded = network.load_net(path)
    np.testing.assert_allclose(  # the file's network is the model's, a linear output clipped
        network.forward_numpy(loaded.w1, loaded.b1, loaded.w2, loaded.b2, x[:50].reshape(50, 12, 8, 8)),
        np.clip(report.model.predict(x[:50].astype(np.float64)), -network.VALUE_BOUND,
                network.VALUE_BOUND), rtol=0, atol=1e-9)
    # the same seed fits the same network
    again = train(Dataset(x, y, np.arange(3000)), hidden=8, epochs=6, lr=3e-3)
    assert np.array_equal(again.w1, report.w1) and np.array_equal(again.b2, report.b2)


@pytest.mark.parametrize("game,variant", [("flow", "fountain"), ("tolkuchka", None)])
def test_the_searchs_value_is_scikit_learns_prediction_clipped(tmp_path, game, variant):
    states = positions(game, variant)
    observations = np.stack([s.observation() for s in states])
    x = observations.reshape(len(states), -1)
    # a target the planes carry: the first plane's pieces against the second's
    y = np.tanh(0.3 * (observations[:, 0].sum(axis=(1, 2)) - observations[:, 1].sum(axis=(1, 2))))
    report = train(Dataset(x, y, np.arange(len(x))), hidden=16, epochs=4, lr=3e-3, seed=2)
    loaded = network.load_net(network.save_net(tmp_path / "net.npz", game, report.w1, report.b1,
                                               report.w2, report.b2))
    gid = states[0].game.game_id
    got = np.array([network.value(gid, s.array, loaded.net) for s in states])
    assert np.std(got) > 0.01 and np.all(np.abs(got) < 1.0)
    bound = network.VALUE_BOUND
    # float64 rows: predict computes in float64 as the search does, to rounding
    np.testing.assert_allclose(got, np.clip(report.model.predict(x.astype(np.float64)), -bound, bound),
                               rtol=0, atol=1e-9)
    # the float32 rows it was fitted on: predict computes in float32
    np.testing.assert_allclose(got, np.clip(report.model.predict(x), -bound, bound), rtol=0, atol=1e-5)


def test_without_scikit_learn_training_names_the_extra_in_one_line(tmp_path, monkeypatch, capsys):
    for name in ("sklearn", "sklearn.neural_network"):
        monkeypatch.setitem(sys.modules, name, None)  # `import sklearn` raises ImportError
    rng = np.random.default_rng(0)
    with pytest.raises(TrainError, match=r'pip install "ludo_flow\[learn\]"'):
        train(Dataset(rng.random((20, 768)).astype(np.float32), np.zeros(20), np.arange(20)))
    status = cli.main(["train", "flow", "--data", str(tmp_path), "--out", str(tmp_path / "net.npz")])
    err = capsys.readouterr().err
    assert status == 2 and len(messages(err)) == 1, err
    assert 'scikit-learn' in err and 'pip install "ludo_flow[learn]"' in err and "Traceback" not in err
    assert not (tmp_path / "net.npz").exists()


def test_a_weights_file_that_cannot_be_written_is_refused_before_training(tmp_path, capsys):
    # it was a traceback after the whole training (--out naming a folder, a missing folder)
    for bad in (tmp_path, tmp_path / "no-such-folder" / "net.npz"):
        status = cli.main(["train", "flow", "--data", str(tmp_path), "--out", str(bad)])
        err = capsys.readouterr().err
        assert status == 2 and messages(err) == [
            f"ludo-flow: error: --out: cannot write {str(bad)!r}: "
            + ("it is a folder" if bad == tmp_path else f"no folder {str(bad.parent)!r}")], err


def test_the_dataset_reads_self_play_shards(tmp_path):
    out = tmp_path / "data"
    done = subprocess.run([sys.executable, "-m", "agents.cli", "selfplay", "flow", "--variant",
                           "fountain", "--agent", "random", "--games", "4", "--out", str(out),
                           "--workers", "1", "--quiet"], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    data = load_dataset([out], "flow")
    assert data.x.shape[1] == 768 and len(data.x) == len(data.y) == len(data.game) > 0
    assert set(np.unique(np.abs(data.y))) <= {0.0, 1.0}
    trained = subprocess.run([sys.executable, "-m", "agents.cli", "train", "flow", "--data", str(out),
                              "--out", str(tmp_path / "net.npz"), "--hidden", "4", "--epochs", "1",
                              "--quiet"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert trained.returncode == 0, trained.stderr
    assert "held-out mse" in trained.stdout and network.load_net(tmp_path / "net.npz").game == "flow"
    refused = subprocess.run([sys.executable, "-m", "agents.cli", "train", "flow", "--data",
                              str(tmp_path / "nothing"), "--out", str(tmp_path / "x.npz")],
                             cwd=REPO, capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2 and len(messages(refused.stderr)) == 1, refused.stderr
