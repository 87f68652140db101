"""Self-play shards (agents/selfplay.py): fields, resume with nothing lost or doubled, the loader, the CLI."""
import json

import numpy as np
import pytest

from agents.cli import main
from agents.selfplay import (FIELDS, SelfPlayError, finished_games, iter_batches, load_shard, policy_target,
                             run_selfplay, shard_paths)
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
    policy, score = policy_target(None, 7, {"visits": [(7, 30, 0.25), (3, 10, -0.5)]}, 16)
    assert policy[7] == pytest.approx(0.75) and policy[3] == pytest.approx(0.25) and score == 0.25
    policy, score = policy_target(None, 9, {"visits": [(7, 30, 0.25)], "proven": "win"}, 16)
    assert policy[9] == 1.0 and policy.sum() == 1.0 and score == 1.0  # a proven win outside the most visited
    assert np.isnan(policy_target(None, 9, {"visits": [], "proven": None}, 16)[1])  # a single legal action
    policy, score = policy_target(None, 2, {"score": 1.5, "pv": [2]}, 16)
    assert policy[2] == 1.0 and policy.sum() == 1.0 and score == 1.5
    assert np.isnan(policy_target(None, 2, {"score": None}, 16)[1])


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
