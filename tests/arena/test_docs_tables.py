"""The generated docs are current, and the docs and code comments carry no history.

docs/speed.md and docs/strength.md are written by scripts (`benchmarks/bench_table.py --doc`,
`experiments/strength_table.py`) from the results kept in the repository; each is regenerated
here in memory and compared with the committed file, so a table can never drift from its data.

History belongs in git and in each experiment's README: no file in docs/, neither README.md
nor CONTRIBUTING.md, and no comment or docstring of a Python file in ludo_flow/, agents/,
benchmarks/ (or docs/), may name a commit hash, "round N", "issue N" or a date. Code itself is
not read (hex constants, byte counts).
"""
import ast
import importlib.util
import io
import json
import re
import tokenize
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
CODE = ("ludo_flow", "agents", "benchmarks")
BINARY = {".png", ".jpg", ".jpeg", ".gif", ".svg", ".pdf", ".ico", ".webp"}
GENERATED_WITH_DATE = {DOCS / "speed.md"}  # the date of the measurement run is data there

HISTORY = {
    # a git hash: 7 to 40 lowercase hex digits with at least one letter and one digit, not part
    # of a longer word or number (so not 0x constants, decimal byte counts or words like "defaced")
    "commit hash": re.compile(r"(?<![\w.-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w-])"),
    # "round 5", "rounds 4 and 5"; not a command-line option such as `--rounds 15`
    "round number": re.compile(r"(?<![\w-])rounds?\s+\d+\b", re.IGNORECASE),
    "issue number": re.compile(r"(?<![\w-])issues?\s+#?\d+\b|(?<![\w&/])#\d+\b", re.IGNORECASE),
    "date": re.compile(r"(?<!\d)20\d\d-[01]\d-[0-3]\d(?!\d)"),
}


def load_script(path):
    """Import a script that is not in a package (benchmarks/, experiments/) as a module."""
    spec = importlib.util.spec_from_file_location(f"_docs_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_speed_doc_is_what_bench_table_writes(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))  # bench_table imports _common
    bench_table = load_script(REPO / "benchmarks" / "bench_table.py")
    payload = json.loads(bench_table.RESULT.read_text(encoding="utf-8"))
    assert (DOCS / "speed.md").read_text(encoding="utf-8") == bench_table.document(payload), (
        "docs/speed.md is out of date: run python benchmarks/bench_table.py --doc")


def test_strength_doc_is_what_strength_table_writes():
    strength_table = load_script(REPO / "experiments" / "strength_table.py")
    assert (DOCS / "strength.md").read_text(encoding="utf-8") == strength_table.table(), (
        "docs/strength.md is out of date: run python experiments/strength_table.py")


def test_every_agent_measured_against_perfect_play_shows_it_on_each_of_its_rows():
    # the equal-time and against-random rows had a blank cell where the figure existed
    strength_table = load_script(REPO / "experiments" / "strength_table.py")
    _, thrown = strength_table.perfect_play()
    rows = [line.split(" | ") for line in (DOCS / "strength.md").read_text(encoding="utf-8").splitlines()
            if line.startswith("| `")]
    shown = {}
    for cells in rows:
        shown.setdefault(cells[0].strip("| `"), []).append(cells[-1].rstrip(" |"))
    assert set(thrown) <= set(shown)
    for agent, cells in shown.items():
        assert all(cells) if agent in thrown else not any(cells), agent


def prose(path):
    """Yield (first line number, text) of a Python file's comments and docstrings: a docstring
    whole, a run of comments on consecutive lines as one text (a number may wrap to the next)."""
    source = path.read_text(encoding="utf-8")
    run, start, last = [], 0, None
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            line = token.start[0]
            if run and line != last + 1:
                yield start, "\n".join(run)
                run = []
            if not run:
                start = line
            run.append(token.string.lstrip("#"))
            last = line
    if run:
        yield start, "\n".join(run)
    for node in ast.walk(ast.parse(source, str(path))):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                yield body[0].lineno, body[0].value.value


def texts(path):
    """Yield (first line number, text) of a docs file: all of it, or a Python file's prose."""
    if path.suffix == ".py":
        yield from prose(path)
    else:
        yield 1, path.read_text(encoding="utf-8")


def history_found(path, blocks):
    """Return 'path:line: kind `match`' for every piece of history in the (line, text) blocks."""
    found = []
    for first, text in blocks:
        for kind, pattern in HISTORY.items():
            if kind == "date" and path in GENERATED_WITH_DATE:
                continue
            found += [f"{path.relative_to(REPO)}:{first + text.count(chr(10), 0, m.start())}: "
                      f"{kind} `{' '.join(m.group(0).split())}`" for m in pattern.finditer(text)]
    return found


def test_the_patterns_tell_history_from_code_and_figures():
    def kinds(text):
        return {kind for kind, pattern in HISTORY.items() if pattern.search(text)}
    assert kinds("as before commit 2f8d9a5 (round 4, issue 11), 2026-12-02") == set(HISTORY)
    assert kinds("paired against ae54965: rounds 4 and 5; see #31") == {"commit hash", "round number",
                                                                       "issue number"}
    assert kinds("(experiments/mcts_strength, round\n 4)") == {"round number"}  # wrapped
    for clean in ("35.2 TB (35184372088832 bytes)", "0x9E3779B97F4A7C15, 0xff51afd7ed558ccd",
                  "tt=1048576 entries", "--rounds 15 --scale 0.25", "defaced effaced", "1e-16",
                  "rounded to 4 places", "a draw counts half", "sha256 of the sources"):
        assert kinds(clean) == set(), clean


def test_no_history_in_docs_or_code_comments():
    found = []
    for path in sorted(DOCS.rglob("*")):
        if path.is_file() and path.suffix.lower() not in BINARY:
            found += history_found(path, texts(path))
    for folder in CODE:
        for path in sorted((REPO / folder).rglob("*.py")):
            found += history_found(path, prose(path))
    assert not found, "history belongs in git and experiments/*/README.md:\n" + "\n".join(found)


def test_no_history_in_the_readme_or_contributing():
    found = []
    for path in (REPO / "README.md", REPO / "CONTRIBUTING.md"):
        if path.exists():
            found += history_found(path, texts(path))
    assert not found, "history belongs in git and experiments/*/README.md:\n" + "\n".join(found)
