"""The Flow solver: df-pn against an exhaustive reference minimax, certificates checked by the
reference engine, a bounded table, a choose-phase root, a time limit."""
import json
from pathlib import Path

import numpy as np
import pytest

import ludo_flow
from ludo_flow.solve import Prover, certificate, make_certificate, proof_size, solve
from ludo_flow.solve.minimax import forced_win, minimax_table, value_for_mover

SAME_FILES = "p1p1/p1p1/P1P1/P1P1 w 1 - 0"        # the 4x4 setup of RULES.md
STAGGERED = "1p1p/p1p1/P1P1/1P1P w 1 - 0"
SOLVED = Path(__file__).resolve().parents[2] / "experiments" / "solved"


def flow(max_turns):
    return ludo_flow.load_game("flow", max_turns=max_turns)


def reached(state, path):
    state = state.clone()
    for a in path:
        state.apply(a)
    return state


@pytest.mark.parametrize("text,max_turns", [(SAME_FILES, 3), (STAGGERED, 2)])
def test_dfpn_agrees_with_reference_minimax_on_every_position_it_covers(text, max_turns):
    table = minimax_table(certificate.parse_position(text, max_turns))
    assert sum(" choose " in key for key in table) > 50  # wash choices are covered
    start = flow(max_turns).from_string(text)
    prover = Prover(1 << 20)  # one table for all: entries of earlier positions are reused
    checked = 0
    for key, (white_value, path) in sorted(table.items()):
        state = reached(start, path)
        if state.is_terminal():
            continue
        solution, _ = solve(state, prover=prover)
        assert solution.value == value_for_mover(white_value, state.current_player()), key
        checked += 1
    assert checked > 750


def test_reference_minimax_rederives_the_published_4x4_value():
    """The 4x4 start: White forces a win within 7 turns and not within 6, found by the AND/OR
    minimax over the reference engine alone; results.json publishes the same."""
    assert forced_win(certificate.parse_position(SAME_FILES, 7), 0)[0]
    assert not forced_win(certificate.parse_position(SAME_FILES, 6), 0)[0]
    board = json.loads((SOLVED / "results.json").read_text())["boards"]["4x4"]
    assert board["position"] == SAME_FILES
    assert [(r["max_turns"], r["value"]) for r in board["ladder"]][-2:] == [(6, "draw"), (7, "win")]


def test_a_tiny_table_gives_the_same_values():
    """Four rows: every store replaces another position; values stay exact."""
    start = flow(2).from_string(STAGGERED)
    table = minimax_table(certificate.parse_position(STAGGERED, 2))
    for key, (white_value, path) in sorted(table.items())[::50]:
        state = reached(start, path)
        if not state.is_terminal():
            solution, _ = solve(state, memory=256)
            assert solution.value == value_for_mover(white_value, state.current_player()), key


@pytest.mark.parametrize("text,max_turns,value", [(STAGGERED, 3, "win"), (SAME_FILES, 3, "draw"),
                                                  ("1p1p/1P1P/P1P1/4 b 1 - 1", 3, "loss")])
def test_certificates_verify_with_the_reference_engine(tmp_path, text, max_turns, value):
    state = flow(max_turns).from_string(text)
    solution, prover = solve(state)
    assert solution.value == value
    cert = make_certificate(prover, state, solution.value)
    assert cert["size"] == proof_size(prover, state, solution.value) > 0
    path = tmp_path / "proof.json.gz"
    certificate.write(path, cert)
    assert certificate.verify(certificate.read(path))[0] == value


def test_a_broken_certificate_fails():
    state = flow(3).from_string(STAGGERED)
    solution, prover = solve(state)
    cert = make_certificate(prover, state, solution.value)
    strategy = cert["claims"][0]["strategy"]
    root_key = next(k for k in strategy if k.startswith(STAGGERED.split()[0] + " w 1 - 0"))
    legal = certificate.root_position(cert).legal_actions()
    from ludo_flow.flow.reference import action_to_string
    for action in legal:  # some first step does not win: the checker must find out
        strategy[root_key] = action_to_string(action)
        try:
            certificate.verify(cert)
        except certificate.CertificateError:
            break
    else:
        pytest.fail("every first step verified: the test needs a losing one")
    del strategy[root_key]
    with pytest.raises(certificate.CertificateError, match="no move"):
        certificate.verify(cert)
    cert["value"] = "draw"
    with pytest.raises(certificate.CertificateError, match="claims do not make"):
        certificate.verify(cert)


def test_not_win_and_not_loss_certificates_verify_and_a_false_one_fails():
    state = flow(3).from_string(SAME_FILES)  # a draw within 3 turns
    solution, prover = solve(state)
    assert solution.value == "draw"
    for value in ("not win", "not loss"):
        cert = make_certificate(prover, state, value)
        assert [c["side"] for c in cert["claims"]] == [{"not win": "black", "not loss": "white"}[value]]
        assert cert["size"] == proof_size(prover, state, value) > 0
        assert certificate.verify(cert)[0] == value
    cert["value"] = "not win"  # White's strategy not to lose is no proof that White cannot win
    with pytest.raises(certificate.CertificateError, match="claims do not make"):
        certificate.verify(cert)
    # the published proof that White has no win within 6 turns does not hold with 7: it wins
    cert = certificate.read(SOLVED / "certificates" / "4x4-turns6-notwin.json.gz")
    assert certificate.verify(cert)[0] == "not win"
    cert["max_turns"] = 7
    with pytest.raises(certificate.CertificateError, match=" 6: the replies listed are not the legal ones"):
        certificate.verify(cert)


def test_a_choose_phase_root_and_its_certificate():
    """The rule page's loop position: ~c4 loops, ~d4 is the lone legal wash."""
    game = flow(2)
    state = game.from_string("8/8/3R4/8/1PP1P3/2p5/1P1P4/8 w 1 - 0")
    state.apply(state.parse_action("d6-d4"))
    assert state.choosing
    solution, prover = solve(state)
    origin = ("8/8/3R4/8/1PP1P3/2p5/1P1P4/8 w 1 - 0", ["d6-d4"])
    cert = make_certificate(prover, state, solution.value, origin=origin)
    root = certificate.root_position(cert)
    assert root.choosing and len(root.legal_actions()) == 1
    white_value = minimax_table(root)[certificate.position_key(root)][0]
    assert solution.value == value_for_mover(white_value, 0)
    assert certificate.verify(cert)[0] == solution.value


def test_a_time_limit_stops_with_what_is_known():
    state = ludo_flow.load_game("flow", "fountain").new_initial_state()
    solution, _ = solve(state, memory=1 << 20, time_limit=0.2)
    assert solution.value == "unknown" and solution.nodes > 0 and not solution.interrupted


def test_the_table_is_bounded():
    from ludo_flow.solve.dfpn import ROW_BYTES, new_table
    assert new_table(1 << 20).nbytes <= 1 << 20
    assert new_table(1000).nbytes == 8 * ROW_BYTES  # whole buckets of four rows, at least one
    assert new_table(1000).dtype == np.uint64


def _published():
    """Return [(board, max_turns, value, proof size, certificate)] of every certificate the
    solved table publishes: the shortest wins, and at one turn fewer the proofs of no win."""
    results = json.loads((SOLVED / "results.json").read_text())
    found = []
    for name, board in sorted(results["boards"].items()):
        for row in board["ladder"]:
            for claim in (row, row.get("minimality")):
                if claim and claim.get("certificate"):
                    value = claim.get("value", row["value"])
                    found.append((name, row["max_turns"], value, claim["proof_size"], claim["certificate"]))
    return found


@pytest.mark.parametrize("board,max_turns,value,size,path", [
    pytest.param(*entry, id=f"{entry[0]}-{entry[1]}", marks=[pytest.mark.slow] if entry[3] > 5000 else [])
    for entry in _published()])
def test_the_published_certificates_verify(board, max_turns, value, size, path):
    cert = certificate.read(SOLVED / path)
    assert cert["max_turns"] == max_turns and cert["size"] == size
    assert certificate.verify(cert)[0] == value
