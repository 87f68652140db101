"""Reading only the fields `ratings` needs: a runner's line checked by a pattern of its bytes
gives the same fields as parsing it whole, and every line the pattern cannot vouch for is
parsed whole, so a bad line is refused with the same one-line error."""
import json
import random
from pathlib import Path

import pytest

from agents import records
from agents.cli import main
from agents.compact import HashCodes, key_hash
from agents.records import (RATING_FIELDS, ReadReport, RecordError, SeenGames, _pattern_fields,
                            iter_records, parse_record, record_line)

DATA = Path(__file__).parent / "data" / "ratings"
REAL = [line for name in ("real2.jsonl", "real3.jsonl")
        for line in (DATA / name).read_bytes().splitlines(keepends=True)]


def _whole(line, fields=RATING_FIELDS):
    """What parsing a line whole gives: the fields, or the error's text."""
    try:
        record = parse_record(line)
    except RecordError as err:
        return str(err)
    return {key: record[key] for key in fields if key in record}


def _runner_line(**changes):
    record = json.loads(REAL[0])
    record.update(changes)
    return record_line(record).encode()


def test_runner_lines_give_the_fields_of_the_whole_parse():
    lines = REAL + [_runner_line(id=7), _runner_line(pair=None, variant=None, version=None, sources=None),
                    _runner_line(start="", opening=[]), _runner_line(moves=[], plies=0, result="*"),
                    _runner_line(settings=None), _runner_line(white="  spaced name", time_white=0),
                    _runner_line(time_black=1.5e-05, params={"max_turns": 12, "rule": "x"})]
    for fields in (RATING_FIELDS, ("white", "termination", "start", "version")):
        for line in lines:
            fast = _pattern_fields(line, fields)
            assert fast is not None, line
            assert fast == _whole(line, fields)
    # no `sources` (older records): none given, as the whole parse gives none
    record = json.loads(REAL[0])
    del record["sources"]
    line = record_line(record).encode()
    assert "sources" not in _pattern_fields(line, RATING_FIELDS) and _pattern_fields(line, RATING_FIELDS) == _whole(line)


def test_what_the_pattern_cannot_vouch_for_is_left_to_the_whole_parse():
    for line in (_runner_line(moves=["a b"], plies=1), _runner_line(moves=["a,b"], plies=1),
                 _runner_line(moves=["é"], plies=1), _runner_line(white="a\"b"),
                 _runner_line(forfeit={"side": "white", "reason": "x"}), _runner_line(moves=["a1"], plies=1, search={"depth": [1]}),
                 _runner_line(time_white=1e300), _runner_line(seed_white=2 ** 62),
                 REAL[0].replace(b"}\n", b"} \n"), REAL[0].replace(b"\n", b"\r\n")):
        assert _pattern_fields(line, RATING_FIELDS) is None, line
        assert isinstance(_whole(line), dict)  # valid records all the same: read whole


@pytest.mark.parametrize("seed", range(4))
def test_no_changed_byte_makes_the_pattern_accept_what_the_whole_parse_refuses(seed):
    rng = random.Random(seed)
    spice = [b'"', b"\\", b",", b"[", b"]", b"{", b"}", b" ", b"0", b"9", b"-", b".", b"e", b"E", b"n",
             b"\x00", b"\x1f", b"\xff", b"\xc3", b"\xed\xa0\x80", b"null", b'""', b'","', b"1" * 31,
             b"NaN", b"Infinity", b"\n", b"\t"]
    base = [REAL[0], REAL[-1], _runner_line(id=12, opening=["c1-b1"])]
    accepted = refused = 0
    for _ in range(1500):
        line = bytearray(rng.choice(base))
        for _ in range(rng.choice((1, 1, 2))):
            at = rng.randrange(len(line) - 1)  # the newline stays: iter_lines ends every line with it
            what = rng.random()
            if what < 0.4:
                line[at:at + 1] = rng.choice(spice)
            elif what < 0.7:
                line[at:at] = rng.choice(spice)
            else:
                del line[at:at + rng.choice((1, 2, 5))]
        line = bytes(line)
        fast, whole = _pattern_fields(line, RATING_FIELDS), _whole(line)
        if fast is not None:
            assert fast == whole, (line, fast, whole)
            accepted += 1
        refused += isinstance(whole, str)
    assert accepted > 100 and refused > 500, (accepted, refused)


def _file(tmp_path, name, lines):
    path = tmp_path / name
    path.write_bytes(b"".join(lines))
    return path


def test_a_bad_line_is_refused_alike_with_fields_or_without(tmp_path):
    bad_lines = [REAL[0].replace(b'"plies":', b'"plies":1'), REAL[0].replace(b'"random"', b'""', 1),
                 REAL[0].replace(b'"1-0"', b'1', 1), REAL[0][:-3] + b"\n", REAL[0].replace(b"0.1.0", b"0.1.0\\x"),
                 REAL[0].replace(b'"time_white":', b'"time_white":-'), REAL[0].replace(b'],"white"', b',""],"white"')]
    for k, bad in enumerate(bad_lines):
        path = _file(tmp_path, f"bad{k}.jsonl", REAL[:3] + [bad] + REAL[3:5])
        with pytest.raises(RecordError) as whole:
            list(iter_records(path, ReadReport(), SeenGames()))
        with pytest.raises(RecordError) as fast:
            list(iter_records(path, ReadReport(), SeenGames(), fields=RATING_FIELDS))
        assert str(fast.value) == str(whole.value) and f"bad{k}.jsonl:4: " in str(fast.value)
        assert "\n" not in str(fast.value)


def test_the_ratings_command_refuses_a_bad_runner_line_in_one_line(tmp_path, capsys):
    path = _file(tmp_path, "r.jsonl", REAL[:5] + [REAL[5].replace(b'"seed_black":', b'"seed_black":-')])
    assert main(["ratings", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{path}:6: field 'seed_black' must be a seed" in err


def test_the_ratings_report_is_the_same_with_or_without_the_pattern(tmp_path, capsys, monkeypatch):
    lines = []
    for k in range(400):  # new ids and pairs, some records repeated, some not finished
        record = json.loads(REAL[k % len(REAL)])
        record["id"], record["pair"] = f"g{k}", f"q{k // 2}"
        if k % 37 == 5:
            record["result"] = "*"
        lines.append(record_line(record).encode())
        if k % 50 == 49:
            lines.append(lines[-1])
    path = _file(tmp_path, "many.jsonl", lines)
    outs = []
    for pattern in (records.PATTERN_FIELDS, frozenset()):
        monkeypatch.setattr(records, "PATTERN_FIELDS", pattern)
        for extra in ([], ["--json"], ["--anchor", "random"]):
            assert main(["ratings", str(path), *extra]) == 0
            outs.append(capsys.readouterr())
    assert outs[:3] == outs[3:] and "skipped 8 duplicate" in outs[0].err


def test_hashed_reads_and_writes_equal_the_plain_ones():
    plain, hashed = HashCodes(capacity=2), HashCodes(capacity=2)
    for k in range(3000):
        key = f"q{k % 1700}"
        assert plain.put(key, 1 + k % 9) == hashed.put_hashed(key_hash(key), 1 + k % 9)
        assert plain.get(key) == hashed.get_hashed(key_hash(key)) and len(plain) == len(hashed)
