"""Flow perft from the three presets: the rule page's table, RULES.md's copy of it, the CLI."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

import ludo_flow

TABLE = {  # from the rule page (computed by an independent implementation)
    "standard": [41, 1509, 58503, 2132083],
    "stones": [16, 252, 3680, 53384, 1073928],
    "fountain": [11, 111, 1242, 12524, 177872, 1983204, 26872330],
}


@pytest.mark.parametrize("variant", sorted(TABLE))
def test_perft_matches_the_rule_page(variant):
    state = ludo_flow.load_game("flow", variant).new_initial_state()
    got = [int(state.kernels.perft(state.array, d)) for d in range(1, len(TABLE[variant]) + 1)]
    assert got == TABLE[variant]


def test_divide_at_depth_two_from_standard():
    state = ludo_flow.load_game("flow").new_initial_state()
    divide = {state.action_to_string(a): int(state.kernels.perft(state.child(a).array, 1))
              for a in state.legal_actions()}
    assert len(divide) == 41
    assert {m: divide[m] for m in ("b2-b3", "g1-g2", "e1-e2", "c1-c2", "a1-a2")} == {
        "b2-b3": 2, "g1-g2": 2, "e1-e2": 42, "c1-c2": 42, "a1-a2": 40}
    assert sum(divide.values()) == 1509


def test_rules_md_carries_the_same_table():
    text = (Path(__file__).resolve().parents[2] / "RULES.md").read_text()
    section = text[text.index("## Flow perft"):]
    for variant, counts in TABLE.items():
        for depth, count in enumerate(counts, 1):
            row = re.search(rf"^\|\s*{depth}\s*\|(.*)$", section, re.M).group(1)
            cells = [c.strip().replace(",", "") for c in row.split("|")]
            column = ["standard", "stones", "fountain"].index(variant)
            assert cells[column] == str(count), (variant, depth)


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "agents.cli", *args],
                          capture_output=True, text=True, timeout=300)


def test_cli_perft_prints_the_count_last():
    out = run_cli("perft", "flow", "--variant", "fountain", "--depth", "3")
    assert out.returncode == 0 and out.stdout.strip().splitlines()[-1] == "1242"


@pytest.mark.parametrize("depth", [0, 1])
def test_cli_counts_depth_one_from_the_move_generator_as_the_kernel_does(depth):
    # at depth <= 1 the command plays no action (it compiles the move generator alone)
    state = ludo_flow.load_game("flow", "stones").new_initial_state()
    out = run_cli("perft", "flow", "--variant", "stones", "--depth", str(depth), "--divide")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")[:-1]
    assert int(lines[-1]) == int(state.kernels.perft(state.array, depth)) == [1, 16][depth]
    if depth == 1:
        assert lines[:-1] == sorted(f"{state.action_to_string(a)} 1" for a in state.legal_actions())


def test_cli_divide_and_after_reach_a_choose_phase():
    out = run_cli("perft", "flow", "--after", "b2-b3", "--depth", "1", "--divide")
    assert out.returncode == 0
    assert out.stdout.split() == ["~a3", "1", "~b3", "1", "2"]


@pytest.mark.parametrize("args, words", [
    (["--variant", "nope", "--depth", "1"], "unknown flow variant"),
    (["--position", "8/8 w 1 - 0", "--depth", "1"], "4 to 8 ranks"),
    (["--depth", "-2"], "--depth"),
    (["--after", "z9-z8", "--depth", "1"], "not Flow notation"),
    (["--param", "max_turns=0", "--depth", "1"], "max_turns"),
    (["--param", "speed=3", "--depth", "1"], "unknown flow parameter"),
])
def test_cli_bad_input_is_one_line_and_exit_2(args, words):
    out = run_cli("perft", "flow", *args)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and words in out.stderr
