"""Where numba keeps ludo_flow's compiled code, and the notice a command gives while it compiles.

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
from contextlib import contextmanager
from pathlib import Path

_PACKAGES = ("ludo_flow", "agents")
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


# ---- what is compiled ---------------------------------------------------------------------
def is_cached(function):
    """Return True if numba's cache holds compiled code of the jitted `function`, False if not,
    None if it cannot tell."""
    try:
        return os.path.exists(function._cache._cache_file._index_path)
    except AttributeError:
        return None


def dispatchers():
    """Return {qualified name: numba dispatcher} of the package's jitted functions loaded so far."""
    from numba.core.registry import CPUDispatcher
    found = {}
    for modname, module in list(sys.modules.items()):
        if module is None or modname.split(".")[0] not in _PACKAGES:
            continue
        for attr, value in list(vars(module).items()):
            if isinstance(value, CPUDispatcher) and value.__module__ == modname:
                found[f"{modname}.{attr}"] = value
    from .specialize import entries
    found.update(entries())  # the per-game entries of the searches
    return found


def compile_counts():
    """Return {function: (signatures loaded from the cache, signatures compiled)} over the
    package's jitted functions loaded so far (numba's dispatcher statistics)."""
    counts = {}
    for name, d in dispatchers().items():
        hits = sum(d.stats.cache_hits.values())
        misses = sum(d.stats.cache_misses.values())
        if hits or misses:
            counts[name] = (hits, misses)
    return counts


# ---- the notice -----------------------------------------------------------------------------
class Compiling:
    """What a `compiling` block found out: whether it announced itself, and how long it took."""

    def __init__(self, what):
        self.what = what
        self.announced = False
        self.seconds = 0.0
        self.compiled = {}


@contextmanager
def compiling(what, expected_seconds, functions=(), delay=None, stream=None):
    """Run the block, telling on stderr that `what` is being compiled if it is.

    If one of `functions` (numba dispatchers the block runs) is not in the cache, the notice
    comes at once: what is compiled, that it happens once, about `expected_seconds`, where the
    cache lives; then the elapsed seconds (rewritten in place on a terminal, a line every 15 s
    otherwise) and the time it took. If they all are (or none is named), the notice comes only
    if the block is still running after `delay` seconds (default 3 when all are cached, else 1):
    a cached start stays silent. Yields a `Compiling` with `announced`, `seconds` and
    `compiled` ({function: signatures compiled} during the block)."""
    stream = sys.stderr if stream is None else stream
    info = Compiling(what)
    from numba.core import config
    if config.DISABLE_JIT:  # nothing is compiled
        began = time.perf_counter()
        yield info
        info.seconds = time.perf_counter() - began
        return
    cached = [is_cached(f) for f in functions]
    missing = any(c is False for c in cached)
    if delay is None:
        delay = 3.0 if functions and all(cached) else 1.0
    began = time.perf_counter()
    before = compile_counts()
    done = threading.Event()
    lock = threading.Lock()
    tty = hasattr(stream, "isatty") and stream.isatty()

    def announce():
        with lock:
            if done.is_set() or info.announced:
                return
            info.announced = True
            about = f"about {_duration(expected_seconds)}" if expected_seconds else "a while"
            _write(stream, f"ludo-flow: compiling {what} for this machine; this happens once "
                           f"({about}); later runs load it from the cache in {cache_dir()}\n")

    def tick():
        if not missing and done.wait(delay):
            return
        announce()
        last_line = time.perf_counter()
        while not done.wait(0.5 if tty else 1.0):
            elapsed = time.perf_counter() - began
            with lock:
                if done.is_set():
                    return
                if tty:
                    _write(stream, f"\rludo-flow: compiling ... {elapsed:.0f} s "
                                   f"(of about {_duration(expected_seconds)})")
                elif time.perf_counter() - last_line >= 15.0:
                    _write(stream, f"ludo-flow: still compiling ({elapsed:.0f} s)\n")
                    last_line = time.perf_counter()

    if missing:
        announce()
    ticker = threading.Thread(target=tick, name="ludo-flow-compiling", daemon=True)
    ticker.start()
    try:
        yield info
    finally:
        with lock:
            done.set()
        ticker.join(timeout=2.0)
        info.seconds = time.perf_counter() - began
        after = compile_counts()
        info.compiled = {k: v[1] - before.get(k, (0, 0))[1] for k, v in after.items()
                         if v[1] > before.get(k, (0, 0))[1]}
        if info.announced:
            _write(stream, f"{chr(13) if tty else ''}ludo-flow: compiled {what} in "
                           f"{info.seconds:.0f} s{' ' * 12 if tty else ''}\n")


def _duration(seconds):
    """Return a rough duration in words: '10 s', '1-2 minutes'."""
    if seconds < 90:
        return f"{max(5, int(round(seconds / 5.0)) * 5)} s"
    minutes = seconds / 60.0
    return f"{int(minutes)}-{int(minutes) + 1} minutes"


def _write(stream, text):
    """Write and flush, ignoring a closed stream."""
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError):
        pass


# ---- what each entry point compiles -----------------------------------------------------------
ENTRY_POINTS = ("perft", "play", "mcts", "alphabeta", "tournament")
_AGENT_WORDS = {"random": "the random agent", "mcts": "the MCTS search",
                "alphabeta": "the alpha-beta search"}
# First-run wall seconds on the idle 2-core development VM (benchmarks/bench_compile_versions.py,
# 2026-12-02, docs/benchmarks.md "Compile time"): the engine and perft as scheduled (Flow's split
# between this process and a helper), and each kind of agent beyond the engine, compiled in the
# second stage (Flow's tournament 16-20 s, Tolkuchka's 13-14 s). Used only to tell a user roughly
# how long to wait, and to choose the search a first run compiles in this process (the longest);
# a game not listed is told Flow's figures.
ENGINE_SECONDS = {"flow": 6, "tolkuchka": 4}
MOVES_SECONDS = {"flow": 4, "tolkuchka": 2}  # the move generator alone (`warm(moves_only=True)`)
SPLIT_ENGINE_SECONDS = 6  # an engine expected to compile this long is split in two (helper_stages)
AGENT_SECONDS = {"flow": {"random": 1, "mcts": 6, "alphabeta": 11},
                 "tolkuchka": {"random": 1, "mcts": 5, "alphabeta": 8}}


def entry_specs(entry):
    """Return the agent specs an entry point runs (perft runs none)."""
    if entry == "perft":
        return ()
    if entry == "play":
        return ("random",)
    if entry == "tournament":
        from agents.tournament import DEFAULT_AGENTS
        return tuple(DEFAULT_AGENTS)
    if entry in ("mcts", "alphabeta"):
        return (entry,)
    raise ValueError(f"unknown entry point {entry!r}; choose one of {', '.join(ENTRY_POINTS)}")


def _agent_kinds(specs):
    """Return the distinct agent names of specs, in order, without people (who compile nothing)."""
    if not specs:  # perft plays no agent: importing agents would cost a cached start 0.1 s
        return []
    from agents.registry import parse_spec
    kinds = []
    for spec in specs:
        name = parse_spec(spec)[0]
        if name not in kinds and name in _AGENT_WORDS:
            kinds.append(name)
    return kinds


def _parts(game, perft, specs, moves_only=False):
    """Return [(words, rough first-run seconds, key jitted functions)] of what a warm-up compiles:
    the engine (with perft; only its move generator if `moves_only`), then each kind of agent.
    A part whose key functions are not all in the cache will be compiled."""
    k = game.kernels
    if moves_only:
        names, words, seconds = ("legal_actions",), "move generator", MOVES_SECONDS
    else:
        names = ("legal_actions", "apply") + (("perft",) if perft else ())
        names += ("is_terminal", "termination") if specs else ()  # a game played to its end
        words, seconds = "engine" + (" and perft" if perft else ""), ENGINE_SECONDS
    engine = [getattr(k, n, None) for n in names]
    agent_seconds = AGENT_SECONDS.get(game.name, AGENT_SECONDS["flow"])
    parts = [(f"the {game.name.capitalize()} {words}", seconds.get(game.name, seconds["flow"]),
              engine)]
    for kind in _agent_kinds(specs):
        functions = {}  # a search is compiled per game and per setting it binds (its evaluation)
        for spec in specs:
            if _agent_kinds([spec]) == [kind] and kind in ("mcts", "alphabeta"):
                functions.update(dict.fromkeys(_search_functions(spec, game.game_id)))
        parts.append((_AGENT_WORDS[kind], agent_seconds[kind], list(functions)))
    return [(w, s, [f for f in fs if hasattr(f, "stats")]) for w, s, fs in parts]


def _search_functions(spec, game_id):
    """Return the jitted entries the agent of `spec` runs on game `game_id` (none for a spec
    that the agent refuses: it says why when it is made)."""
    from agents import AgentError, make_agent
    try:
        return make_agent(spec).search_functions(game_id)
    except AgentError:
        return ()


def wait_seconds(engine, searches, helpers):
    """Return the rough wall seconds of a first run that compiles an engine part of `engine`
    seconds and agent parts of `searches` seconds (the figures of `_parts`), with the searches
    in helper processes side by side (`helpers`) or one after the other in this process."""
    if helpers:
        longest = max(searches, default=0)
        return engine + longest + (sum(searches) - longest) / 4  # two searches share 2 cores
    return engine + sum(searches)


def _join(words):
    """Return 'a', 'a and b', 'a, b and c'."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def warm(game, perft=False, specs=(), start=None, stream=None, jobs=None, moves_only=False):
    """Compile (or load from the cache) the game's engine, perft and the agents of `specs`
    (playing a few cheap decisions from the position string `start`, default the start),
    announcing it on stderr if it compiles; return the `Compiling` record.

    `moves_only`: only the move generator (`legal_actions`), for a command that lists or
    counts the legal actions and plays none (perft at depth 1); no perft, no agents.

    On a first run, independent parts compile at once in up to `jobs` processes (default
    `compile_jobs()`): this one and helpers (`helper_stages`, `compile_in_helpers`); this
    process then loads what the helpers compiled."""
    if moves_only and (perft or specs):
        raise ValueError("warm(moves_only=True) compiles the move generator alone: "
                         "it takes neither perft nor agent specs")
    parts = _parts(game, perft, specs, moves_only)
    absent = [p for p in parts if any(is_cached(f) is False for f in p[2])]
    missing = absent or parts
    functions = [f for p in parts for f in p[2]]
    jobs = compile_jobs() if jobs is None else jobs
    # one kernel has nothing to compile beside it: a helper's start-up would only cost time
    stages = helper_stages(game, specs, absent) if absent and jobs > 1 and not moves_only else []
    seconds = wait_seconds(sum(p[1] for p in missing if p is parts[0]),
                           [p[1] for p in missing if p is not parts[0]], bool(stages))
    helped = {}
    with compiling(_join([p[0] for p in missing]), seconds, functions, stream=stream) as info:
        for here, *others in stages:
            for name, count in compile_in_helpers(game, others, start, jobs - 1, here).items():
                helped[name] = helped.get(name, 0) + count
        state = game.new_initial_state() if start is None else game.from_string(start)
        if perft:
            game.kernels.perft(state.array, 1)
        if moves_only:
            state.legal_actions()
        specs = [s for s in specs if _agent_kinds([s])]
        if specs:
            from agents.tournament import warm_up
            warm_up(game, state.to_string(), specs)
    for name, count in helped.items():
        info.compiled[name] = info.compiled.get(name, 0) + count
    return info


# ---- compiling in helper processes on a first run ----------------------------------------------
JOBS_VARIABLE = "LUDO_FLOW_COMPILE_JOBS"
MAX_JOBS = 4


def compile_jobs():
    """Return how many processes a first-run warm-up may compile in at once, this one and its
    helpers: the $LUDO_FLOW_COMPILE_JOBS variable if set (1: no helper, compile in this
    process), else the machine's cores, at most MAX_JOBS."""
    value = os.environ.get(JOBS_VARIABLE, "").strip()
    if value:
        try:
            return max(1, int(value))
        except ValueError:
            return 1
    return max(1, min(MAX_JOBS, os.cpu_count() or 1))


def helper_stages(game, specs, absent):
    """Return the stages of a first-run warm-up whose parts `absent` are not in the cache:
    lists of independent tasks, a stage after the one before it. The first task of a stage
    runs in this process while each other one runs in a helper process; the next stage starts
    once all are done. [] (compile it all here, one thing after another) when no stage has
    two tasks.

    1. The engine's roots `legal_actions` and `apply` here. At the same time, in a helper, the
       kernels that the searches call beside them, which need little of the engine (what they
       share with it, that helper compiles too): the evaluations the searches score positions
       by (`evaluation_kernels`), which every search would otherwise compile again, and the
       game's `candidate_actions` if it has one and alpha-beta plays (its move generation).
       When a game is played, the end-of-game kernels (`result`, `termination`,
       `is_terminal`) compile in the helper beside evaluations alone, here (after the engine,
       whose test for a lost game they share) when the helper has the candidates too. With
       nothing to compile beside the engine (perft, random agents), an engine expected to take
       `SPLIT_ENGINE_SECONDS` or more is split instead: `apply` (the longer half) and the
       end-of-game kernels here, `legal_actions` in the helper; a shorter one compiles here
       with the end-of-game kernels in the helper.
    2. The searches, one task per kind, each finding the engine and evaluations in the cache:
       the kind expected to take longest (`AGENT_SECONDS`) here, where nothing is loaded again
       afterwards and no helper's start-up is waited for, the others in helpers.

    Splitting the engine costs CPU time: its halves share most of their callees (the current's
    wash and loop search), which both processes compile, and a helper starts a Python and numba
    of its own (about 1.5 s). With this process compiling the longer half it still shortens
    Flow's first perft by about 1.5 s on the 2-core VM, while Tolkuchka's short engine gains
    nothing (docs/benchmarks.md, "Compile time")."""
    from agents.registry import parse_spec
    legal = ["legal_actions", "state", "int32[]"]
    apply = ["apply", "state", "int64", "state"]
    engine_absent = any(is_cached(getattr(game.kernels, name)) is False
                        for name in ("legal_actions", "apply"))
    absent_words = {p[0] for p in absent}
    by_kind = {}
    for spec in specs:
        kind = parse_spec(spec)[0]
        if kind in ("mcts", "alphabeta") and _AGENT_WORDS[kind] in absent_words:
            by_kind.setdefault(kind, []).append(spec)
    seconds = AGENT_SECONDS.get(game.name, AGENT_SECONDS["flow"])
    kinds = sorted(by_kind, key=lambda kind: -seconds[kind])  # the longest first: here
    beside = [[name, "state"] for name in evaluation_kernels(game, specs)]
    if "alphabeta" in by_kind and hasattr(game.kernels, "candidate_actions"):  # its move generation
        beside.append(["candidate_actions", "state", "int32[]"])
    beside = [k for k in beside if is_cached(getattr(game.kernels, k[0])) is False]
    # A game played to its end asks the end-of-game kernels. They share `apply`'s end test
    # (Flow's `_any_legal_step`), so they compile here with the engine when the helper also has
    # alpha-beta's candidate generation to compile; beside the evaluations alone the helper has
    # the time for them (Flow, each in a new process: the engine 6.0 s, with them 6.6 s; the
    # evaluation 3.1 s, with the candidates 5.1 s, with both 6.7 s).
    ending = []
    if _agent_kinds(specs):
        ending = [[name, "state"] for name in ("is_terminal", "termination", "result")
                  if is_cached(getattr(game.kernels, name)) is False]
    if beside and all(k[0] != "candidate_actions" for k in beside):
        beside, ending = beside + ending, []
    here = ([legal, apply] if engine_absent else []) + ending
    if beside:
        first = ([{"kernels": here}] if here else []) + [{"kernels": beside}]
    elif engine_absent and (ENGINE_SECONDS.get(game.name, ENGINE_SECONDS["flow"])
                            >= SPLIT_ENGINE_SECONDS):
        first = [{"kernels": [apply] + ending}, {"kernels": [legal]}]  # the longer half here
    elif engine_absent and ending:  # a short engine: the end-of-game kernels beside it
        first = [{"kernels": [legal, apply]}, {"kernels": ending}]
    else:
        first = [{"kernels": here}] if here else []
    stages = [stage for stage in (first, [{"specs": by_kind[k]} for k in kinds]) if stage]
    return stages if any(len(stage) > 1 for stage in stages) else []


def evaluation_kernels(game, specs):
    """Return the names of the game's evaluation kernels (`dispatch.EVALUATION_KERNELS`) that the
    searches of `specs` score positions by, in order."""
    from .dispatch import EVALUATION_KERNELS
    from .specialize import constants_of
    names = []
    for spec in specs:
        if _agent_kinds([spec]) not in (["mcts"], ["alphabeta"]):
            continue  # no search: nothing to score positions by
        for function in _search_functions(spec, game.game_id):
            evaluation = constants_of(function).get("evaluation")
            if evaluation is not None and EVALUATION_KERNELS[evaluation] not in names:
                names.append(EVALUATION_KERNELS[evaluation])
    return names


def run_helper_task(game, task, start=None):
    """Compile what one helper task names (see `helper_stages`), in this process."""
    if task.get("kernels"):
        import numpy as np
        from numba import typeof, types
        state = game.new_initial_state() if start is None else game.from_string(start)
        kinds = {"state": typeof(state.array), "int32": types.int32, "int64": types.int64,
                 "int32[]": typeof(np.zeros(1, dtype=np.int32))}
        for name, *args in task["kernels"]:
            getattr(game.kernels, name).compile(tuple(kinds[a] for a in args))
    if task.get("specs"):
        import io
        warm(game, specs=task["specs"], start=start, stream=io.StringIO(), jobs=1)


_HELPER = r"""
import gc, json, sys
import ludo_flow
from ludo_flow import cache
spec, task, start = json.loads(sys.argv[1])
game = ludo_flow.load_game(spec["game"], spec["variant"], **spec["params"])
cache.run_helper_task(game, task, start)
print(json.dumps({k: v[1] for k, v in cache.compile_counts().items() if v[1]}), flush=True)
gc.freeze()  # a shutdown that skips numba's objects: 0.3 s sooner (see cli.command)
"""


def compile_in_helpers(game, tasks, start=None, jobs=2, here=None):
    """Run each task in its own helper process, at most `jobs` at a time, each compiling into
    a private copy of this cache folder, then copy what they compiled into this folder;
    return {function: signatures compiled} over the helpers. The task `here`, if given, runs
    in this process meanwhile (its compiles are not counted in the result).

    Private folders because numba's cache is not safe for processes that write different
    signatures of one function at once: each rewrites the function's index with only its
    own entry, and both may write the same data file, so an index entry could point at
    another signature's code. The merge (`merge_cache`) runs here, alone. A helper that fails
    is ignored: this process then compiles what is still missing."""
    import subprocess
    import tempfile
    import json
    folder = cache_dir()
    top = str(package_dirs()[0].parent)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = os.pathsep.join([top] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env[JOBS_VARIABLE] = "1"
    compiled = {}
    with tempfile.TemporaryDirectory(prefix="ludo_flow-helpers-") as scratch:
        waiting = list(enumerate(tasks))
        running = []
        try:
            while waiting or running or here is not None:
                while waiting and len(running) < max(1, jobs):
                    i, task = waiting.pop(0)
                    base = Path(scratch) / str(i)
                    private = base / folder.name
                    if folder.is_dir():
                        shutil.copytree(folder, private, ignore=shutil.ignore_patterns(".probe-*"))
                    argument = json.dumps([game.spec(), task, start])
                    process = subprocess.Popen([sys.executable, "-c", _HELPER, argument],
                                               env={**env, "LUDO_FLOW_CACHE_DIR": str(base)},
                                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                               text=True)
                    running.append((process, private))
                if here is not None:  # the helpers have started: compile this process's part
                    run_helper_task(game, here, start)
                    here = None
                    continue
                process, private = running[0]
                out, _ = process.communicate()
                running.pop(0)
                if process.returncode == 0:
                    merge_cache(private, folder)
                    try:
                        for name, count in json.loads(out.strip().splitlines()[-1]).items():
                            compiled[name] = compiled.get(name, 0) + count
                    except (ValueError, IndexError):
                        pass
        finally:
            for process, _ in running:  # an interrupt: stop the helpers still compiling
                process.kill()
                process.wait()
    return compiled


def merge_cache(source, target):
    """Copy into the numba cache folder `target` every entry of the cache folder `source` that
    it lacks (index files and their data, through numba's own cache file class); return the
    number of entries copied."""
    import itertools
    import pickle

    import numba
    from numba.core.caching import IndexDataCacheFile
    source, target = Path(source), Path(target)
    copied = 0
    for index in sorted(source.rglob("*.nbi")):
        try:
            with open(index, "rb") as f:
                version = pickle.load(f)
                if version != numba.__version__:
                    continue
                stamp, overloads = pickle.loads(f.read())
        except (OSError, EOFError, pickle.UnpicklingError):
            continue
        name = index.name[:-len(".nbi")]
        folder = target / index.parent.relative_to(source)
        folder.mkdir(parents=True, exist_ok=True)
        theirs = IndexDataCacheFile(str(folder), name, stamp)
        present = theirs._load_index()
        for key, data_name in overloads.items():
            if key in present:
                continue
            try:
                data = (index.parent / data_name).read_bytes()  # copied as is, never unpickled
            except OSError:
                continue
            taken = set(present.values())
            present[key] = next(theirs._data_name(i) for i in itertools.count(1)
                                if theirs._data_name(i) not in taken)
            with theirs._open_for_write(theirs._data_path(present[key])) as f:
                f.write(data)
            theirs._save_index(present)  # after the data it points at
            copied += 1
    return copied
