"""Trust: a tournament never destroys or doubles a user's data, and bad input gets one line.

Each test here is one promise, tried as a user (or an attacker) would: through the command
line in a process of its own where processes, signals and files are what is tested.
"""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clitext import messages
from agents.cli import main
from agents.records import ReadReport, load_records, record_line

REPO = Path(__file__).resolve().parents[2]
FAST = ["random", "random:seed=1"]


def ludo_flow(*args, timeout=300, **kwargs):
    """Run `python -m agents.cli ARGS` in a new process; return the CompletedProcess."""
    return subprocess.run([sys.executable, "-m", "agents.cli", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout, **kwargs)


def one_line_error(done):
    """Assert a command failed with exit status 2 and one line on stderr, no traceback."""
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("ludo-flow: error: "), done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


def small_tournament(out, *extra, games=4):
    """Run a quick random-vs-random tournament in this process; return the exit status."""
    return main(["tournament", "flow", "--variant", "fountain", "--agents", *FAST, "--games", str(games),
                 "--workers", "0", "--quiet", "--out", str(out), *extra])


# ---- never destroy or double a user's data -------------------------------------------------------
@pytest.mark.parametrize("content", [b"line one\nmy notes", b"\x00\x01\xff binary \x89PNG\r\n\x1a\n" * 40,
                                     b'{"white": "a", "black": "b", "result": "1-0"}\n'])
def test_resume_refuses_a_file_that_is_not_this_tournaments_records_and_leaves_it_byte_identical(
        tmp_path, capsys, content):
    out = tmp_path / "notes.txt"
    out.write_bytes(content)
    assert small_tournament(out, "--resume") == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("ludo-flow: error:")]
    assert len(errors) == 1 and ("left as it is" in errors[0] or "other settings" in errors[0])
    assert out.read_bytes() == content


def test_resume_cuts_only_a_cut_last_line_after_checking_the_whole_file(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert small_tournament(out, games=6) == 0
    whole = out.read_bytes()
    out.write_bytes(whole[:-40])  # a kill in the middle of the last record
    assert small_tournament(out, "--resume", games=6) == 0
    assert "cut short by a kill" in capsys.readouterr().err
    records = load_records(out)
    assert sorted(r["id"] for r in records) == sorted({r["id"] for r in records}) and len(records) == 6


@pytest.mark.slow
def test_a_second_runner_on_the_same_file_refuses_at_once_naming_the_first(tmp_path):
    out = tmp_path / "locked.jsonl"
    # a million games: the first runner must still hold the file when the second starts (a warm
    # cache plays 200 of these games in about a second)
    tournament = ["tournament", "flow", "--agents", "alphabeta:depth=3", "random", "--games", "1000000",
                  "--workers", "0", "--quiet", "--out", str(out)]
    first = subprocess.Popen([sys.executable, "-m", "agents.cli", *tournament], cwd=REPO,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 240
        while time.time() < deadline and not (out.exists() and out.stat().st_size > 0):
            time.sleep(0.2)
        assert out.stat().st_size > 0, "the first runner wrote no record"
        began = time.time()
        line = one_line_error(ludo_flow(*tournament, "--resume"))
        assert f"in use by process {first.pid}" in line
        assert time.time() - began < 30  # before any warm-up or game
        fresh = ludo_flow(*tournament)
        assert "in use by process" in one_line_error(fresh) or "exists" in fresh.stderr
    finally:
        first.kill()  # a lock left by a killed runner never blocks a resume
        first.wait()
    before = len(load_records(out))
    resumed = ludo_flow("tournament", "flow", "--agents", "alphabeta:depth=3", "random", "--games", "4",
                        "--workers", "0", "--quiet", "--out", out, "--resume")
    assert resumed.returncode == 2 and "other settings" in resumed.stderr  # checked, not locked
    assert len(load_records(out)) == before


def test_duplicate_records_are_rated_once_and_conflicting_ones_refused_by_id(tmp_path, capsys):
    out = tmp_path / "d.jsonl"
    assert small_tournament(out) == 0
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines + [lines[0]]))  # one game recorded twice, alike
    capsys.readouterr()
    assert main(["ratings", str(out), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["games"] == 4 and "1 duplicate record" in captured.err
    assert main(["replay", str(out), "--game", json.loads(lines[0])["id"]]) == 0
    assert "1 duplicate record" in capsys.readouterr().err
    assert small_tournament(out, "--resume") == 0
    assert "1 duplicate record" in capsys.readouterr().err
    other = json.loads(lines[0])
    other["result"] = {"1-0": "0-1", "0-1": "1-0", "1/2-1/2": "1-0"}[other["result"]]
    out.write_text("".join(lines + [record_line(other)]))
    before = out.read_bytes()
    for command in (["ratings", str(out)], ["replay", str(out), "--game", other["id"]]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert f"game {other['id']!r} is recorded twice with different results" in err and len(messages(err)) == 1
    assert small_tournament(out, "--resume") == 2
    assert out.read_bytes() == before


def _children(pid):
    import psutil
    try:
        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _gone(pids, seconds=20):
    import psutil
    deadline = time.time() + seconds
    while time.time() < deadline:
        alive = [p for p in pids if psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]
        if not alive:
            return True
        time.sleep(0.2)
    return False


@pytest.mark.slow
@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_sigterm_stops_like_ctrl_c_and_workers_die_with_their_runner(tmp_path, how):
    out = tmp_path / "t.jsonl"
    # a million games: the runner must still be playing when the signal comes
    runner = subprocess.Popen([sys.executable, "-m", "agents.cli", "tournament", "flow", "--agents",
                               "alphabeta:depth=2", "random", "--games", "1000000", "--workers", "2",
                               "--out", str(out), "--quiet"], cwd=REPO, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 240
        while time.time() < deadline and not (out.exists() and out.stat().st_size > 2000):
            time.sleep(0.2)
        workers = _children(runner.pid)
        assert len(workers) >= 2
        runner.send_signal(getattr(signal, how))
        stdout, stderr = runner.communicate(timeout=60)
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.wait()
    assert _gone(workers), "a worker outlived its runner"
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr
    if how == "SIGTERM":
        assert runner.returncode == 143, stderr
        assert "terminated; every finished game is in" in stderr and "--resume" in stderr
    report = ReadReport()
    records = load_records(out, report=report)
    assert records and len({r["id"] for r in records}) == len(records)


def test_a_bad_output_path_is_refused_before_the_warm_up(tmp_path):
    for out, words in ((tmp_path / "no" / "such" / "r.jsonl", "no folder"), (tmp_path, "is a folder"),
                       ("/dev/null", "not a regular file")):
        began = time.time()
        line = one_line_error(ludo_flow("tournament", "flow", "--agents", "alphabeta:depth=9", "mcts",
                                        "--games", "2", "--out", out, "--resume", timeout=60))
        assert words in line and time.time() - began < 20
    if os.geteuid() != 0:  # root writes into a read-only folder anyway
        folder = tmp_path / "ro"
        folder.mkdir(mode=0o500)
        assert "not writable" in one_line_error(ludo_flow("tournament", "flow", "--agents", *FAST,
                                                          "--out", folder / "r.jsonl"))
    assert not (tmp_path / "no").exists()


@pytest.mark.slow
def test_a_full_disk_stops_the_run_with_one_line_and_a_resume_recovers_every_game(tmp_path):
    out = tmp_path / "full.jsonl"
    args = ["tournament", "flow", "--variant", "fountain", "--agents", *FAST, "--games", "40", "--workers", "0",
            "--quiet", "--out", out]
    assert ludo_flow(*args[:-2], "--games", "2", "--out", tmp_path / "warm.jsonl").returncode == 0

    def limit():  # the records file may not grow past 3 kB, as on a disk that is full
        import resource
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (3000, 3000))

    line = one_line_error(ludo_flow(*args, preexec_fn=limit))
    assert f"cannot write to {out}" in line and "--resume" in line
    assert ludo_flow(*args, "--resume").returncode == 0
    records = load_records(out)
    assert len(records) == 40 and len({r["id"] for r in records}) == 40


# ---- bad input: one line, exit 2, nothing changed ------------------------------------------------
def test_unbounded_reads_are_refused(tmp_path):
    assert "longer than" in one_line_error(ludo_flow("ratings", "/dev/zero", timeout=60))
    assert "not a regular file" in one_line_error(ludo_flow("tournament", "flow", "--agents", *FAST,
                                                            "--out", "/dev/full", "--resume", timeout=60))


@pytest.mark.parametrize("args, words", [
    (["--games", "1000000000000"], "more than one tournament holds"),
    (["--openings", "random:turns=1", "--games", "1000000000000"], "more than one tournament holds"),
    (["--agents", "mcts:simulations=9223372036854775808", "random"], "below 2**63"),
    (["--agents", "alphabeta:nodes=99999999999999999999999", "random"], "below 2**63"),
    (["--agents", "mcts:sims=100", "random"], "did you mean 'simulations'"),
])
def test_sizes_and_settings_that_cannot_be_held_are_refused_before_any_work(tmp_path, args, words):
    base = {"--agents": list(FAST), "--games": ["2"]}
    options = dict(base)
    key = None
    for word in args:
        if word.startswith("--"):
            key = word
            options[key] = []
        else:
            options[key].append(word)
    flat = [w for k, v in options.items() for w in [k, *v]]
    began = time.time()
    line = one_line_error(ludo_flow("tournament", "flow", *flat, "--out", tmp_path / "x.jsonl", timeout=60))
    assert words in line and len(line) < 200 and time.time() - began < 30
    assert not (tmp_path / "x.jsonl").exists()


def test_too_many_workers_are_capped_and_said(tmp_path, capsys):
    out = tmp_path / "w.jsonl"
    assert main(["tournament", "flow", "--variant", "fountain", "--agents", *FAST, "--games", "2",
                 "--workers", "1000", "--quiet", "--out", str(out)]) == 0
    assert "--workers 1000 capped at" in capsys.readouterr().err


def test_bestmove_refuses_a_huge_budget_in_one_line():
    assert "below 2**63" in one_line_error(ludo_flow("bestmove", "flow", "--agent",
                                                     "alphabeta:nodes=18446744073709551616", timeout=60))


@pytest.mark.slow
def test_a_script_without_a_main_guard_stops_with_the_cause(tmp_path):
    script = tmp_path / "unguarded.py"
    script.write_text("from agents.tournament import Tournament\n"
                      f"Tournament('flow', ['random', 'random:seed=1'], games=8, workers=2, progress=False,\n"
                      f"           out={str(tmp_path / 'u.jsonl')!r}).run()\n")
    began = time.time()
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=180, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode != 0
    assert 'if __name__ == "__main__":' in done.stderr.splitlines()[-1]
    assert time.time() - began < 120


def test_control_characters_in_records_are_printed_escaped(tmp_path, capsys):
    out = tmp_path / "c.jsonl"
    assert small_tournament(out, games=2) == 0
    records = load_records(out)
    text = out.read_text().replace('"random:seed=1"', '"random:seed=1\\u001b]0;TITLE\\u0007"')
    evil = tmp_path / "evil.jsonl"
    evil.write_text(text)
    capsys.readouterr()
    assert main(["replay", str(evil), "--game", records[0]["id"]]) == 0
    assert main(["ratings", str(evil)]) == 0
    shown = capsys.readouterr()
    assert "\x1b" not in shown.out + shown.err and "\x07" not in shown.out + shown.err
    assert "\\x1b]0;TITLE" in shown.out


MALFORMED = [("white", None), ("white", {"a": 1}), ("white", ["x"]), ("result", 5), ("result", float("nan")),
             ("result", ["1-0"]), ("moves", "b2-b3"), ("moves", 7), ("params", [1]), ("forfeit", "white"),
             ("plies", -1), ("id", None), ("time_white", "1s")]


@pytest.fixture(scope="module")
def good_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("good") / "g.jsonl"
    assert small_tournament(out) == 0
    return out


def _commands(path, record_id):
    return [["ratings", str(path)], ["ratings", str(path), "--json"], ["replay", str(path), "--game", record_id],
            ["tournament", "flow", "--variant", "fountain", "--agents", *FAST, "--games", "4", "--workers", "0",
             "--quiet", "--out", str(path), "--resume"]]


def _one_line_or_success(capsys, command, path, before):
    status = main(command)
    err = capsys.readouterr().err
    assert status in (0, 2), (command, status, err)
    if status == 2:
        errors = [line for line in err.splitlines() if line.startswith("ludo-flow: error:")]
        assert len(errors) == 1 and "Traceback" not in err, err
        assert path.read_bytes() == before


@pytest.mark.parametrize("field, value", MALFORMED + [("white", "missing")])
def test_malformed_records_get_one_line_naming_the_line(tmp_path, capsys, good_file, field, value):
    lines = good_file.read_text().splitlines(keepends=True)
    bad = json.loads(lines[2])
    if value == "missing":
        del bad[field]
    else:
        bad[field] = value
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(lines[:2]) + json.dumps(bad) + "\n" + "".join(lines[3:]))
    before = path.read_bytes()
    for command in _commands(path, json.loads(lines[0])["id"]):
        assert main(command) == 2, command
        err = capsys.readouterr().err
        assert "bad.jsonl:3:" in err and len(messages(err)) == 1 and "Traceback" not in err, err
        assert path.read_bytes() == before


def test_deep_nesting_and_huge_numbers_are_refused_in_one_line(tmp_path, capsys):
    for line in ('{"white": ' + "[" * 100000 + "]" * 100000 + ', "black": "b", "result": "1-0"}',
                 '{"white": "a", "black": "b", "result": "1-0", "plies": ' + "9" * 5000 + "}"):
        path = tmp_path / "x.jsonl"
        path.write_text(line + "\n")
        assert main(["ratings", str(path)]) == 2
        err = capsys.readouterr().err
        assert "x.jsonl:1:" in err and len(messages(err)) == 1


def test_mutated_records_files_succeed_or_are_refused_in_one_line_unchanged(tmp_path_factory, good_file):
    from hypothesis import HealthCheck, given, settings, strategies as st

    data = good_file.read_bytes()
    record_id = json.loads(data.splitlines()[0])["id"]

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(st.tuples(st.integers(0, len(data) - 1), st.integers(0, 255)), min_size=1, max_size=6),
           st.integers(0, len(data)))
    def check(flips, cut):
        mutated = bytearray(data[:max(cut, 1)])
        for at, byte in flips:
            if at < len(mutated):
                mutated[at] = byte
        path = tmp_path_factory.mktemp("mutated") / "m.jsonl"
        path.write_bytes(bytes(mutated))
        import io
        from contextlib import redirect_stderr, redirect_stdout
        for command in _commands(path, record_id):
            before = path.read_bytes()
            err = io.StringIO()
            with redirect_stdout(io.StringIO()), redirect_stderr(err):
                status = main(command)
            assert status in (0, 2), (command, status, err.getvalue())
            if status == 2:
                text = err.getvalue()
                assert len([l for l in text.splitlines() if l.startswith("ludo-flow: error:")]) == 1, text
                assert path.read_bytes() == before

    check()


def test_returns_of_an_unfinished_or_drawn_game_hold_no_negative_zero():
    import math

    import ludo_flow
    for name in ludo_flow.GAMES:
        values = ludo_flow.load_game(name).new_initial_state().returns()
        assert values == [0.0, 0.0] and all(math.copysign(1.0, v) == 1.0 for v in values)


def test_the_command_line_says_its_version_and_every_option_has_help(capsys):
    from agents.cli import build_parser
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--version"])
    assert capsys.readouterr().out.startswith("ludo-flow ")
    parser = build_parser()
    for sub in parser._subparsers._group_actions[0].choices.values():
        for action in sub._actions:
            if action.dest != "help":
                assert action.help, f"{sub.prog} {action.dest} has no help"
