"""Opening suites: the shipped suites (distinct, balanced), `--openings suite`, the default
tournament, `ludo-flow openings`, bad input and resume."""
import json

import pytest

from clitext import messages
import ludo_flow
from agents.alphabeta import AlphaBetaAgent
from agents.cli import main
from agents import openings
from agents.openings import OpeningsError, build_suite, opening_score, parse_balance, read_header
from agents.records import load_records
from agents.tournament import Tournament, TournamentError, default_openings, random_opening
from agents.tournament.schedule import read_openings_file
from agents.tournament.suites import (canonical_key, equivalent_keys, position_key, suite_names, suite_path)
from ludo_flow import dispatch

FAST = ["random", "alphabeta:depth=1"]
STANDARD = {"flow-standard": ("flow", "standard"), "flow-stones": ("flow", "stones"),
            "flow-fountain": ("flow", "fountain"), "tolkuchka-standard": ("tolkuchka", "standard")}


def _suite(name):
    game_name, variant = STANDARD[name]
    game = ludo_flow.load_game(game_name, variant)
    positions, _ = read_openings_file(game, suite_path(name))
    return game, positions


def test_a_suite_is_shipped_for_every_game_and_variant():
    assert suite_names() == sorted(STANDARD)
    for name in STANDARD:
        game, positions = _suite(name)  # every line a position of the game, the game going on
        assert len(positions) >= 100
        header = read_header(suite_path(name))
        assert header["unique"] == "up to the rules symmetries"
        assert header["balanced"].startswith("depth=")


@pytest.mark.parametrize("name", sorted(STANDARD))
def test_a_suite_has_no_position_twice_nor_a_mirror_image(name):
    game, positions = _suite(name)
    assert len({canonical_key(game.name, p) for p in positions}) == len(positions)


@pytest.mark.parametrize("name", sorted(STANDARD))
def test_a_suite_is_balanced_by_its_stated_criterion(name):
    game, positions = _suite(name)
    balance = parse_balance(read_header(suite_path(name))["balanced"])
    agent = AlphaBetaAgent(depth=balance.depth)
    for text in positions[::len(positions) // 3][:3]:  # a few: a deep search costs up to a second
        score = opening_score(agent, game.from_string(text))
        assert score is not None and abs(score) <= balance.window, (text, score)


@pytest.mark.parametrize("game_name, plies", [("flow", 1), ("flow", 2), ("flow", 3), ("tolkuchka", 0),
                                              ("tolkuchka", 1), ("tolkuchka", 3)])
def test_equivalent_positions_play_alike(game_name, plies):
    # every key of the symmetries is a position of its own: the same move tree, counted by perft
    game = ludo_flow.load_game(game_name)
    start = game.new_initial_state()
    text = start.apply_sequence(" ".join(random_opening(start, plies, 11, "plies"))).to_string()
    counters = " 2" if game_name == "flow" else " 0 1"
    keys = equivalent_keys(game_name, text)
    assert len(keys) == (4 if game_name == "flow" else 16)
    counts = set()
    for key in keys:
        state = game.from_string(key + counters)
        counts.add(int(dispatch.perft(state.game.game_id, state.array, 3)))
    assert len(counts) == 1
    assert canonical_key(game_name, keys[-1] + counters) == canonical_key(game_name, text)


def test_positions_differ_by_more_than_their_counters():
    a = "1r1n1n1r/p1p2pp1/1p3p1p/3p4/3P4/P1P1P1P1/1P5P/R1N1N1R1 w 1 - 2"
    assert position_key("flow", a) == position_key("flow", a[:-1] + "7")
    assert position_key("flow", a) == position_key("flow", a.replace("N", "R"))
    assert position_key("flow", a) != position_key("flow", a.replace(" w ", " b "))


def test_build_suite_keeps_distinct_balanced_positions(monkeypatch):
    start = ludo_flow.load_game("tolkuchka").new_initial_state()
    suite = build_suite(start, 8, turns=2, balance=parse_balance("depth=2,window=0.3"), seed=5)
    assert len(suite.positions) == 8 and all(abs(s) <= 0.3 for s in suite.scores)
    assert len({canonical_key("tolkuchka", p) for p in suite.positions}) == 8
    again = build_suite(start, 8, turns=2, balance=parse_balance("depth=2,window=0.3"), seed=5)
    assert again.positions == suite.positions
    # one random turn each reaches few Tolkuchka positions: fewer than asked, none twice
    monkeypatch.setattr(openings, "TRIES_PER_POSITION", 3)
    few = build_suite(start, 200, turns=1, seed=1)  # 600 candidates
    assert 100 < len(few.positions) <= 131 and few.repeats > 0  # perft(2) = 131


@pytest.mark.parametrize("text, words", [("depth=0", "depth"), ("window=1.5", "window"),
                                         ("window=nan", "window"), ("deep=3", "depth=D,window=X"),
                                         ("depth=x", "whole number")])
def test_bad_balance_settings_are_refused(text, words):
    with pytest.raises(OpeningsError, match=words):
        parse_balance(text)


def test_the_tournament_plays_the_suite_in_an_order_of_its_seed(tmp_path):
    _, positions = _suite("flow-standard")
    t = Tournament("flow", FAST, games=2 * len(positions), openings="suite", seed=3,
                   out=tmp_path / "x.jsonl", workers=0, progress=False)
    assert t.settings()["openings"].startswith("suite:flow-standard sha256:")
    schedule = t.schedule()
    starts = [schedule.opening(k) for k in range(len(positions))]
    assert sorted(s for s, _ in starts) == sorted(positions) and all(m == [] for _, m in starts)
    other = Tournament("flow", FAST, games=20, openings="suite:flow-standard", seed=4,
                       out=tmp_path / "y.jsonl", workers=0, progress=False)
    assert [other.schedule().opening(k)[0] for k in range(10)] != [s for s, _ in starts[:10]]
    assert other.settings()["openings"] == t.settings()["openings"]


@pytest.mark.parametrize("openings, words", [
    ("suite:nosuch", "no opening suite 'nosuch'; the package ships flow-fountain"),
    ("suite:tolkuchka-standard", "not a flow suite"),
    ("suite:../../etc/passwd", "no opening suite"),
])
def test_a_bad_suite_is_refused(tmp_path, openings, words):
    with pytest.raises(TournamentError, match=words):
        Tournament("flow", FAST, games=2, openings=openings, out=tmp_path / "x.jsonl", workers=0)


def test_an_openings_file_with_a_position_twice_is_refused(tmp_path, capsys):
    a = "1r1n1n1r/p1p2pp1/1p3p1p/3p4/3P4/P1P1P1P1/1P5P/R1N1N1R1 w 1 - 2"
    path = tmp_path / "o.txt"
    path.write_text(f"# two\n{a}\n\n{a[:-1]}5\n")
    with pytest.raises(TournamentError, match="o.txt:4: the same position as line 2"):
        Tournament("flow", FAST, games=2, openings=str(path), out=tmp_path / "x.jsonl", workers=0)
    assert main(["tournament", "flow", "--agents", *FAST, "--openings", str(path),
                 "--out", str(tmp_path / "y.jsonl"), "--workers", "0", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert len(messages(err)) == 1 and "the same position as line 2" in err


@pytest.mark.parametrize("openings", ["suite:nosuch", "suite:"])
def test_the_command_line_refuses_a_bad_suite_in_one_line(tmp_path, capsys, openings):
    assert main(["tournament", "flow", "--agents", *FAST, "--openings", openings,
                 "--out", str(tmp_path / "y.jsonl"), "--workers", "0", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert len(messages(err)) == 1 and "no opening suite" in err


def test_default_openings_per_game():
    assert default_openings("flow", "standard") == "suite"
    assert default_openings("flow", "standard", from_variant_start=False) == "random:turns=1"
    assert default_openings("tolkuchka", "standard") == "random:turns=1"
    assert default_openings("nosuch", "standard") == "random:turns=1"


def _fast_defaults(monkeypatch, tmp_path):
    import agents.tournament as tournament
    monkeypatch.setattr(tournament, "DEFAULT_GAMES", 4)
    monkeypatch.setattr(tournament, "DEFAULT_AGENTS", tuple(FAST))
    monkeypatch.chdir(tmp_path)


def test_the_default_flow_tournament_plays_the_suite(tmp_path, capsys, monkeypatch):
    _fast_defaults(monkeypatch, tmp_path)
    assert main(["tournament", "flow", "--workers", "0", "--quiet", "--out", "d.jsonl"]) == 0
    assert "(suite)" in capsys.readouterr().err
    records = load_records(tmp_path / "d.jsonl")
    _, positions = _suite("flow-standard")
    assert len(records) == 4 and all(r["start"] in positions and r["opening"] == [] for r in records)
    assert records[0]["settings"]["openings"].startswith("suite:flow-standard sha256:")


def test_a_resume_rebuilds_the_suite_schedule(tmp_path, capsys):
    out = tmp_path / "s.jsonl"
    main(["tournament", "flow", "--agents", *FAST, "--openings", "suite", "--games", "4", "--seed", "2",
          "--out", str(out), "--workers", "0", "--quiet"])
    full = out.read_text().splitlines(keepends=True)
    out.write_text("".join(full[:2]))  # stopped after two games
    assert main(["tournament", "flow", "--agents", *FAST, "--openings", "suite", "--games", "4", "--seed", "2",
                 "--out", str(out), "--workers", "0", "--quiet", "--resume"]) == 0
    again = {r["id"]: r["start"] for r in map(json.loads, out.read_text().splitlines())}
    assert again == {r["id"]: r["start"] for r in map(json.loads, full)} and len(again) == 4
    capsys.readouterr()
    assert main(["tournament", "flow", "--agents", *FAST, "--openings", "random:turns=1", "--games", "4",
                 "--seed", "2", "--out", str(out), "--workers", "0", "--quiet", "--resume"]) == 2
    assert "openings differ" in capsys.readouterr().err


def test_a_default_tournament_begun_with_random_openings_resumes_with_them(tmp_path, monkeypatch):
    _fast_defaults(monkeypatch, tmp_path)
    assert main(["tournament", "flow", "--workers", "0", "--quiet", "--out", "old.jsonl",
                 "--openings", "random:turns=1"]) == 0
    lines = (tmp_path / "old.jsonl").read_text().splitlines(keepends=True)
    (tmp_path / "old.jsonl").write_text("".join(lines[:1]))
    assert main(["tournament", "flow", "--workers", "0", "--quiet", "--out", "old.jsonl", "--resume"]) == 0
    records = load_records(tmp_path / "old.jsonl")
    assert len(records) == 4 and {r["settings"]["openings"] for r in records} == {"random:turns=1"}


def test_the_openings_command_writes_a_suite_the_runner_reads(tmp_path, capsys):
    path = tmp_path / "tk.txt"
    assert main(["openings", "tolkuchka", "--count", "6", "--turns", "2", "--balanced", "depth=2,window=0.3",
                 "--unique", "--seed", "3", "--out", str(path), "--quiet"]) == 0
    assert "6 positions in" in capsys.readouterr().out
    header = read_header(path)
    assert header["balanced"] == "depth=2,window=0.3" and header["turns"] == "2"
    game = ludo_flow.load_game("tolkuchka")
    positions, _ = read_openings_file(game, path)
    assert len(positions) == 6
    assert main(["tournament", "tolkuchka", "--agents", *FAST, "--openings", str(path), "--games", "2",
                 "--out", str(tmp_path / "t.jsonl"), "--workers", "0", "--quiet"]) == 0


@pytest.mark.parametrize("words, message", [
    (["--count", "0"], "--count"),
    (["--count", "3", "--turns", "0"], "--turns"),
    (["--count", "3", "--balanced", "depth=99"], "depth"),
    (["--count", "3", "--balanced", "window=-1"], "window"),
])
def test_the_openings_command_refuses_bad_settings_in_one_line(tmp_path, capsys, words, message):
    assert main(["openings", "flow", *words, "--out", str(tmp_path / "f.txt"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert len(messages(err)) == 1 and message in err
    assert not (tmp_path / "f.txt").exists()
