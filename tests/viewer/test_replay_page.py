"""The replay page's data and HTML, the notebook viewer, and `ludo-flow replay` in the terminal."""
import json
import re

import pytest

from agents.cli import main
from agents.viewer import Viewer, replay_html, view
from agents.viewer.frames import EMPTY, SQUARE_CHARS, page_data
from agents.viewer.page import notebook_html
from agents.records import record_line, start_state


def decode(game, palette):
    """Return [(pieces, last, changed, rings, barred)] per position, as viewer.js decodes them."""
    w, board = game["w"], {}
    for i, ch in enumerate(game["board"]):
        if ch != EMPTY:
            board[(i // w) * 8 + i % w] = tuple(palette[ch])
    out = [(dict(board), (), [], (), None)]
    for ply in game["plies"]:
        last, diff, rings, barred = ply.split(",")
        last = tuple(SQUARE_CHARS.index(c) for c in last)
        changed = []
        for k in range(0, len(diff), 2):
            sq, code = SQUARE_CHARS.index(diff[k]), diff[k + 1]
            if code == EMPTY:
                board.pop(sq, None)
            else:
                board[sq] = tuple(palette[code])
            if sq not in last:
                changed.append(sq)
        out.append((dict(board), last, changed, tuple(SQUARE_CHARS.index(c) for c in rings),
                    tuple(SQUARE_CHARS.index(c) for c in barred) or None))
    return out


def positions(record):
    """Return the states from the start position through the opening and the moves."""
    state = start_state(dict(record, opening=[]))
    out = [state.clone()]
    for word in record["opening"] + record["moves"]:
        state.apply(state.parse_action(word))
        out.append(state.clone())
    return out


def test_the_page_data_is_every_board_picture_of_every_variant(records):
    data = page_data(records)
    assert data["errors"] == [] and len(data["games"]) == len(records)
    sizes = set()
    for record, game in zip(records, data["games"]):
        states = positions(record)
        decoded = decode(game, data["palette"])
        assert len(decoded) == len(states) == len(game["moves"]) + 1
        assert game["opening"] == len(record["opening"])
        for state, (pieces, last, changed, rings, barred) in zip(states, decoded):
            p = state.board_picture()
            assert pieces == p["pieces"]
            assert last == tuple(p["last_move"]) and changed == list(p["changed"])
            assert rings == tuple(p["rings"]) and barred == (tuple(p["barred"]) if p["barred"] else None)
        assert game["movers"] == "".join(str(s.current_player()) for s in states[:-1])
        sizes.add((game["w"], game["h"]))
    assert sizes == {(8, 8), (6, 6), (5, 5)}


def test_the_page_is_self_contained_and_escapes_what_records_say(records):
    hostile = dict(records[2], white="</script><script>alert(1)</script>", id="<b>&")
    page = replay_html([hostile])
    assert "<script>alert(1)" not in page and "</script><script>alert" not in page
    assert not re.search(r"<(script|link|img|iframe)[^>]*\b(src|href)=", page)
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", page)
    data = json.loads(re.search(r'<script type="application/json" id="replay-data">(.*?)</script>',
                                page, re.S).group(1))
    assert data["games"][0]["info"]["white"] == hostile["white"]


def test_search_data_becomes_an_evaluation_in_whites_view(records):
    record = dict(records[3])
    n = len(record["moves"])
    first = {"score": 1.5, "depth": 3, "nodes": 10, "time": 0.01, "pv": ["a1-a2"]}
    record["search"] = {column: [value] + [None] * (n - 1) for column, value in first.items()}
    game = page_data([record])["games"][0]
    mover = int(game["movers"][len(record["opening"])])
    assert game["search"][0] == [1.5 if mover == 0 else -1.5, 3, 10, None, 0.01, "a1-a2"]
    assert page_data([records[3]])["games"][0]["search"] is None


def test_a_record_that_does_not_replay_is_named_not_fatal(records):
    bad = dict(records[0], moves=["a1-a1"], plies=1, id="broken")
    data = page_data([bad, records[1]])
    assert len(data["games"]) == 1 and "broken" in data["errors"][0]


def test_the_notebook_viewer(records):
    v = view(records)
    assert isinstance(v, Viewer) and len(v.records) == len(records)
    html = v._repr_html_()
    assert "LudoViewer.mount" in html and records[0]["moves"][0] in html
    one = view(records[0])._repr_html_()
    assert one.count('type="application/json"') == 1
    assert notebook_html([records[0]]) != one  # a fresh element id each time
    with pytest.raises(TypeError):
        view([1, 2])


@pytest.fixture
def records_file(tmp_path, records):
    path = tmp_path / "games.jsonl"
    path.write_text("".join(record_line(r) for r in records))
    return path


def test_cli_list_html_and_errors(records_file, records, tmp_path, capsys):
    assert main(["replay", str(records_file), "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["id", "white", "black", "result", "termination", "plies"]
    assert [line.split()[0] for line in lines[1:]] == [r["id"] for r in records]
    assert lines[1].split()[-1] == str(records[0]["plies"])
    out = tmp_path / "page.html"
    assert main(["replay", str(records_file), "--html", str(out)]) == 0
    assert out.read_text().count('"info"') == len(records)
    assert main(["replay", str(records_file), "--html", str(out), "--game", records[1]["id"]]) == 0
    assert out.read_text().count('"info"') == 1
    assert main(["replay", str(records_file)]) == 2
    assert "--list" in capsys.readouterr().err
    assert main(["replay", str(records_file), "--game", "nope"]) == 2
    assert main(["replay", str(records_file), "--game", records[0]["id"], "--fps", "3"]) == 2


def test_cli_step_moves_forward_back_and_jumps(records_file, records, monkeypatch, capsys):
    answers = iter(["", "", "b", "5", "q"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert main(["replay", str(records_file), "--game", records[2]["id"], "--step"]) == 0
    out = capsys.readouterr().out
    shown = re.findall(r"^(\d+)\. (White|Black) (\S+)$|^start$", out, re.M)
    assert [s[0] for s in shown] == ["", "1", "2", "1", "5"]
    assert shown[1][2] == records[2]["moves"][0]


def test_cli_refuses_in_one_line_what_it_cannot_replay(records_file, records, tmp_path, capsys):
    files = {"empty": "", "cut": record_line(records[0]).rstrip("\n"),
             "unknown": record_line(dict(records[0], game="chess", id="x")),
             "bad": record_line(dict(records[0], moves=["a1-a1"], plies=1, id="broken"))}
    for name, text in files.items():
        (tmp_path / f"{name}.jsonl").write_text(text)
    out, gif = tmp_path / "o.html", tmp_path / "o.gif"
    cases = [(["empty.jsonl"], "empty.jsonl holds no game records"),
             (["cut.jsonl"], "cut.jsonl holds no game records (skipped 1 lines cut short by a kill)"),
             (["unknown.jsonl"], "unknown game 'chess'"),
             (["bad.jsonl", "--html", out], "bad.jsonl: none of the 1 record(s) can be replayed: record 'broken'"),
             ([records_file, "--list", "--game", "nope"], "--list lists every game of the file: it goes without --game"),
             ([records_file, "--list", "--html", out], "without --html"),
             ([records_file, "--game", records[0]["id"], "--step", "--gif", gif],
              "--step shows the game in the terminal: it goes without --gif"),
             ([records_file, "--html", out, "--gif", gif], "holds 4 games: give --game ID")]
    for args, words in cases:
        args = [str(tmp_path / a) if isinstance(a, str) and a.endswith(".jsonl") else str(a) for a in args]
        assert main(["replay", *args]) == 2, args
        captured = capsys.readouterr()
        assert captured.out == "" and "Traceback" not in captured.err, args  # no header line first
        assert captured.err.splitlines()[-1].startswith("ludo-flow: error: ") and words in captured.err, captured.err
    assert not out.exists() and not gif.exists()  # nothing written before the refusal
    (tmp_path / "mixed.jsonl").write_text(files["bad"] + record_line(records[1]))
    assert main(["replay", str(tmp_path / "mixed.jsonl"), "--html", str(out)]) == 0
    said = capsys.readouterr().err.splitlines()[-1]
    assert said.startswith("# 1 game(s)") and "skipped 1 record(s) that cannot be replayed" in said
    assert "broken" in said and out.read_text().count('"info"') == 1
