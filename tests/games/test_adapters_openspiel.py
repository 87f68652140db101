"""The OpenSpiel adapter: both games registered with pyspiel, checked against our State objects
move by move, by perft, by OpenSpiel's own API test and bots, and the bridges between OpenSpiel
bots and our agents (skipped without the `openspiel` extra)."""
import base64
import pickle
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import agents  # noqa: E402
import ludo_flow  # noqa: E402
from agents.tournament import Tournament  # noqa: E402
from ludo_flow import registry  # noqa: E402
from agents import openspiel_bots  # noqa: E402
from ludo_flow.adapters import openspiel as adapter  # noqa: E402
from open_spiel.python.algorithms import evaluate_bots, generate_playthrough, mcts  # noqa: E402
from open_spiel.python.bots.uniform_random import UniformRandomBot  # noqa: E402
from open_spiel.python.observation import make_observation  # noqa: E402
from test_flow_perft import TABLE  # noqa: E402

# (OpenSpiel game string, our game name, variant, parameters): short limits keep games short.
CASES = [
    ("ludo_flow_flow(variant=fountain,max_turns=60)", "flow", "fountain", {"max_turns": 60}),
    ("ludo_flow_flow(max_turns=12)", "flow", "standard", {"max_turns": 12}),
    ("ludo_flow_flow(variant=stones,max_turns=30)", "flow", "stones", {"max_turns": 30}),
    ("ludo_flow_tolkuchka(quiet_plies=20,max_plies=120)", "tolkuchka", "standard",
     {"quiet_plies": 20, "max_plies": 120}),
]
IDS = [c[0] for c in CASES]


@pytest.fixture(params=CASES, ids=IDS)
def case(request):
    """Return (pyspiel game, our Game) of one case."""
    text, name, variant, params = request.param
    return pyspiel.load_game(text), ludo_flow.load_game(name, variant, **params)


def test_the_game_type_and_info(case):
    spiel, ours = case
    entry = registry.BY_NAME[ours.name]
    t = spiel.get_type()
    assert t.short_name == f"ludo_flow_{ours.name}"
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert t.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert t.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert spiel.num_players() == 2 and spiel.max_chance_outcomes() == 0
    assert (spiel.min_utility(), spiel.max_utility(), spiel.utility_sum()) == (-1.0, 1.0, 0.0)
    assert spiel.num_distinct_actions() == entry.action_space
    assert spiel.observation_tensor_shape() == list(entry.observation_shape)
    assert spiel.ludo_game == ours
    params = spiel.get_parameters()
    assert params["variant"] == ours.variant and params["position"] == ""
    assert {k: params[k] for k in ours.params} == ours.params
    if ours.name == "flow":
        assert spiel.max_game_length() == ours.params["max_turns"] * 2 * 33
    else:
        assert spiel.max_game_length() == ours.params["max_plies"]


def test_defaults_and_a_start_position_as_parameters():
    assert pyspiel.load_game("ludo_flow_flow").ludo_game == ludo_flow.load_game("flow")
    assert pyspiel.load_game("ludo_flow_tolkuchka").ludo_game == ludo_flow.load_game("tolkuchka")
    position = "8/8/3R4/8/1PP1P3/2p5/1P1P4/8 w 1 - 0"
    game = pyspiel.load_game("ludo_flow_flow", {"position": position, "max_turns": 5})
    state = game.new_initial_state()
    assert state.ludo_state().to_string() == position
    assert game.max_game_length() == 5 * 66
    again = pyspiel.load_game(str(game))  # the game string carries the position
    assert again.new_initial_state().ludo_state().to_string() == position
    assert game.new_initial_state("p1p1p/p1p1p/5/P1P1P/P1P1P w 1 - 0").ludo_state().width == 5


def _spiel_perft(state, depth):
    if depth == 0:
        return 1
    total = 0
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        total += _spiel_perft(child, depth - 1)
    return total


def test_perft_through_the_adapter_from_the_fountain_start_to_depth_4():
    state = pyspiel.load_game("ludo_flow_flow(variant=fountain)").new_initial_state()
    assert [_spiel_perft(state, d) for d in range(1, 5)] == TABLE["fountain"][:4]


def test_perft_through_the_adapter_from_the_tolkuchka_start():
    state = pyspiel.load_game("ludo_flow_tolkuchka").new_initial_state()
    assert [_spiel_perft(state, d) for d in range(1, 4)] == [12, 131, 1201]


def test_random_games_agree_move_by_move_with_our_states(case):
    spiel, ours = case
    entry = registry.BY_NAME[ours.name]
    for seed in range(3):
        rng = random.Random(f"{spiel}-{seed}")
        theirs = spiel.new_initial_state()
        state = ours.new_initial_state()
        while True:
            assert theirs.is_terminal() == state.is_terminal()
            assert str(theirs) == str(state)
            assert np.array_equal(theirs.array, state.array)
            assert theirs.observation_tensor(1) == state.observation().ravel().tolist()
            assert np.array_equal(np.reshape(theirs.observation_tensor(0), entry.observation_shape),
                                  state.observation())
            assert theirs.observation_string(0) == str(state)
            if state.is_terminal():
                break
            legal = theirs.legal_actions()
            assert legal == sorted(state.legal_actions())
            assert theirs.current_player() == state.current_player()
            assert theirs.legal_actions_mask() == [int(a in legal) for a in range(entry.action_space)]
            action = rng.choice(legal)
            text = theirs.action_to_string(theirs.current_player(), action)
            assert text == state.action_to_string(action)
            assert theirs.string_to_action(text) == action
            theirs.apply_action(action)
            state.apply(action)
        assert theirs.current_player() == pyspiel.PlayerId.TERMINAL
        assert theirs.returns() == state.returns() and theirs.rewards() == state.returns()
        assert theirs.legal_actions() == []


def test_clone_serialise_and_pickle_keep_the_position(case):
    spiel, _ = case
    state = spiel.new_initial_state()
    rng = random.Random(5)
    for _ in range(7):
        state.apply_action(rng.choice(state.legal_actions()))
    clone = state.clone()
    assert np.array_equal(clone.array, state.array) and clone.array is not state.array
    clone.apply_action(clone.legal_actions()[0])
    assert clone.history() != state.history()  # the clone is independent
    game2, state2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(spiel, state))
    assert str(game2) == str(spiel) and np.array_equal(state2.array, state.array)
    assert state2.history() == state.history()
    state3 = pickle.loads(pickle.dumps(state))
    assert np.array_equal(state3.array, state.array) and state3.history() == state.history()
    assert str(pickle.loads(pickle.dumps(spiel))) == str(spiel)


def test_serialised_states_round_trip_through_the_state_layer(case):
    # Every state of random games, choose phases included, comes back with its array, history
    # and move number; so does a state started from a position string or made from our State.
    spiel, ours = case
    choosing = 0
    for seed in range(4):
        rng = random.Random(f"serialise-{spiel}-{seed}")
        state = spiel.new_initial_state()
        while True:
            text = state.serialize()
            assert text.startswith(f"position={state.get_game()._start_string}\nactions=")
            back = spiel.deserialize_state(text)
            assert np.array_equal(back.array, state.array)
            assert back.history() == state.history() and back.move_number() == state.move_number()
            assert back.serialize() == text
            choosing += bool(getattr(state.ludo_state(), "choosing", False))
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
    assert choosing > 0 or ours.name == "tolkuchka"
    middle = ours.new_initial_state()
    rng = random.Random(7)
    for _ in range(9):
        middle.apply(rng.choice(middle.legal_actions()))
        while getattr(middle, "choosing", False):  # on to a position with a position string
            middle.apply(rng.choice(middle.legal_actions()))
    for start in (spiel.new_initial_state(middle.to_string()), adapter.spiel_state(middle)):
        for _ in range(3):
            if not start.is_terminal():
                start.apply_action(rng.choice(start.legal_actions()))
        back = spiel.deserialize_state(start.serialize())
        assert str(back) == str(start) and back.legal_actions() == start.legal_actions()
        assert back.history() == start.history() and back.serialize() == start.serialize()


def test_a_state_made_from_a_choose_phase_has_nothing_to_serialise_from():
    game = ludo_flow.load_game("flow", "standard", max_turns=12)
    for seed in range(100):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal() and not state.choosing:
            state.apply(rng.choice(state.legal_actions()))
        if state.choosing:
            break
    theirs = adapter.spiel_state(state)
    with pytest.raises(ludo_flow.PositionError, match="no position string"):
        theirs.serialize()


class _Payload:
    """Unpickling it creates the file `path`: the proof that a pickle was loaded."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return open, (self.path, "a")


def test_deserialize_never_unpickles_its_input(tmp_path):
    # OpenSpiel's own format for Python games: the state's attributes as a base64 pickle.
    # A pickle that runs code, and one of a 1-word array that the kernels would read past.
    marker = tmp_path / "payload-ran"
    game = pyspiel.load_game("ludo_flow_flow(variant=fountain)")
    for attributes in ({"_array": _Payload(marker)}, {"_array": np.zeros(1, np.uint64)}):
        payload = base64.b64encode(pickle.dumps(attributes)).decode()
        with pytest.raises(ludo_flow.ParameterError, match="two lines"):
            game.deserialize_state(f"history=\nmove_number=0\n__dict__={payload}")
    assert not marker.exists()


@pytest.mark.parametrize("text, error, words", [
    (None, ludo_flow.ParameterError, "is a str"),
    (b"position=", ludo_flow.ParameterError, "is a str"),
    ("", ludo_flow.ParameterError, "two lines"),
    ("position=p1p1p/p1p1p/5/P1P1P/P1P1P w 1 - 0", ludo_flow.ParameterError, "two lines"),
    ("actions=\nposition=p1p1p/p1p1p/5/P1P1P/P1P1P w 1 - 0", ludo_flow.ParameterError, "two lines"),
    ("position=p1p1p/p1p1p/5/P1P1P/P1P1P w 1 - 0\nactions=\n", ludo_flow.ParameterError, "two lines"),
    ("position=\nactions=", ludo_flow.PositionError, "5 fields"),
    ("position=p1p1p/p1p1p/5/P1P1P/P1P1P w 1 - 0 extra\nactions=", ludo_flow.PositionError, "5 fields"),
    ("position=p1p1p/p1p1p/4000000000/P1P1P/P1P1P w 1 - 0\nactions=", ludo_flow.PositionError,
     "unexpected character"),
    ("position=p1p1p/p1p1p/5/P1P1P/P1P1P w 1 - 0\nactions=a1-b1 a1-b1", ludo_flow.ActionError, "legal"),
    ("position=p1p1p/p1p1p/5/P1P1P/P1P1P w 1 - 0\nactions=4096", ludo_flow.ActionError, "notation"),
    ("position=p1p1p/p1p1p/5/P1P1P/P1P1P w 1 - 0\nactions=z9-a1", ludo_flow.ActionError, "notation"),
    ("position=5/5/5/P4/5 b 1 - 3\nactions=a2-a3", ludo_flow.ActionError, "the game is over"),
])
def test_malformed_serialised_states_are_refused_in_one_line(text, error, words):
    game = pyspiel.load_game("ludo_flow_flow(variant=fountain,max_turns=3)")
    with pytest.raises(error, match=words) as caught:
        game.deserialize_state(text)
    assert "\n" not in str(caught.value)


def test_openspiel_api_checks_pass(case):
    spiel, _ = case
    pyspiel.random_sim_test(spiel, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("text", ["ludo_flow_flow(variant=fountain,max_turns=2)",
                                  "ludo_flow_tolkuchka(max_plies=6)"])
def test_an_openspiel_playthrough_and_its_python_observation_api(text):
    """OpenSpiel's playthrough generator asks every API question at every state of a game."""
    report = generate_playthrough.playthrough(text, action_sequence=None, alsologtostdout=False)
    assert "# State 0" in report and "IsTerminal() = True" in report
    game = pyspiel.load_game(text)
    state = game.new_initial_state()
    observation = make_observation(game)
    while not state.is_terminal():
        observation.set_from(state, 0)
        assert observation.tensor.tolist() == state.observation_tensor(0)
        assert np.array_equal(observation.dict["observation"], state.ludo_state().observation())
        assert observation.string_from(state, 1) == state.observation_string(1) == str(state)
        state.apply_action(state.legal_actions()[-1])


def test_openspiel_random_and_mcts_bots_play_full_games():
    game = pyspiel.load_game("ludo_flow_flow(variant=fountain,max_turns=40)")
    rng = np.random.RandomState(3)
    python_mcts = mcts.MCTSBot(game, 2.0, 30, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    cpp_mcts = openspiel_bots.make_bot("mcts_cpp", game, 1, seed=4, simulations=30)
    for bots in ([python_mcts, UniformRandomBot(1, rng)], [UniformRandomBot(0, rng), cpp_mcts],
                 [python_mcts, cpp_mcts]):
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        assert returns in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])
    tk = pyspiel.load_game("ludo_flow_tolkuchka(max_plies=60)")
    bots = [openspiel_bots.make_bot("mcts", tk, 0, seed=1, simulations=20), openspiel_bots.make_bot("random", tk, 1, seed=2)]
    state = tk.new_initial_state()
    evaluate_bots.evaluate_bots(state, bots, rng)
    assert state.is_terminal()


def test_our_agents_as_openspiel_bots():
    game = pyspiel.load_game("ludo_flow_flow(variant=fountain,max_turns=40)")
    ours = openspiel_bots.AgentBot(agents.make_agent("alphabeta:depth=2"))
    theirs = openspiel_bots.make_bot("mcts", game, 1, seed=2, simulations=20)
    state = game.new_initial_state()
    returns = evaluate_bots.evaluate_bots(state, [ours, theirs], np.random.RandomState(1))
    assert state.is_terminal() and returns == state.ludo_state().returns()
    replay = ludo_flow.load_game("flow", "fountain", max_turns=40).new_initial_state()
    for action in state.history():
        replay.apply(action)  # every move either side made was legal in our engine
    assert np.array_equal(replay.array, state.array)


def test_openspiel_bots_as_our_agents_in_a_tournament(tmp_path):
    specs = ["openspiel:bot=mcts,simulations=20", "openspiel:bot=random,seed=3"]
    moves = []
    for workers in (0, 1):  # in this process, and built from its spec in a spawned worker
        out = tmp_path / f"t{workers}.jsonl"
        result = Tournament("flow", specs, games=2, variant="fountain", params={"max_turns": 30}, seed=1,
                            out=str(out), workers=workers, progress=False).run()
        assert len(result.records) == 2 and {r["white"] for r in result.records} == set(specs)
        assert all(r["forfeit"] is None for r in result.records)
        moves.append(sorted((r["id"], r["moves"]) for r in result.records))
    assert moves[0] == moves[1]  # seeded: the same games in either place
    agent = agents.make_agent("openspiel:bot=mcts_cpp,simulations=10,seed=5")
    state = ludo_flow.load_game("tolkuchka").new_initial_state()
    action = agent.select_action(state)
    assert action in state.legal_actions() and tuple(agent.last_stats) == agent.STATS_KEYS
    agent.reset()
    assert agent.select_action(state) == action  # the same seed and state: the same search
    bot_agent = openspiel_bots.BotAgent(lambda game, player, seed: UniformRandomBot(player, np.random.RandomState(seed)),
                                 name="uniform", seed=9)
    assert bot_agent.select_action(state) in state.legal_actions()


def test_ctrl_c_in_an_openspiel_bot_is_a_search_interrupted(monkeypatch):
    class Interrupted(pyspiel.Bot):
        def __init__(self):
            pyspiel.Bot.__init__(self)

        def step(self, state):
            raise KeyboardInterrupt

    monkeypatch.setattr(openspiel_bots, "make_bot", lambda *args, **kwargs: Interrupted())
    agent = agents.make_agent("openspiel:bot=random")
    state = ludo_flow.load_game("flow", "fountain").new_initial_state()
    with pytest.raises(agents.SearchInterrupted) as caught:
        agent.select_action(state)
    assert caught.value.action is None and tuple(caught.value.stats) == agent.STATS_KEYS


def test_states_convert_both_ways():
    state = ludo_flow.load_game("flow", "fountain").new_initial_state()
    state.apply_sequence("a2-b2")
    theirs = adapter.spiel_state(state)
    assert np.array_equal(theirs.array, state.array) and theirs.array is not state.array
    assert adapter.ludo_state(theirs) == state
    assert theirs.get_game().ludo_game == state.game
    ours = ludo_flow.load_game("flow", "fountain", max_turns=9)
    assert adapter.spiel_game(ours).ludo_game == ours and str(adapter.spiel_game(ours)) == str(
        pyspiel.load_game("ludo_flow_flow(variant=fountain,max_turns=9)"))
    assert adapter.spiel_game(ours) is adapter.spiel_game(ludo_flow.load_game("flow", "fountain", max_turns=9))
    assert adapter.spiel_game("tolkuchka").ludo_game == ludo_flow.load_game("tolkuchka")


def test_bad_parameters_and_actions_raise_clear_errors():
    with pytest.raises(ludo_flow.ParameterError, match="unknown flow variant"):
        pyspiel.load_game("ludo_flow_flow(variant=nope)")
    with pytest.raises(ludo_flow.ParameterError, match=r"max_turns must be in \[1, 65535\]"):
        pyspiel.load_game("ludo_flow_flow(max_turns=0)")
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'depth'"):
        pyspiel.load_game("ludo_flow_tolkuchka(depth=3)")
    with pytest.raises(ludo_flow.PositionError):
        pyspiel.load_game("ludo_flow_tolkuchka", {"position": "8/8 w - 0 0"})
    with pytest.raises(ludo_flow.ParameterError, match="already over"):
        pyspiel.load_game("ludo_flow_flow", {"position": "5/5/5/P4/5 b 1 - 3", "max_turns": 3})
    game = pyspiel.load_game("ludo_flow_flow(variant=fountain)")
    state = game.new_initial_state()
    with pytest.raises(ludo_flow.ActionError, match="illegal here; legal: a1-b1"):
        state.apply_action(5)
    with pytest.raises(ludo_flow.ParameterError):
        game.new_initial_state(3)
    with pytest.raises(agents.AgentError, match="bot must be one of"):
        agents.make_agent("openspiel:bot=alphazero")
    with pytest.raises(ludo_flow.ParameterError, match="unknown OpenSpiel bot"):
        openspiel_bots.make_bot("nope", game, 0)
    with pytest.raises(ludo_flow.ParameterError, match="not a ludo_flow OpenSpiel state"):
        adapter.ludo_state(pyspiel.load_game("tic_tac_toe").new_initial_state())
