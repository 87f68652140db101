"""Records files: the schema, reading with limits, and gzip-compressed files read and written alike."""
import gzip
import json

import pytest

from agents.cli import main
from agents.records import (MAX_LINE_BYTES, ReadReport, RecordError, RecordsAppender, check_record, cut_tail,
                            iter_records, load_records, record_line)

LINES = [record_line({"id": f"p0-o{k}-0", "pair": f"t-p0-o{k}", "white": "a", "black": "b",
                      "result": ("1-0", "0-1", "1/2-1/2")[k % 3], "moves": ["a2-a3"] * (k % 5), "plies": k % 5})
         for k in range(60)]


def test_the_schema_needs_white_black_and_result_and_checks_every_known_field():
    assert check_record({"white": "a", "black": "b", "result": "*"})
    for bad in ({"white": "a", "black": "b"}, {"white": "", "black": "b", "result": "1-0"},
                {"white": "a", "black": "b", "result": "1-0", "plies": True},
                {"white": "a", "black": "b", "result": "1-0", "moves": ["x"], "plies": 2},
                {"white": "a", "black": "b", "result": "1-0", "forfeit": {"side": "red", "reason": ""}}):
        with pytest.raises(RecordError):
            check_record(bad)
    assert check_record({"white": "a", "black": "b", "result": "1-0", "other_program_field": [1]})


def test_a_line_over_the_limit_is_refused_without_reading_it_whole(tmp_path):
    path = tmp_path / "long.jsonl"
    path.write_bytes(LINES[0].encode() + b"x" * (MAX_LINE_BYTES + 10))
    with pytest.raises(RecordError, match=r"long.jsonl:2: a line longer than"):
        load_records(path)


def test_a_cut_last_line_is_skipped_and_reported(tmp_path):
    path = tmp_path / "cut.jsonl"
    path.write_text("".join(LINES[:5]) + LINES[5][:20])
    report = ReadReport()
    assert len(load_records(path, report=report)) == 5 and report.cut == [(str(path), 6)]
    with open(path, "r+b") as fh:
        assert cut_tail(fh) == 20
    assert path.read_text() == "".join(LINES[:5])


def _gzip_in_two_members(path):
    with open(path, "ab") as fh:
        writer = RecordsAppender(fh, gz=True)
        for line in LINES[:30]:
            writer.write([line])
        writer.close()
    with open(path, "ab") as fh:  # the second member is left open, as by a kill
        writer = RecordsAppender(fh, gz=True)
        for line in LINES[30:45]:
            writer.write([line])


def test_a_gzip_file_cut_anywhere_reads_its_whole_lines_and_is_mended_to_take_more(tmp_path):
    path = tmp_path / "r.jsonl.gz"
    _gzip_in_two_members(path)
    data = path.read_bytes()
    assert len(load_records(path)) == 45  # the open member reads up to its last flush
    for cut in range(len(data), 0, -7):
        path.write_bytes(data[:cut])
        read = list(iter_records(path, ReadReport()))
        with open(path, "r+b") as fh:
            cut_tail(fh, gz=True)
        kept = load_records(path)
        assert len(kept) >= len(read) - 1  # at most the line whose flush the kill cut
        assert [record_line(r) for r in kept] == LINES[:len(kept)]
        with open(path, "ab") as fh:
            writer = RecordsAppender(fh, gz=True)
            writer.write(LINES[50:52])
            writer.close()
        assert gzip.decompress(path.read_bytes()).decode() == "".join(LINES[:len(kept)] + LINES[50:52])


def test_tournament_ratings_replay_and_resume_read_and_write_gzip(tmp_path, capsys):
    out = tmp_path / "t.jsonl.gz"
    args = ["tournament", "flow", "--variant", "fountain", "--agents", "random", "random:seed=1", "--games", "8",
            "--workers", "0", "--quiet", "--out", str(out)]
    assert main(args) == 0
    records = load_records(out)
    assert len(records) == 8 and gzip.decompress(out.read_bytes()).count(b"\n") == 8
    data = out.read_bytes()
    out.write_bytes(data[:-15])  # a kill: the trailer and the last line's end are gone
    assert main(args + ["--resume"]) == 0
    again = load_records(out)
    assert sorted(r["id"] for r in again) == sorted(r["id"] for r in records)
    capsys.readouterr()
    assert main(["ratings", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 8
    assert main(["replay", str(out), "--game", records[0]["id"]]) == 0
    assert capsys.readouterr().out.strip().endswith(records[0]["result"])


def test_a_file_that_is_not_gzip_is_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "plain.jsonl.gz"
    path.write_text("".join(LINES[:3]))
    assert main(["ratings", str(path)]) == 2
    assert "not a gzip records file" in capsys.readouterr().err


def test_a_gzip_member_that_ends_at_the_read_limit_is_read_through(tmp_path):
    # A member whose text is two read chunks (2 x 64 KiB) of these lines ends just as the
    # decoder's output limit is reached (zlib leaves a stale unconsumed tail there): the
    # reader must go on with the next member, not retry the ended one forever.
    import random
    import threading
    import zlib

    from agents.records import iter_lines

    rng = random.Random(0)
    text = b""
    while len(text) < 2 << 16:
        moves = ",".join(str(rng.randrange(4000)) for _ in range(30))
        text += f'{{"moves": [{moves}]}}\n'.encode()
    text = text[:2 << 16]
    second = b'{"moves": []}\n' * 10

    def member(data):
        z = zlib.compressobj(6, zlib.DEFLATED, 31)
        return z.compress(data) + z.flush()

    path = tmp_path / "two-members.jsonl.gz"
    path.write_bytes(member(text) + member(second))
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(line for _, line in iter_lines(path)),
                              daemon=True)
    reader.start()
    reader.join(30)
    assert not reader.is_alive(), "the reader spins on the first member's end"
    assert b"".join(lines) == text + second
