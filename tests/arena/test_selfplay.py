"""Self-play shards (agents/selfplay.py): fields, resume with nothing lost or doubled, the loader, the CLI."""
import json

import numpy as np
import pytest

from agents import make_agent
from agents.cli import main
from agents.selfplay import (FIELDS, SelfPlayError, finished_games, iter_batches, load_shard, play_game,
                             policy_target, run_selfplay, shard_paths)
from agents.tournament.schedule import derive_seed
from ludo_flow import load_game

SETTINGS = {"game": "tolkuchka", "variant": "standard", "params": {"quiet_plies": 4, "max_plies": 24},
            "position": "", "agent": "random", "seed": 5, "opening_plies": 2, "games_per_shard": 2}


def _all_rows(folder):
    shards = [load_shard(p) for p in shard_paths(folder)]
    return {f: np.concatenate([s[f] for s in shards]) for f in FIELDS}


def test_shards_hold_whole_games_and_resume_fills_the_gap(tmp_path):
    out = tmp_path / "data"
    assert run_selfplay(SETTINGS, out, 5, workers=0)[0] == 5
    rows = _all_rows(out)
    assert sorted(set(rows["game"].tolist())) == [0, 1, 2, 3, 4]
    space = load_game("tolkuchka").kernels.ACTION_SPACE
    assert rows["observation"].shape[1:] == (8, 8, 8) and rows["legal_mask"].shape[1:] == (space,)
    assert np.allclose(rows["policy"].sum(axis=1), 1.0)
    assert rows["legal_mask"][rows["policy"] > 0].all()  # the target is a legal action
    assert set(rows["result"].tolist()) <= {-1.0, 0.0, 1.0}
    assert np.isnan(rows["score"]).all()  # the random agent reports no score
    for g in range(5):
        mine = rows["game"] == g
        assert rows["ply"][mine][0] == SETTINGS["opening_plies"] and (np.diff(rows["ply"][mine]) == 1).all()
        by_player = {int(p): float(r) for p, r in zip(rows["player"][mine], rows["result"][mine])}
        assert by_player.get(0, -by_player.get(1, 0)) == -by_player.get(1, -by_player.get(0, 0))

    # An interrupted run: a shard lost, a temporary file left. Resume plays only the missing games.
    lost = shard_paths(out)[1]
    lost_rows = load_shard(lost)
    lost.unlink()
    (out / ".shard-00000002.npz.123.tmp").write_bytes(b"partial")
    assert finished_games(out) == {0, 1, 4}
    assert run_selfplay(SETTINGS, out, 5, workers=0, resume=True)[0] == 2
    assert not list(out.glob(".*.tmp"))
    again = load_shard(lost)
    assert all(np.array_equal(again[f], lost_rows[f], equal_nan=True) for f in FIELDS)  # same seeds, same games
    assert np.array_equal(np.sort(_all_rows(out)["game"]), np.sort(rows["game"]))  # nothing doubled
    assert run_selfplay(SETTINGS, out, 5, workers=0, resume=True)[0] == 0

    with pytest.raises(SelfPlayError, match="already holds"):
        run_selfplay(SETTINGS, out, 5, workers=0)
    with pytest.raises(SelfPlayError, match="other settings"):
        run_selfplay(dict(SETTINGS, agent="alphabeta:depth=1"), out, 5, workers=0, resume=True)

    # The loader: every row once, in batches; shuffled, the same rows.
    batches = list(iter_batches(out, 16))
    assert all(len(b["game"]) == 16 for b in batches[:-1]) and 0 < len(batches[-1]["game"]) <= 16
    total = sum(len(b["game"]) for b in batches)
    assert total == len(rows["game"])
    mixed = np.concatenate([b["ply"] for b in iter_batches(out, 16, shuffle=True, seed=1, fields=["ply"])])
    assert sorted(mixed.tolist()) == sorted(rows["ply"].tolist())
    assert all(len(b["ply"]) == 16 for b in iter_batches(out, 16, drop_last=True, fields=["ply"]))


def test_loader_refuses_pickles_and_foreign_files(tmp_path):
    bad = tmp_path / "shard-00000000.npz"
    np.savez(bad, **{f: np.array([object()], dtype=object) for f in FIELDS})
    with pytest.raises(SelfPlayError, match="not a readable"):
        list(iter_batches(tmp_path, 4))
    np.savez(bad, game=np.zeros(3, dtype=np.int64))
    with pytest.raises(SelfPlayError, match="no field"):
        list(iter_batches([bad], 4))


def test_policy_targets():
    root = (np.array([7, 3, 5], dtype=np.int32), np.array([30, 10, 0], dtype=np.int64))
    policy, score = policy_target(7, {"score": 0.25}, 16, root)
    assert policy[7] == pytest.approx(0.75) and policy[3] == pytest.approx(0.25) and score == 0.25
    assert policy.sum() == pytest.approx(1.0) and policy[5] == 0.0
    policy, score = policy_target(5, {"score": 1.0, "proven": "win"}, 16, root)
    assert policy[5] == 1.0 and policy.sum() == 1.0 and score == 1.0  # a proven win never visited
    empty = (np.empty(0, dtype=np.int32), np.empty(0, dtype=np.int64))
    policy, score = policy_target(9, {"score": None}, 16, empty)  # a single legal action: no search
    assert policy[9] == 1.0 and np.isnan(score)
    policy, score = policy_target(2, {"score": 1.5, "pv": [2]}, 16)
    assert policy[2] == 1.0 and policy.sum() == 1.0 and score == 1.5
    assert np.isnan(policy_target(2, {"score": None}, 16)[1])


def test_mcts_target_is_the_whole_root_visit_distribution():
    settings = dict(SETTINGS, game="flow", variant="fountain", params={"max_turns": 3},
                    agent="mcts:simulations=300", opening_plies=0)
    rows = play_game(settings, 0)
    assert np.allclose(rows["policy"].sum(axis=1), 1.0)
    assert not (rows["policy"] > 0)[~rows["legal_mask"]].any()  # only legal actions
    assert (np.count_nonzero(rows["policy"], axis=1) > 10).any()  # not the ten most visited only

    # The first row is the search from the start: the visits of every root child, as the tree has them.
    game = load_game("flow", "fountain", max_turns=3)
    agent = make_agent(settings["agent"], game)
    agent.reset(seed=derive_seed(settings["seed"], 0))
    action = agent.select_action(game.new_initial_state())
    tree = agent._tree
    f, n = int(tree.first_child[0]), int(tree.n_children[0])
    actions, visits = agent.root_visit_counts()
    assert n == len(game.new_initial_state().legal_actions()) == len(actions)
    assert actions.tolist() == tree.action[f:f + n].tolist() and visits.tolist() == tree.visits[f:f + n].tolist()
    expected = np.zeros_like(rows["policy"][0])
    expected[actions] = visits / visits.sum()
    assert np.allclose(rows["policy"][0], expected) and rows["policy"][0].argmax() == action
    assert rows["score"][0] == pytest.approx(agent.last_stats["score"])


@pytest.mark.slow  # worker processes start and load the compiled code
def test_cli_selfplay_with_workers(tmp_path, capsys):
    out = tmp_path / "cli"
    args = ["selfplay", "tolkuchka", "--param", "max_plies=20", "--agent", "random", "--games", "4",
            "--games-per-shard", "1", "--workers", "2", "--out", str(out), "--quiet"]
    assert main(args) == 0
    assert "4 games" in capsys.readouterr().out
    assert finished_games(out) == {0, 1, 2, 3}
    assert json.loads((out / "selfplay.json").read_text())["params"]["max_plies"] == 20
    assert main(args) == 2 and "already holds" in capsys.readouterr().err
    assert main(args + ["--resume"]) == 0 and "0 games" in capsys.readouterr().out
