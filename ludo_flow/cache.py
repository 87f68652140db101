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

numba's cache is a folder of pickles, and loading a pickle runs code, so numba loads only from a
folder that no one but this user could have written to: the keyed folder (not a symbolic link)
and `<base>` (a symbolic link only if it is this user's) must belong to this user and be
writable by no one else (group and others). Folders this module creates have mode 0700, and
pruning deletes only this user's folders, never through a link. A base or keyed folder that
fails the check, or that cannot be written, is not used: one line on stderr says why, and the
process compiles into a new private folder under the temporary directory (`tempfile.mkdtemp`,
mode 0700) that it deletes at exit. The check is POSIX's; on Windows a user's `%LOCALAPPDATA%`
is private by its ACLs.
"""
import atexit
import hashlib
import os
import re
import shutil
import stat
import sys
import tempfile
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


def _owner():
    """Return the id of the user this process creates files as, or None where folders have no
    POSIX owner and mode to check (Windows)."""
    return os.geteuid() if hasattr(os, "geteuid") else None


def _distrust(path, follow):
    """Return why code must not be loaded from the existing folder `path`, or None: not a folder,
    another user's or writable by group or others; a symbolic link, unless `follow` is True and
    the link is this user's (then the folder it points to is checked)."""
    uid = _owner()
    if uid is None:
        return None
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        if not follow:
            return "it is a symbolic link"
        if st.st_uid != uid:
            return f"it is a symbolic link that user id {st.st_uid} owns, not you ({uid})"
        st = os.stat(path)
    if not stat.S_ISDIR(st.st_mode):
        return "it is not a folder"
    if st.st_uid != uid:
        return f"it belongs to user id {st.st_uid}, not to you ({uid})"
    if st.st_mode & 0o022:
        return f"its group or others can write to it (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def _make_private(path):
    """Create the folder `path` and its missing parents, each with mode 0700."""
    missing = []
    while not os.path.lexists(path) and path.parent != path:
        missing.append(path)
        path = path.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:  # made meanwhile, by this user or not: the check decides
            pass


def _unusable(base, path):
    """Return why numba must not cache in the keyed folder `path` under `base` (each created
    with mode 0700 if missing, the keyed folder only in a base that passed the check), or None
    if it may: see the module's docstring."""
    try:
        for folder, follow in ((base, True), (path, False)):
            _make_private(folder)
            why = _distrust(folder, follow)
            if why is not None:
                return f"{folder}: {why}"
        # its time is when it was last used: pruning keeps the recent ones
        if os.utime in os.supports_follow_symlinks:
            os.utime(path, follow_symlinks=False)
        else:
            os.utime(path)
        fd, probe = tempfile.mkstemp(prefix=".probe-", dir=path)  # O_EXCL|O_NOFOLLOW: a new file
        os.close(fd)
        os.unlink(probe)
        return None
    except OSError as err:
        return f"{err.filename or path}: {err.strerror or err}"


def _private_folder(name, why):
    """Return a new keyed folder `name` in a new private temporary folder (mode 0700, deleted
    when this process exits), saying on stderr why the usual one (`why`) is not used."""
    try:
        base = Path(tempfile.mkdtemp(prefix="ludo_flow-cache-"))
        path = base / name
        os.mkdir(path, 0o700)
    except OSError as err:
        raise RuntimeError(f"ludo_flow: no folder to keep compiled code in: {why}, and the "
                           f"temporary folder failed ({err}); set LUDO_FLOW_CACHE_DIR to a folder "
                           f"only you can write to") from None
    creator = os.getpid()
    atexit.register(lambda: os.getpid() == creator and shutil.rmtree(base, ignore_errors=True))
    print(f"ludo_flow: not using the cache folder {why}; compiling into {path} instead (private, "
          f"deleted at exit); set LUDO_FLOW_CACHE_DIR to a folder only you can write to",
          file=sys.stderr)
    return path


def configure():
    """Point numba's cache at this source tree's folder, prune old folders; return the folder."""
    name = _state["entry"] = entry_name()
    base = cache_base()
    path = base / name
    why = _unusable(base, path)
    if why is not None:
        path = _private_folder(name, why)
        base = path.parent
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


def _ours(path):
    """Return True if `path` is a folder (not a symbolic link) that belongs to this user."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    uid = _owner()
    return stat.S_ISDIR(st.st_mode) and (uid is None or st.st_uid == uid)


def _remove(path):
    """Delete a folder of this user's (never a link, never another user's) safely against a
    racing process: rename it away first, then delete; return True if it was removed."""
    if not _ours(path):
        return False
    trash = path.parent / f"{_TRASH}{os.getpid()}-{threading.get_ident()}-{path.name}"
    try:
        os.rename(path, trash)
    except OSError:  # another process removed or is removing it
        return False
    shutil.rmtree(trash, ignore_errors=True)
    return True


def prune(base, keep, keep_others=KEEP_OTHERS, recent=KEEP_RECENT_SECONDS):
    """Delete this user's cache folders under `base` other than `keep` and the `keep_others`
    most recently used, except any used in the last `recent` seconds; return the deleted paths.
    Symbolic links and other users' folders are left alone."""
    base = Path(base)
    now = time.time()
    others = [p for p in cache_entries(base) if p.name != keep and _ours(p)]
    removed = []
    for path in others[keep_others:]:
        try:
            if now - os.lstat(path).st_mtime < recent:
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
            if _ours(path) and now - os.lstat(path).st_mtime > recent:
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


# The compile plan and the compile notices lived here before the layers were split.
_MOVED = {
    "is_cached": "ludo_flow.compiling:is_cached",
    "dispatchers": "ludo_flow.compiling:dispatchers",
    "compile_counts": "ludo_flow.compiling:compile_counts",
    "Compiling": "ludo_flow.compiling:Compiling",
    "compiling": "ludo_flow.compiling:compiling",
    "ENGINE_SECONDS": "agents.warmup:ENGINE_SECONDS",
    "MOVES_SECONDS": "agents.warmup:MOVES_SECONDS",
    "SPLIT_ENGINE_SECONDS": "agents.warmup:SPLIT_ENGINE_SECONDS",
    "AGENT_SECONDS": "agents.warmup:AGENT_SECONDS",
    "wait_seconds": "agents.warmup:wait_seconds",
    "warm": "agents.warmup:warm",
    "JOBS_VARIABLE": "agents.warmup:JOBS_VARIABLE",
    "MAX_JOBS": "agents.warmup:MAX_JOBS",
    "compile_jobs": "agents.warmup:compile_jobs",
    "helper_stages": "agents.warmup:helper_stages",
    "evaluation_kernels": "agents.warmup:evaluation_kernels",
    "run_helper_task": "agents.warmup:run_helper_task",
    "compile_in_helpers": "agents.warmup:compile_in_helpers",
    "merge_cache": "agents.warmup:merge_cache",
    "ENTRY_POINTS": "agents.cli:ENTRY_POINTS",
    "entry_specs": "agents.cli:entry_specs",
}


def __getattr__(name):
    """Answer a name that moved away (ludo_flow.moved)."""
    from .moved import moved
    return moved(__name__, _MOVED, name)
