"""The README holds: its Python tour runs as written (a doctest), its first two commands are the
ones a fresh machine and CI run, every command line of its CLI block parses, its links lead to
files, its pictures are what docs/make_figures.py draws, and it stays a short reference."""
import doctest
import importlib.util
import re
import shlex
from pathlib import Path

import pytest

from agents.cli import build_parser

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()
BLOCKS = re.findall(r"```(\w*)\n(.*?)```", README, flags=re.S)


def test_the_readme_is_a_short_reference():
    assert len(README.splitlines()) <= 200
    for history in (r"\bround \d", r"\bissue \d", r"\b[0-9a-f]{7,40}\b", r"\b20\d\d-\d\d-\d\d\b"):
        assert not re.search(history, README), history


def test_the_first_two_commands_install_and_run_the_main_job_and_the_tests():
    first, second = (body.strip() for _, body in BLOCKS[:2])
    assert first == "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && ludo-flow tournament flow"
    assert second.endswith('pip install -e ".[test]" && python -m pytest')
    ci = (REPO / ".ci" / "run").read_text()
    assert second in ci.splitlines(), "CI must run exactly the README's test command"


def test_the_python_tour_runs_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the tour writes a records file
    tour = next(body for kind, body in BLOCKS if kind == "python" and ">>>" in body)
    test = doctest.DocTestParser().get_doctest(tour, {}, "README tour", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
    assert (tmp_path / "flow.jsonl").exists()


def _cli_lines():
    block = next(body for kind, body in BLOCKS if "ludo-flow tournament tolkuchka" in body)
    for line in block.splitlines():
        for command in line.split("#")[0].split(";"):
            if command.strip():
                yield command.strip()


@pytest.mark.parametrize("line", list(_cli_lines()))
def test_every_line_of_the_cli_block_parses(line):
    words = shlex.split(line)
    assert words[0] == "ludo-flow"
    if words[1:] == ["--version"]:
        return
    args = build_parser().parse_args(words[1:])
    assert args.command == words[1]


def test_every_link_leads_to_a_file():
    for target in re.findall(r"\]\(([^)#]+)", README) + re.findall(r'src="([^"]+)"', README):
        assert (REPO / target).exists(), target


def test_the_pictures_are_what_make_figures_draws():
    spec = importlib.util.spec_from_file_location("make_figures", REPO / "docs" / "make_figures.py")
    make_figures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_figures)
    for name in make_figures.FIGURES:
        assert (REPO / "docs" / "img" / name).read_text() == make_figures.figure(name), name
