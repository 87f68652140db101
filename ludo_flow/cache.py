"""Where numba keeps ludo_flow's compiled code: one folder per version of the sources.

numba's on-disk cache checks only the source file a function is defined in, so a search that
inlines a kernel from another file (alpha-beta inlines Flow's `evaluate`) would keep running the
old kernel after an edit. So importing ludo_flow points numba's cache at a folder keyed on a hash
of every source file of the distribution (`ludo_flow/**/*.py` and `agents/**/*.py`):

    <base>/ludo_flow-<version>-<first 16 hex digits of the sha256 of the sources>/

An edit anywhere gives a new, empty folder, and code compiled before the edit is never loaded
again. `<base>` is `$LUDO_FLOW_CACHE_DIR` if set, else `$NUMBA_CACHE_DIR` if set, else the
platform's cache folder (`$XDG_CACHE_HOME` or `~/.cache`, `~/Library/Caches` on macOS,
`%LOCALAPPDATA%` on Windows) + `/ludo_flow`. Folders of other hashes are pruned on import: the
current one and the two most recently used others are kept (another checkout or a process
started before an edit may still use them), and nothing used in the last ten minutes is deleted.

numba reads its cache folder from `numba.config.CACHE_DIR` when a function is decorated, so this
module must run before any `@njit(cache=True)` function of the package is defined (the first
lines of `ludo_flow/__init__.py`; every module of `agents` imports ludo_flow first). It sets both
`numba.config.CACHE_DIR` and the `NUMBA_CACHE_DIR` variable of this process (numba re-reads its
variables before each compile, and child processes inherit it; they recognise the keyed folder
and key their own sources in its parent).
"""
import hashlib
import os
import re
import shutil
import sys
import threading
import time
from pathlib import Path

_ENTRY = re.compile(r"ludo_flow-[0-9A-Za-z.+_-]+-[0-9a-f]{16}")
_TRASH = ".ludo_flow-trash-"
KEEP_OTHERS = 2
KEEP_RECENT_SECONDS = 600.0

_state = {"dir": None, "entry": None}


def package_dirs():
    """Return the folders of the packages whose sources key the cache (ludo_flow, agents)."""
    here = Path(__file__).resolve().parent
    dirs = [here]
    sibling = here.parent / "agents"
    if (sibling / "__init__.py").is_file():
        dirs.append(sibling)
    return dirs


def source_files():
    """Return [(path relative to the packages' parent, path)] of every .py file of the keyed
    packages, sorted."""
    files = []
    for top in package_dirs():
        for folder, subdirs, names in os.walk(top):
            subdirs[:] = [d for d in subdirs if d != "__pycache__" and not d.startswith(".")]
            for n in names:
                if n.endswith(".py"):
                    path = Path(folder) / n
                    files.append((path.relative_to(top.parent).as_posix(), path))
    return sorted(files)


def source_hash():
    """Return (version, hex sha256 of the keyed packages' sources and their relative paths)."""
    digest = hashlib.sha256()
    version = "0"
    for rel, path in source_files():
        data = path.read_bytes()
        if rel == "ludo_flow/__init__.py":
            found = re.search(rb'^__version__\s*=\s*["\']([^"\']+)["\']', data, re.M)
            if found:
                version = found.group(1).decode()
        digest.update(rel.encode() + b"\0" + len(data).to_bytes(8, "little") + data)
    return version, digest.hexdigest()


def entry_name():
    """Return the name of this source tree's cache folder: ludo_flow-<version>-<hash16>."""
    version, digest = source_hash()
    return f"ludo_flow-{re.sub(r'[^0-9A-Za-z.+_]', '_', version)}-{digest[:16]}"


def sources_id():
    """Return the id of the sources this process imported: `ludo_flow-<version>-<hash16>`, the
    name of their cache folder (keyed as above). Two processes with the same id run the same
    code, so game records carry it (`agents.records`); it is fixed at import, so an edit made
    while a process runs does not change the id of the code that process runs."""
    if _state["entry"] is None:
        _state["entry"] = entry_name()
    return _state["entry"]


def cache_base():
    """Return the folder that holds the cache folders of every version of the sources."""
    if os.environ.get("LUDO_FLOW_CACHE_DIR"):
        return Path(os.environ["LUDO_FLOW_CACHE_DIR"]).expanduser()
    numba_dir = os.environ.get("NUMBA_CACHE_DIR")
    if numba_dir:
        path = Path(numba_dir).expanduser()
        return path.parent if _ENTRY.fullmatch(path.name) else path
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        platform_dir = Path(os.environ["LOCALAPPDATA"])
    elif sys.platform == "darwin":
        platform_dir = Path.home() / "Library" / "Caches"
    else:
        platform_dir = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return platform_dir / "ludo_flow"


def cache_dir():
    """Return the folder numba caches this source tree's compiled code in."""
    if _state["dir"] is None:
        return cache_base() / entry_name()
    return _state["dir"]


def _usable(path):
    """Return True if `path` exists (created if needed) and is writable."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        os.utime(path)  # its time is when it was last used: pruning keeps the recent ones
        probe = path / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
        return True
    except OSError:
        return False


def configure():
    """Point numba's cache at this source tree's folder, prune old folders; return the folder."""
    name = _state["entry"] = entry_name()
    base = cache_base()
    path = base / name
    if not _usable(path):  # an unwritable base: a per-user folder under the temporary directory
        import tempfile
        user = os.environ.get("USER") or os.environ.get("USERNAME") or str(os.getpid())
        base = Path(tempfile.gettempdir()) / f"ludo_flow-cache-{user}"
        path = base / name
        _usable(path)
    from numba.core import config
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    config.CACHE_DIR = str(path)
    _state["dir"] = path
    try:
        prune(base, keep=name)
    except OSError:
        pass
    return path


def cache_entries(base=None):
    """Return the cache folders of every version of the sources under `base`, newest use first."""
    base = cache_base() if base is None else Path(base)
    found = []
    try:
        with os.scandir(base) as it:
            for entry in it:
                if _ENTRY.fullmatch(entry.name) and entry.is_dir(follow_symlinks=False):
                    try:
                        found.append((entry.stat(follow_symlinks=False).st_mtime, Path(entry.path)))
                    except OSError:
                        pass
    except OSError:
        return []
    return [p for _, p in sorted(found, key=lambda t: (-t[0], t[1].name))]


def _remove(path):
    """Delete a folder safely against a racing process: rename it away first, then delete."""
    trash = path.parent / f"{_TRASH}{os.getpid()}-{threading.get_ident()}-{path.name}"
    try:
        os.rename(path, trash)
    except OSError:  # another process removed or is removing it
        return False
    shutil.rmtree(trash, ignore_errors=True)
    return True


def prune(base, keep, keep_others=KEEP_OTHERS, recent=KEEP_RECENT_SECONDS):
    """Delete the cache folders under `base` other than `keep` and the `keep_others` most
    recently used, except any used in the last `recent` seconds; return the deleted paths."""
    base = Path(base)
    now = time.time()
    others = [p for p in cache_entries(base) if p.name != keep]
    removed = []
    for path in others[keep_others:]:
        try:
            if now - path.stat().st_mtime < recent:
                continue
        except OSError:
            continue
        if _remove(path):
            removed.append(path)
    try:
        with os.scandir(base) as it:  # left by a process that died while deleting
            leftovers = [Path(e.path) for e in it if e.name.startswith(_TRASH)]
    except OSError:
        leftovers = []
    for path in leftovers:
        try:
            if now - path.stat().st_mtime > recent:
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            pass
    return removed


def clear_cache(all_versions=True):
    """Delete the compiled code (this source tree's folder, and with `all_versions` every other
    version's under the same base, and old numba files next to the sources); return the paths."""
    current = cache_dir()
    targets = cache_entries(current.parent) if all_versions else []
    if current.exists() and current not in targets:
        targets.append(current)
    removed = [p for p in targets if _remove(p)]
    for top in package_dirs():  # written by versions that cached next to the sources
        for old in list(top.rglob("__pycache__/*.nb[ic]")):
            try:
                old.unlink()
                removed.append(old)
            except OSError:
                pass
    return removed


def folder_size(path):
    """Return the total size in bytes of the files under `path`."""
    total = 0
    for folder, _, names in os.walk(path):
        for n in names:
            try:
                total += os.path.getsize(os.path.join(folder, n))
            except OSError:
                pass
    return total
