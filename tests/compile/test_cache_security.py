"""numba's cache is a folder of pickles, so nobody else's code may run through it (ludo_flow.cache).

numba unpickles a function's index file (`.nbi`) as soon as it looks the function up, and an
unpickled object can run any code. So a planted index here creates a marker file when loaded;
importing ludo_flow (which configures the cache) and calling a toy cached function in a new
process must never create the marker from a folder another user owns or can write to. "Another
user" is uid 65534 (nobody), given the folder with chown (those tests need root, as on the VM);
"writable by others" is mode 0777.
"""
import json
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ludo_flow import cache

pytestmark = pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX owners and modes")
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="gives folders to another user with chown")

NOBODY = 65534
TWICE = "from numba import njit\n\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n"

# Where numba would look up the toy's index; with "call", look it up (loading the index).
SCRIPT = r"""
import json, os, stat, sys
import ludo_flow, numba
from twice import twice
if sys.argv[1] == "call":
    twice(3)
folder = numba.config.CACHE_DIR
print(json.dumps({"cache_dir": folder, "index": twice._cache._cache_file._index_path,
                  "modes": [stat.S_IMODE(os.stat(p).st_mode) for p in (folder, os.path.dirname(folder))]}))
"""


class Payload:
    """Unpickling it creates the file `path` (each time): the proof that a planted pickle was loaded."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return open, (self.path, "a")


def run(tmp_path, mode, **variables):
    """Run SCRIPT (`mode` "call" or "look") in a new process with the toy on its path and the
    given environment variables; return (what it printed, its stderr)."""
    toy = tmp_path / "toy"
    if not toy.is_dir():
        toy.mkdir()
        (toy / "twice.py").write_text(TWICE)
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "LUDO_FLOW_CACHE_DIR", "PYTHONPATH")}
    env.update(PYTHONPATH=str(toy), **{k: str(v) for k, v in variables.items()})
    done = subprocess.run([sys.executable, "-c", SCRIPT, mode], env=env, cwd=toy,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def plant(index, marker):
    """Write a pickle that makes `marker` when loaded where numba keeps the toy's index."""
    Path(index).parent.mkdir(parents=True, exist_ok=True)
    Path(index).write_bytes(pickle.dumps(Payload(marker)))


def chown_tree(path, uid):
    """Give `path` and everything under it to user `uid`."""
    for folder, subdirs, names in os.walk(path):
        for name in [folder] + [os.path.join(folder, n) for n in subdirs + names]:
            os.chown(name, uid, uid)


@pytest.mark.parametrize("where, fault, variable", [
    pytest.param("entry", "owner", "LUDO_FLOW_CACHE_DIR", marks=needs_root),
    ("entry", "mode", "LUDO_FLOW_CACHE_DIR"),
    ("entry", "link", "LUDO_FLOW_CACHE_DIR"),
    pytest.param("base", "owner", "NUMBA_CACHE_DIR", marks=needs_root),
    ("base", "mode", "NUMBA_CACHE_DIR"),
])
def test_a_pickle_planted_in_a_folder_others_control_is_never_loaded(tmp_path, where, fault, variable):
    base, marker = tmp_path / "cache", tmp_path / "planted-code-ran"
    looked, _ = run(tmp_path, "look", **{variable: base})
    entry = Path(looked["cache_dir"])
    assert entry.parent == base
    plant(looked["index"], marker)
    folder = entry if where == "entry" else base
    if fault == "owner":
        chown_tree(folder, NOBODY)
        reason = f"belongs to user id {NOBODY}"
    elif fault == "mode":
        os.chmod(folder, 0o777)
        reason = "can write to it (mode 777)"
    else:  # the keyed folder is a link to a folder holding the pickle
        entry.rename(tmp_path / "elsewhere")
        entry.symlink_to(tmp_path / "elsewhere")
        reason = "symbolic link"
    called, stderr = run(tmp_path, "call", **{variable: base})
    assert not marker.exists()
    assert not Path(called["cache_dir"]).is_relative_to(base)
    line = [t for t in stderr.splitlines() if t.startswith("ludo_flow: not using the cache folder")]
    assert len(line) == 1 and str(folder) in line[0] and reason in line[0], stderr


def test_the_fallback_folder_is_private_new_each_time_and_deleted_at_exit(tmp_path):
    # A base that cannot be a folder (under a file) sends the process to the fallback. The old,
    # predictable fallback `$TMPDIR/ludo_flow-cache-$USER` is planted, 0777 (and another user's).
    temp = tmp_path / "tmp"
    temp.mkdir()
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    marker = tmp_path / "planted-code-ran"
    predictable = temp / "ludo_flow-cache-victim"
    looked, _ = run(tmp_path, "look", LUDO_FLOW_CACHE_DIR=predictable)
    plant(looked["index"], marker)
    if ROOT:
        chown_tree(predictable, NOBODY)
    for folder in (predictable, Path(looked["cache_dir"])):
        os.chmod(folder, 0o777)
    folders = []
    for _ in range(2):
        called, stderr = run(tmp_path, "call", LUDO_FLOW_CACHE_DIR=blocked / "cache",
                             TMPDIR=temp, USER="victim")
        folder = Path(called["cache_dir"])
        assert folder.parent.parent == temp and folder.parent.name.startswith("ludo_flow-cache-")
        assert called["modes"] == [0o700, 0o700]
        assert not folder.parent.exists()  # deleted when the process exited
        assert "Not a directory" in stderr and len(stderr.strip().splitlines()) == 1, stderr
        folders.append(folder.parent.name)
    assert not marker.exists()
    assert len(set(folders + [predictable.name])) == 3


PROBES = r"""
import os, sys
entry, target = sys.argv[1:]
for pid in range(os.getpid() - 250, os.getpid() + 250):  # this process's pid among them
    os.symlink(target, os.path.join(entry, f".probe-{pid}"))
import ludo_flow
"""


def test_planted_probe_links_do_not_make_an_import_write_through_them(tmp_path):
    base = tmp_path / "cache"
    entry = base / cache.entry_name()  # the folder the new process will use: the same sources
    entry.mkdir(parents=True, mode=0o700)
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    env["LUDO_FLOW_CACHE_DIR"] = str(base)
    done = subprocess.run([sys.executable, "-c", PROBES, str(entry), str(target)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert target.read_text() == "keep me"
    assert len(list(entry.glob(".probe-*"))) == 500


def test_cache_folders_are_created_private_whatever_the_umask(tmp_path):
    base = tmp_path / "shared" / "cache"
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    env["LUDO_FLOW_CACHE_DIR"] = str(base)
    done = subprocess.run([sys.executable, "-c", "import os; os.umask(0o002); "
                           "import ludo_flow; print(ludo_flow.cache.cache_dir())"],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    entry = Path(done.stdout.strip())
    assert entry.parent == base
    for folder in (tmp_path / "shared", base, entry):
        assert folder.stat().st_mode & 0o777 == 0o700, folder


@needs_root
def test_pruning_leaves_other_users_folders_and_links_alone(tmp_path):
    base = tmp_path / "cache"
    base.mkdir(mode=0o700)
    old = time.time() - 86400
    names = [f"ludo_flow-0.1.0-{i:016x}" for i in range(6)]
    for i, name in enumerate(names[:5]):
        (base / name).mkdir()
        os.utime(base / name, (old - i, old - i))
    theirs = [names[3], names[4]]
    for name in theirs:
        os.chown(base / name, NOBODY, NOBODY)
    trash = base / ".ludo_flow-trash-1-2-ludo_flow-0.1.0-00000000000000ff"  # theirs, left half deleted
    (trash / "inside").mkdir(parents=True)
    chown_tree(trash, NOBODY)
    os.utime(trash, (old, old))
    kept = tmp_path / "mine"
    (kept / "file").mkdir(parents=True)
    (base / names[5]).symlink_to(kept)  # a link named like a cache folder
    os.utime(base / names[5], (old, old), follow_symlinks=False)
    removed = cache.prune(base, keep=names[0], keep_others=0)
    assert sorted(p.name for p in removed) == names[1:3]
    assert sorted(p.name for p in base.iterdir()) == sorted([names[0], *theirs, names[5], trash.name])
    assert (kept / "file").is_dir()
