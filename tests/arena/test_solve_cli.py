"""`ludo-flow solve` and `ludo-flow verify`: the value, the certificate, bad input."""
import gzip
import json

import ludo_flow
from agents.cli import main

STAGGERED = "1p1p/p1p1/P1P1/1P1P w 1 - 0"
SAME_FILES = "p1p1/p1p1/P1P1/P1P1 w 1 - 0"  # the 4x4 setup of RULES.md


def test_solve_prints_the_value_and_writes_a_certificate_verify_accepts(tmp_path, capsys):
    path = tmp_path / "proof.json.gz"
    assert main(["solve", "flow", "--position", STAGGERED, "--max-turns", "3", "--memory", "1M",
                 "--certificate", str(path)]) == 0
    out = capsys.readouterr().out
    assert "value: win for White to move (max_turns 3)" in out
    for line in ("proof size:", "nodes:", "time:", "nodes/s:"):
        assert line in out
    assert main(["verify", str(path)]) == 0
    assert "verified: win for White to move" in capsys.readouterr().out


def test_solve_from_a_choose_phase_with_after(tmp_path, capsys):
    path = tmp_path / "proof.json.gz"
    assert main(["solve", "flow", "--position", "8/8/3R4/8/1PP1P3/2p5/1P1P4/8 w 1 - 0",
                 "--after", "d6-d4", "--max-turns", "1", "--certificate", str(path)]) == 0
    assert main(["verify", str(path)]) == 0
    assert "after d6-d4" in capsys.readouterr().out


def test_verify_rejects_a_tampered_certificate(tmp_path, capsys):
    path = tmp_path / "proof.json.gz"
    assert main(["solve", "flow", "--position", STAGGERED, "--max-turns", "3",
                 "--certificate", str(path)]) == 0
    with gzip.open(path, "rt") as f:
        cert = json.load(f)
    cert["claims"][0]["strategy"].popitem()
    with gzip.open(path, "wt") as f:
        json.dump(cert, f)
    capsys.readouterr()
    assert main(["verify", str(path)]) == 2
    assert "certificate rejected" in capsys.readouterr().err
    (tmp_path / "junk").write_text("not gzip")
    assert main(["verify", str(tmp_path / "junk")]) == 2


def test_verify_checks_a_not_win_certificate_and_refuses_a_false_one_in_one_line(tmp_path, capsys):
    from ludo_flow.solve import certificate, make_certificate, solve
    state = ludo_flow.load_game("flow", max_turns=3).from_string(SAME_FILES)  # a draw
    solution, prover = solve(state)
    path = tmp_path / "proof.json.gz"
    cert = make_certificate(prover, state, "not win")
    certificate.write(path, cert)
    assert main(["verify", str(path)]) == 0
    assert capsys.readouterr().out.startswith(f"verified: not win for White to move in {SAME_FILES} "
                                              "(max_turns 3); ")
    # White wins the same start within 7 turns; claims of another shape; no claims
    for tamper in ({"max_turns": 7}, {"value": "not loss"}, {"claims": []}):
        certificate.write(path, {**cert, **tamper})
        assert main(["verify", str(path)]) == 2
        out, err = capsys.readouterr()
        err = err.strip().splitlines()
        assert out == "" and len(err) == 1 and err[0].startswith("ludo-flow: error: certificate rejected"), tamper


def test_solve_bad_input_is_one_line_and_status_2(capsys):
    assert main(["solve", "tolkuchka"]) == 2
    assert main(["solve", "flow", "--memory", "lots"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("ludo-flow: error:") for line in err)


def test_solve_with_a_time_limit_says_unknown(capsys):
    assert main(["solve", "flow", "--variant", "fountain", "--memory", "1M", "--time", "0.2"]) == 0
    assert "value: unknown" in capsys.readouterr().out


def test_a_certificate_that_cannot_be_written_is_one_line(tmp_path, capsys):
    # it was a traceback (OSError from gzip) after the whole search, e.g. with --certificate
    # /dev/full; a path that cannot be written is now refused before the search
    for bad in (tmp_path / "no-such-folder" / "proof.json.gz", tmp_path):
        assert main(["solve", "flow", "--position", STAGGERED, "--max-turns", "3",
                     "--certificate", str(bad)]) == 2
        out, err = capsys.readouterr()
        err = err.strip().splitlines()
        assert out == "" and len(err) == 1
        assert err[0].startswith(f"ludo-flow: error: --certificate: cannot write {str(bad)!r}")


# Run in a fresh interpreter: every numba dispatcher of every loaded ludo_flow / agents module
# (the kernels' packages and df-pn imported first) is replaced by a function that raises, the
# replacement is shown to bite (a state's legal actions), then `verify` runs on the argv files.
NO_KERNELS = """
import importlib, pkgutil, sys
from numba.core.dispatcher import Dispatcher
import ludo_flow, ludo_flow.flow.kernels as kernels, ludo_flow.solve.dfpn
for info in pkgutil.iter_modules(kernels.__path__):
    importlib.import_module(f"ludo_flow.flow.kernels.{info.name}")
from agents.cli import main

def forbidden(name):
    def call(*args, **kwargs):
        raise AssertionError(f"kernel called: {name}")
    return call

patched = set()
for module_name, module in list(sys.modules.items()):
    if module_name.split(".")[0] in ("ludo_flow", "agents"):
        for attr, value in list(vars(module).items()):
            if isinstance(value, Dispatcher):
                setattr(module, attr, forbidden(f"{module_name}.{attr}"))
                patched.add(module_name)
try:
    ludo_flow.load_game("flow").new_initial_state().legal_actions()
    sys.exit("the kernels still run")
except AssertionError:
    pass
print("patched", len(patched), "dfpn" if "ludo_flow.solve.dfpn" in patched else "")
print("codes", [main(["verify", path]) for path in sys.argv[1:]])
print("solver imported:", "ludo_flow.solve.solver" in sys.modules)
"""


def test_verify_never_calls_the_kernels(tmp_path):
    import subprocess
    import sys
    from pathlib import Path
    published = (Path(__file__).resolve().parents[2] / "experiments" / "solved" / "certificates"
                 / "4x4-turns7.json.gz")
    with gzip.open(published, "rt") as f:
        cert = json.load(f)
    strategy = cert["claims"][0]["strategy"]
    strategy.pop(min(strategy))
    tampered = tmp_path / "tampered.json.gz"
    with gzip.open(tampered, "wt") as f:
        json.dump(cert, f)
    done = subprocess.run([sys.executable, "-c", NO_KERNELS, str(published), str(tampered)],
                          check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("patched") and lines[0].endswith("dfpn"), lines
    assert lines[1].startswith("verified: win for White to move in p1p1/p1p1/P1P1/P1P1 w 1 - 0 "
                               "(max_turns 7); "), lines
    assert lines[2:] == ["codes [0, 2]", "solver imported: False"], lines
    assert "certificate rejected" in done.stderr and "kernel called" not in done.stderr
