"""Two random agents play a game in one jitted loop (`State.play_random`): the same moves,
results, final positions and generator states as the move-by-move loop of `play_game`, and
the same tournament records; every hook that needs the moves one by one takes the loop."""
import json

import pytest

import ludo_flow
from agents import play
from agents.movelog import MoveLog
from agents.random_agent import RandomAgent
from agents.registry import make_agent
from agents.tournament import Tournament


@pytest.fixture
def move_by_move(monkeypatch):
    """Turn the jitted loop off (the loop of `play_game` plays every game)."""
    def off():
        monkeypatch.setattr(play, "_random_game", lambda *args: None)
    return off


def _games(name, n, start=None):
    game = ludo_flow.load_game(name)
    white, black = make_agent("random"), make_agent("random:seed=1")
    out = []
    for k in range(n):
        white.reset(k)
        black.reset(5000 + k)
        state = game.new_initial_state() if start is None else start.clone()
        fields = play.play_game(state, white, black, forfeit=True, move_limit=120.0, log=MoveLog())
        del fields["time_white"], fields["time_black"]
        out.append((fields, state.array.tolist(), state.last_action, int(white._rng[0]), int(black._rng[0]),
                    white.last_stats, black.last_stats))
    return out


@pytest.mark.parametrize("name", ["flow", "tolkuchka"])
def test_the_jitted_loop_plays_the_games_of_the_move_by_move_loop(name, move_by_move):
    fast = _games(name, 40)
    move_by_move()
    assert fast == _games(name, 40)
    assert all(f[0]["search"] == {} and f[0]["plies"] == len(f[0]["moves"]) > 0 for f in fast)


def test_a_finished_start_plays_no_move_alike(move_by_move):
    game = ludo_flow.load_game("flow")
    state = game.new_initial_state()
    white = make_agent("random")
    white.reset(3)
    play.play_game(state, white, make_agent("random:seed=1"), seed=2)
    fast = _games("flow", 2, start=state)
    move_by_move()
    assert fast == _games("flow", 2, start=state) and fast[0][0]["moves"] == []


def test_hooks_that_need_each_move_take_the_move_by_move_loop(monkeypatch):
    calls = []
    original = ludo_flow.game.State.play_random

    def counted(self, *args):
        calls.append(1)
        return original(self, *args)

    monkeypatch.setattr(ludo_flow.game.State, "play_random", counted)
    game = ludo_flow.load_game("flow")
    seen = []
    play.play_game(game.new_initial_state(), make_agent("random"), make_agent("random"), seed=1,
                   on_move=lambda state, action, agent: seen.append(action))
    play.play_game(game.new_initial_state(), make_agent("random"), make_agent("random"), seed=1,
                   log=MoveLog({"resign": {"score": 500, "moves": 3}}))

    class Mine(RandomAgent):  # a subclass may choose otherwise: not the jitted loop's to guess
        pass

    play.play_game(game.new_initial_state(), Mine(), make_agent("random"), seed=1)
    assert calls == [] and seen
    thinks = []
    fields = play.play_game(game.new_initial_state(), make_agent("random"), make_agent("random"), seed=1,
                            on_think=thinks.append)
    assert calls == [1] and thinks == [0, None] and fields["plies"] == len(seen)


def test_a_game_over_the_move_limit_is_played_again_move_by_move(monkeypatch):
    game = ludo_flow.load_game("flow")
    expected = play.play_game(game.new_initial_state(), make_agent("random"), make_agent("random:seed=1"), seed=4)
    ticks = iter(range(10 ** 6))
    monkeypatch.setattr(play.time, "perf_counter", lambda: 100.0 * next(ticks))  # every call a slow one
    white, black = make_agent("random"), make_agent("random:seed=1")
    fields = play.play_game(game.new_initial_state(), white, black, seed=4, forfeit=True, move_limit=150.0)
    # the jitted game "took" 100 s: under the limit of 150 s, it stands
    assert fields["moves"] == expected["moves"] and fields["time_white"] + fields["time_black"] == 100.0
    fields = play.play_game(game.new_initial_state(), white, black, seed=4, forfeit=True, move_limit=50.0)
    # over 50 s: played again from the same generators, move by move, and the first move forfeits
    assert fields["termination"] == "forfeit" and fields["moves"] == [] and "move limit" in fields["forfeit"]["reason"]


def _records(path):
    return [(r["id"], r["pair"], r["moves"], r["result"], r["termination"], r["seed_white"])
            for r in map(json.loads, open(path))]


def test_a_tournament_writes_the_same_records_with_or_without_the_jitted_loop(tmp_path, move_by_move):
    def run(out):
        Tournament("flow", ["random", "random:seed=1"], games=24, openings="random:plies=2", seed=1,
                   out=str(out), workers=0, progress=False).run()
        return _records(out)

    fast = run(tmp_path / "fast.jsonl")
    move_by_move()
    assert fast == run(tmp_path / "slow.jsonl") and len(fast) == 24


def test_flow_writes_actions_from_a_table_as_it_wrote_them_before():
    game = ludo_flow.load_game("flow")
    state = game.new_initial_state()
    for action in state.legal_actions():
        assert state.action_to_string(action) == state._action_word(action)
    with pytest.raises(ludo_flow.errors.ActionError):
        state.action_to_string(10 ** 6)
    with pytest.raises(TypeError):
        state.action_to_string([1])
