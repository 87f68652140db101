"""Files written whole or not at all (`agents.files.replacing`), by the opening suites and the
self-play shards: what is already at the path is never trusted."""
import os
import stat

import pytest
from clitext import messages

from agents.cli import main
from agents.files import NotARegularFile, replacing
from agents.selfplay import SelfPlayError, run_selfplay


def _not_regular(tmp_path, kind):
    """Return a path in tmp_path holding a `kind` that is not a regular file."""
    path = tmp_path / kind
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:  # a symbolic link to a file that must stay as it is
        target = tmp_path / "precious"
        target.write_text("keep me\n")
        path.symlink_to(target)
    return path


@pytest.mark.parametrize("kind", ["fifo", "folder", "link"])
def test_a_path_that_is_not_a_regular_file_is_refused_and_left_alone(tmp_path, kind):
    # renaming onto it replaced it: `openings --out /dev/full` turned the device into a file
    path = _not_regular(tmp_path, kind)
    before = os.lstat(path)
    with pytest.raises(NotARegularFile, match="not a regular file"), replacing(path) as fh:
        fh.write("x")
    after = os.lstat(path)
    assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode) and after.st_ino == before.st_ino
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [kind] + (["precious"] if kind == "link" else []))
    if kind == "link":
        assert (tmp_path / "precious").read_text() == "keep me\n"


def test_a_link_planted_at_a_guessable_temporary_name_is_not_written_through(tmp_path):
    # the suite's temporary file was "<path>.tmp<pid>", opened with "w": through any link there
    target = tmp_path / "precious"
    target.write_text("keep me\n")
    path = tmp_path / "suite.txt"
    for name in (f"suite.txt.tmp{os.getpid()}", f".suite.txt.{os.getpid()}.tmp"):
        (tmp_path / name).symlink_to(target)
    with replacing(path) as fh:
        fh.write("new\n")
    assert path.read_text() == "new\n" and target.read_text() == "keep me\n"
    assert not path.is_symlink()


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path):
    path = tmp_path / "suite.txt"
    path.write_text("old\n")
    with pytest.raises(RuntimeError), replacing(path) as fh:
        fh.write("half")
        raise RuntimeError("stopped")
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["suite.txt"]


def test_a_new_file_gets_the_permissions_of_any_new_file(tmp_path):
    old = os.umask(0o027)
    try:
        with replacing(tmp_path / "a.bin", "wb") as fh:
            fh.write(b"\x00")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "a.bin").st_mode) == 0o640
    with pytest.raises(ValueError, match="mode"), replacing(tmp_path / "b", "a"):
        pass


def test_the_commands_refuse_such_paths_in_one_line(tmp_path, capsys):
    fifo = _not_regular(tmp_path, "fifo")
    assert main(["openings", "flow", "--count", "2", "--out", str(fifo)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("ludo-flow: error: cannot write") and "not a regular file" in err[-1]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine\n")
    assert main(["selfplay", "flow", "--agent", "random", "--games", "1", "--out", str(a_file)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert messages("\n".join(err)) == [(f"ludo-flow: error: --out {str(a_file)!r} is not a folder "
                                         "(self-play writes a folder of shards)")]
    assert a_file.read_text() == "mine\n"


def test_selfplay_says_in_one_line_when_its_folder_cannot_be_made(tmp_path):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine\n")
    settings = {"game": "flow", "variant": "standard", "params": {}, "position": "", "agent": "random",
                "seed": 0, "opening_plies": 0, "games_per_shard": 1}
    with pytest.raises(SelfPlayError, match="cannot write the self-play folder there"):
        run_selfplay(settings, a_file / "shards", 1, workers=0)
    assert a_file.read_text() == "mine\n"
