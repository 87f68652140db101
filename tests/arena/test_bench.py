"""`ludo-flow bench --quick --json`: every row of the suite is there with sane values (no timing
assertions: the figures themselves are the benchmark's business)."""
import importlib.util
import json
import sys
from pathlib import Path

import numba
import pytest

from agents import cli

pytestmark = pytest.mark.slow  # compiles or starts processes: outside the fast lane

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
GAME_ROWS = ("first_call", "perft", "playouts", "playouts_all_cores", "reference_playouts",
             "mcts", "alphabeta", "cached_start", "mcts_equal")
BATCH_ROWS = ("batch_8_1thread", "batch_8_2threads", "batch_64_1thread", "batch_64_2threads")  # --quick
PGX_ROWS = ("pgx_othello.batch_8", "pgx_othello.batch_64", "pgx_connect_four.batch_8",
            "pgx_connect_four.batch_64")
OPENSPIEL_GAME_ROWS = ("openspiel_cpp_mcts", "openspiel_python_mcts", "openspiel_adapter_playouts")
YARDSTICK_ROWS = ("breakthrough.cpp_playouts", "breakthrough.cpp_mcts")
GAME_RATIOS = ("kernels_over_reference", "kernels_over_adapter", "all_cores_over_one_core", "mcts_over_openspiel_cpp",
               "mcts_over_openspiel_python", "playouts_over_breakthrough", "mcts_over_breakthrough",
               "batch_over_pgx_connect_four", "batch_over_pgx_othello")


def openspiel_usable():
    """Return (pyspiel importable, our OpenSpiel adapter importable)."""
    if importlib.util.find_spec("pyspiel") is None:
        return False, False
    try:
        import ludo_flow.adapters.openspiel  # noqa: F401
    except ImportError:
        return True, False
    return True, True


def check_spread(key, row):
    """Assert a row's figures are positive and finite, its median between its min and max."""
    assert row["runs"], key
    assert all(0 < value < float("inf") for value in row["runs"]), (key, row["runs"])
    assert row["min"] == min(row["runs"]) and row["max"] == max(row["runs"]), key
    assert row["min"] <= row["median"] <= row["max"], (key, row)


def pgx_usable():
    """Return whether pgx and jax can be imported (the optional `pgx` extra)."""
    return all(importlib.util.find_spec(name) is not None for name in ("pgx", "jax"))


def test_quick_suite_writes_every_row(tmp_path, capsys, monkeypatch):
    out = tmp_path / "bench.json"
    assert cli.main(["bench", "--quick", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    payload = json.loads(out.read_text())
    pyspiel, adapter = openspiel_usable()

    batch_rows = [row for row in BATCH_ROWS if numba.config.NUMBA_NUM_THREADS > 1 or "2threads" not in row]
    expected = [f"{game}.{row}" for game in ("flow", "tolkuchka") for row in GAME_ROWS + tuple(batch_rows)]
    if pgx_usable():
        expected += PGX_ROWS
    else:
        assert "pgx is not installed" in payload["skipped"]["pgx.batch"]
        assert not any(key.startswith("pgx_") for key in payload["rows"])
    peers = [f"{game}.{row}" for game in ("flow", "tolkuchka") for row in OPENSPIEL_GAME_ROWS]
    if pyspiel:
        expected += YARDSTICK_ROWS
    else:
        assert set(YARDSTICK_ROWS) <= set(payload["skipped"])
    if adapter:
        expected += peers
    else:
        assert set(peers) <= set(payload["skipped"])
        assert all(payload["skipped"][key] for key in peers)  # a note says why
    assert set(expected) <= set(payload["rows"]), set(expected) - set(payload["rows"])
    assert not set(payload["skipped"]) & set(payload["rows"])
    for key, row in payload["rows"].items():
        check_spread(key, row)
        assert row["label"] in printed and row["unit"]
        if key.split(".")[1] not in ("first_call", "cached_start"):
            assert len(row["runs"]) == payload["repeats"] == 3, key

    needs = {"mcts_over_openspiel_cpp": adapter, "mcts_over_openspiel_python": adapter,
             "kernels_over_adapter": adapter,
             "playouts_over_breakthrough": pyspiel, "mcts_over_breakthrough": pyspiel,
             "batch_over_pgx_connect_four": pgx_usable(), "batch_over_pgx_othello": pgx_usable()}
    for game in ("flow", "tolkuchka"):
        for ratio in GAME_RATIOS:
            key = f"{game}.{ratio}"
            assert (key in payload["ratios"]) == needs.get(ratio, True), key
            if key not in payload["ratios"]:
                continue
            row = payload["ratios"][key]
            check_spread(key, row)
            top, bottom = payload["rows"][row["numerator"]], payload["rows"][row["denominator"]]
            assert row["runs"] == [a / b for a, b in zip(top["runs"], bottom["runs"])]

    info = payload["machine"]
    assert info["cores"] >= 1 and info["cpu"] and info["numba"] and info["numpy"]
    assert len(info["load_average"]) == 3 and len(payload["load_average_end"]) == 3
    assert info["libraries"]["ludo_flow"]
    assert ("open_spiel" in info["libraries"]) == pyspiel
    assert payload["rows"]["flow.perft"]["leaves"] > 0
    assert payload["command"].startswith("ludo-flow bench --quick")

    monkeypatch.syspath_prepend(str(BENCHMARKS))
    from bench_table import RATIOS, markdown
    table = markdown(payload)
    assert table.startswith("| | Flow | Tolkuchka |")
    assert all(f"**{label}**" in table for _, label in RATIOS)
    assert info["cpu"] in table and payload["command"] in table


def test_bench_refuses_zero_rounds(capsys):
    assert cli.main(["bench", "--repeats", "0"]) == 2
    assert "--repeats must be at least 1" in capsys.readouterr().err


def test_openspiel_rows_are_skipped_with_a_note_without_open_spiel(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_suite
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # `import pyspiel` raises ImportError
    assert bench_suite.load_pyspiel() is None
    skipped = {}
    size = bench_suite.SIZES["quick"]
    cases = bench_suite.equal_cases("flow", size, None, skipped)
    assert [case.key for case in cases] == ["flow.mcts_equal"]
    assert bench_suite.breakthrough_cases(size, None, skipped) == []
    assert set(skipped) == {f"flow.{row}" for row in OPENSPIEL_GAME_ROWS} | set(YARDSTICK_ROWS)
    assert all("open_spiel is not installed" in why for why in skipped.values())


def test_bench_outside_a_source_checkout_says_so(monkeypatch, capsys):
    monkeypatch.setattr(cli.os.path, "isfile", lambda path: False)
    assert cli.main(["bench", "--quick"]) == 2
    assert "from a source checkout" in capsys.readouterr().err


def test_pgx_rows_are_skipped_with_one_note_without_pgx(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_suite
    monkeypatch.setitem(sys.modules, "pgx", None)  # `import pgx` raises ImportError
    skipped = {}
    assert bench_suite.pgx_cases(bench_suite.SIZES["quick"], skipped) == []
    assert list(skipped) == ["pgx.batch"] and "pgx is not installed" in skipped["pgx.batch"]
    specs = {key: (top, bottom) for key, _, top, bottom in bench_suite.ratio_specs(64)}
    assert specs["flow.batch_over_pgx_connect_four"] == ("flow.batch_64_2threads", "pgx_connect_four.batch_64")
