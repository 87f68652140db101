"""Game clocks: time controls, both sides' clocks, the time manager, time forfeits, records, CLI."""
import pytest

from clitext import messages
import ludo_flow
from agents.cli import main
from agents.play import play_game
from agents.records import RecordError, check_record, load_records
from agents.registry import make_agent
from agents.timecontrol import (HORIZON, MAX_SHARE, MIN_MOVE_TIME, GameClock, TimeControl, TimeControlError,
                                TimeManager, allot, parse_time_control, parse_time_margin)
from agents.tournament import Tournament, TournamentConfig, TournamentError
from own_agents import SleepyAgent


@pytest.mark.parametrize("text, base, increment, moves, shown", [
    ("10+0.1", 10.0, 0.1, 0, "10+0.1"),
    ("40/60", 60.0, 0.0, 40, "40/60"),
    ("40/1:30+0.5", 90.0, 0.5, 40, "40/90+0.5"),
    ("1:0", 60.0, 0.0, 0, "60"),
    (" .5+.01 ", 0.5, 0.01, 0, "0.5+0.01"),
    ("0+0.1", 0.0, 0.1, 0, "0+0.1"),
])
def test_time_controls_parse_as_fastchess_writes_them(text, base, increment, moves, shown):
    tc = parse_time_control(text, 25)
    assert (tc.base, tc.increment, tc.moves, tc.margin) == (base, increment, moves, 0.025)
    assert tc.text() == shown
    assert parse_time_control(tc.text(), 25) == tc


@pytest.mark.parametrize("text", ["", "abc", "10+", "-1", "0", "0/10", "10+0.1+1", "1e3", "nan", "inf",
                                  "10 + 1", "40/", "/10", "1:2:3", "9" * 60, None, 10])
def test_bad_time_controls_are_refused_in_one_line(text):
    with pytest.raises(TimeControlError) as err:
        parse_time_control(text)
    assert "\n" not in str(err.value) and len(str(err.value)) < 200


@pytest.mark.parametrize("margin", [-1, "x", float("nan"), float("inf"), True, 1e12])
def test_bad_time_margins_are_refused(margin):
    with pytest.raises(TimeControlError, match="time margin"):
        parse_time_margin(margin)


def test_the_clock_runs_as_fastchess_runs_it():
    clock = GameClock(TimeControl(base=1.0, increment=0.1, moves=2, margin=0.05))
    assert clock.reading(0) == (1.1, 0.1, 2)
    assert clock.spend(0, 0.3) and clock.remaining[0] == pytest.approx(0.9)
    assert clock.reading(0)[2] == 1 and clock.reading(1) == (1.1, 0.1, 2)
    assert clock.spend(0, 0.2)                      # the period's last move: the base again
    assert clock.remaining[0] == pytest.approx(1.8) and clock.reading(0)[2] == 2
    assert clock.spend(0, 1.83)                     # 30 ms over, within the 50 ms margin: zero
    assert clock.remaining[0] == pytest.approx(0.1)
    assert not clock.spend(0, 0.2)                  # 100 ms over: the flag falls
    assert clock.remaining[0] == pytest.approx(-0.1)
    assert "0.200 s" in clock.flag_reason(0, 0.2)


def test_allot_shares_the_time_left_and_keeps_a_reserve():
    for remaining in (0.0, 0.01, 0.5, 1.0, 10.0, 300.0):
        for increment in (0.0, 0.01, 0.1):
            for mtg in (None, 1, 2, 40):
                t = allot(remaining, increment, mtg)
                assert t >= MIN_MOVE_TIME
                assert t <= max(MIN_MOVE_TIME, 0.8 * remaining)
                if mtg != 1:
                    assert t <= max(MIN_MOVE_TIME, MAX_SHARE * remaining)
    # sudden death without increment: HORIZON moves of it never empty the clock
    left = 10.0
    for _ in range(HORIZON):
        left -= allot(left) + 0.005
    assert left > 0
    assert allot(10.0, 0.0, 10) > allot(10.0, 0.0, None)   # fewer moves to go: more a move


def test_the_time_manager_measures_what_moves_cost_beyond_their_time():
    steady, slow = TimeManager(), TimeManager()
    left_steady = left_slow = 5.0
    for _ in range(10):
        given = steady.allot(left_steady, 0.05)
        left_steady += 0.05 - given - 0.002
        given = slow.allot(left_slow, 0.05)
        left_slow += 0.05 - given - 0.04       # each move overruns by 40 ms
    assert slow.overhead > 0.02 > steady.overhead
    assert allot(3.0, 0.05, None, slow.overhead, slow.spike) < allot(3.0, 0.05, None, steady.overhead,
                                                                     steady.spike)


def test_set_clock_sets_the_time_lifts_default_budgets_and_is_taken_back():
    ab = make_agent("alphabeta")
    ab.set_clock(10.0, 0.1)
    assert ab.clock == (10.0, 0.1, None)
    assert 0 < ab.options["time"] <= MAX_SHARE * 10 and ab.options["depth"] == ab.settings["depth"].high
    assert ab.spec() == "alphabeta"
    ab.set_clock(None)
    assert ab.options["time"] == 0.0 and ab.options["depth"] == 4 and ab.clock is None
    capped = make_agent("alphabeta:depth=3,time=0.01")
    capped.set_clock(10.0, 0.1, 20)
    assert capped.options["depth"] == 3 and capped.options["time"] == 0.01
    assert capped.spec() == "alphabeta:depth=3,time=0.01"
    mcts = make_agent("mcts")
    mcts.set_clock(10.0)
    assert mcts.options["simulations"] == 0 and mcts.options["time"] > 0
    rnd = make_agent("random")
    rnd.set_clock(1.0, 0.0, 5)
    assert rnd.options == {"seed": 0} and rnd.clock.moves_to_go == 5


@pytest.fixture(scope="module")
def flow():
    from agents.warmup import warm
    game = ludo_flow.load_game("flow")
    warm(game, specs=["random", "alphabeta", "mcts"])
    return game


def test_a_clocked_game_records_both_clocks(flow):
    class Plain:  # an agent without set_clock (not a BaseAgent) plays on a clock too
        name, last_stats = "plain", {}

        def reset(self, seed=None):
            pass

        def select_action(self, state):
            return state.legal_actions()[0]

    tc = parse_time_control("60+1", 100)
    for white, black in ((make_agent("random"), make_agent("alphabeta:depth=2")),
                         (make_agent("mcts:simulations=30"), Plain())):
        record = play_game(flow.new_initial_state(), white, black, seed=3, time_control=tc)
        assert record["termination"] != "time_forfeit" and record["forfeit"] is None
        assert record["time_control"] == "60+1" and record["time_margin"] == 0.1
        assert len(record["clocks"]) == record["plies"] > 0
        assert all(0 < c <= 61 + record["plies"] for c in record["clocks"])
        assert record["clock_white"] <= 61 + record["plies"]
        check_record(dict(record, white="a", black="b"))
        assert getattr(white, "clock", None) is None  # the clock is taken back after the game


def test_a_sleeping_agent_loses_on_time(flow):
    tc = parse_time_control("0.2", 10)
    record = play_game(flow.new_initial_state(), SleepyAgent(sleep=0.15), make_agent("random"), seed=1,
                       time_control=tc)
    assert record["termination"] == "time_forfeit" and record["result"] == "0-1"
    assert record["forfeit"]["side"] == "white" and record["forfeit"]["reason"].startswith("time:")
    assert record["clock_white"] < -0.01 and len(record["clocks"]) == record["plies"]
    assert record["plies"] >= 1  # its first move fitted in the 0.2 s, a later one did not
    check_record(dict(record, white="sleepy", black="random"))


@pytest.mark.slow
def test_managed_searches_end_their_games_without_forfeits(flow):
    tc = parse_time_control("1.5+0.05", 500)
    for white, black in (("alphabeta", "mcts"), ("mcts", "alphabeta")):
        record = play_game(flow.new_initial_state(), make_agent(white), make_agent(black), seed=5,
                           time_control=tc)
        assert record["termination"] != "time_forfeit", record["forfeit"]
        assert record["time_white"] + record["time_black"] > 0.1  # the clock, not depth 4, stopped them


def test_records_with_and_without_clocks_are_checked():
    old = {"white": "a", "black": "b", "result": "1-0", "moves": ["x"], "plies": 1}
    assert check_record(dict(old)) == old
    clocked = dict(old, time_control="10+0.1", time_margin=0.0, clocks=[9.9], clock_white=9.9,
                   clock_black=-0.2)
    assert check_record(clocked) is clocked
    for bad in ({"clocks": [9.9, 9.8]}, {"clocks": [-1.0]}, {"clocks": "9.9"}, {"time_control": 10},
                {"time_margin": -0.1}, {"clock_white": float("inf")}, {"clock_black": "1"}):
        with pytest.raises(RecordError):
            check_record(dict(clocked, **bad))


def test_tournament_clock_settings():
    config = TournamentConfig(game="flow", agents=("random", "alphabeta:depth=1"), tc="1:00+0.5", time_margin=20)
    assert config.tc == "60+0.5" and config.time_margin == 20.0
    assert config.time_control() == TimeControl(60.0, 0.5, 0, 0.02)
    assert TournamentConfig(game="flow", agents=("random", "alphabeta:depth=1")).time_control() is None
    for bad in ({"tc": "1+"}, {"tc": "0"}, {"tc": "1", "time_margin": -5}, {"time_margin": 5},
                {"tc": 10}):
        with pytest.raises(TournamentError):
            TournamentConfig(game="flow", agents=("random", "alphabeta:depth=1"), **bad)


def test_a_clocked_tournament_records_its_clock_and_resumes(tmp_path, flow):
    out = str(tmp_path / "clocked.jsonl")
    settings = dict(games=2, workers=0, out=out, progress=False, seed=2)
    plain = Tournament("flow", ["random", "alphabeta:depth=1"], **settings)
    assert "time_control" not in plain.settings()  # files written before clocks still resume
    t = Tournament("flow", ["random", "alphabeta:depth=1"], tc="30+0.5", time_margin=50, **settings)
    assert t.settings()["time_control"] == "30+0.5" and t.settings()["time_margin"] == 50.0
    t.run()
    records = load_records(out)
    assert len(records) == 2
    for r in records:
        assert r["time_control"] == "30+0.5" and r["time_margin"] == 0.05
        assert len(r["clocks"]) == r["plies"] and r["termination"] != "time_forfeit"
    again = Tournament("flow", ["random", "alphabeta:depth=1"], tc="30+0.5", time_margin=50,
                       **dict(settings, resume=True)).run()
    assert again.finished == 2
    with pytest.raises(TournamentError, match="time_control"):
        Tournament("flow", ["random", "alphabeta:depth=1"], tc="20+0.5", time_margin=50,
                   **dict(settings, resume=True)).run()


@pytest.mark.parametrize("words, message", [
    (["--tc", "1+x"], "--tc: a time control is"),
    (["--tc", "0/5"], "--tc: a period"),
    (["--tc", "2", "--time-margin", "-5"], "--time-margin: a time margin must be"),
    (["--time-margin", "5"], "--time-margin needs a time control"),
])
def test_cli_refuses_bad_clocks_in_one_line(words, message, capsys):
    for command in (["play", "flow", "--white", "random", "--black", "random"],
                    ["tournament", "flow", "--agents", "random", "alphabeta:depth=1", "--quiet"]):
        assert main(command + words) == 2
        err = capsys.readouterr().err
        assert message in err and len(messages(err)) == 1


def test_cli_play_on_a_clock(capsys, flow):
    assert main(["play", "flow", "--white", "random", "--black", "alphabeta:depth=1", "--seed", "1",
                 "--tc", "40/30+0.1", "--time-margin", "100"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2].startswith("# clocks (40/30+0.1): White ") and out[-1] in ("1-0", "0-1", "1/2-1/2")
