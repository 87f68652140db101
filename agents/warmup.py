"""The warm-up plan: what a command compiles before it plays, and how a first run shares the work.

numba compiles a kernel or a search the first time it runs and keeps the code in the cache
folder `ludo_flow.cache` chose; a later process loads it. A command about to play (perft, a
game, a tournament) first calls `warm(game, perft=..., specs=...)`: it compiles (or loads)
the game's engine, perft and the searches of the agent specs, playing a few cheap decisions,
and says so on stderr while it compiles (`ludo_flow.compiling.compiling`); a cached start is
silent. Tournament workers then load what the runner compiled instead of compiling it each.

On a first run, independent parts compile at once in helper processes (`helper_stages`,
`compile_in_helpers`), each into a private copy of the cache folder that is merged here
afterwards (`merge_cache`). The merge uses numba's cache-file class `IndexDataCacheFile` and
its private methods (`_load_index`, `_save_index`, `_data_name`, `_data_path`,
`_open_for_write`), tested with the numba versions in `TESTED_NUMBA`; with any other numba
the helpers are not used and everything compiles in this process (`compile_jobs` returns 1).
pyproject.toml pins numba below the next minor version for this reason (`numba>=0.58,<0.69`;
docs/numba.md): raise the pin and `TESTED_NUMBA` together, once the tests pass with the new numba.
"""
import os
import shutil
import sys
from pathlib import Path

import numba

from ludo_flow.cache import cache_dir, package_dirs
from ludo_flow.compiling import compiling, is_cached
from ludo_flow.dispatch import EVALUATION_KERNELS
from ludo_flow.specialize import constants_of


TESTED_NUMBA = ("0.68",)  # numba versions (major.minor) whose private cache API merge_cache is tested with

_AGENT_WORDS = {"random": "the random agent", "mcts": "the MCTS search",
                "alphabeta": "the alpha-beta search"}
# First-run wall seconds on the idle 2-core development VM (benchmarks/bench_compile_versions.py,
# docs/benchmarks.md "Compile time"): the engine and perft as scheduled (Flow's split
# between this process and a helper), and each kind of agent beyond the engine, compiled in the
# second stage (Flow's tournament 16-20 s, Tolkuchka's 13-14 s). Used only to tell a user roughly
# how long to wait, and to choose the search a first run compiles in this process (the longest);
# a game not listed is told Flow's figures.
ENGINE_SECONDS = {"flow": 6, "tolkuchka": 4}
MOVES_SECONDS = {"flow": 4, "tolkuchka": 2}  # the move generator alone (`warm(moves_only=True)`)
SPLIT_ENGINE_SECONDS = 6  # an engine expected to compile this long is split in two (helper_stages)
AGENT_SECONDS = {"flow": {"random": 1, "mcts": 6, "alphabeta": 11},
                 "tolkuchka": {"random": 1, "mcts": 5, "alphabeta": 8}}


def _agent_kinds(specs):
    """Return the distinct agent names of specs, in order, without people (who compile nothing)."""
    if not specs:  # perft plays no agent: importing agents would cost a cached start 0.1 s
        return []
    from .registry import parse_spec  # here: a perft's start would pay for importing every agent
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
        if kind == "random":  # two random agents play a whole game in one jitted loop
            functions[getattr(k, "random_game", None)] = None
        parts.append((_AGENT_WORDS[kind], agent_seconds[kind], list(functions)))
    return [(w, s, [f for f in fs if hasattr(f, "stats")]) for w, s, fs in parts]


def _search_functions(spec, game_id):
    """Return the jitted entries the agent of `spec` runs on game `game_id` (none for a spec
    that the agent refuses: it says why when it is made)."""
    from .registry import AgentError, make_agent
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
            warm_up(game, state.to_string(), specs)
    for name, count in helped.items():
        info.compiled[name] = info.compiled.get(name, 0) + count
    return info


# ---- compiling in helper processes on a first run ----------------------------------------------
JOBS_VARIABLE = "LUDO_FLOW_COMPILE_JOBS"
MAX_JOBS = 4


def compile_jobs():
    """Return how many processes a first-run warm-up may compile in at once, this one and its
    helpers: 1 (no helper) with a numba outside `TESTED_NUMBA`, whose cache the helpers'
    merge may not read; else the $LUDO_FLOW_COMPILE_JOBS variable if set (1: no helper,
    compile in this process), else the machine's cores, at most MAX_JOBS."""
    if ".".join(numba.__version__.split(".")[:2]) not in TESTED_NUMBA:
        return 1
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
    from .registry import parse_spec
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
    names = []
    for spec in specs:
        if _agent_kinds([spec]) not in (["mcts"], ["alphabeta"]):
            continue  # no search: nothing to score positions by
        for function in _search_functions(spec, game.game_id):
            evaluation = constants_of(function).get("evaluation")
            kernel = EVALUATION_KERNELS.get(evaluation)  # none for a network (eval=net:FILE)
            if kernel is not None and kernel not in names:
                names.append(kernel)
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
from ludo_flow.compiling import compile_counts
from agents import warmup
spec, task, start = json.loads(sys.argv[1])
game = ludo_flow.load_game(spec["game"], spec["variant"], **spec["params"])
warmup.run_helper_task(game, task, start)
print(json.dumps({k: v[1] for k, v in compile_counts().items() if v[1]}), flush=True)
gc.freeze()  # a shutdown that skips numba's objects (see agents.cli.command)
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
                    base.mkdir(mode=0o700)  # the helper uses only a cache folder no one else can write
                    if folder.is_dir():
                        shutil.copytree(folder, private, ignore=shutil.ignore_patterns(".probe-*"))
                        private.chmod(0o700)
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


def warm_up(game, start, specs):
    """Compile (or load from numba's cache) what the agents of `specs` run, playing a few cheap
    decisions from the position string `start`, so K workers load the compiled code instead of
    compiling it K times."""
    from ludo_flow.rng import new_rng

    from .random_agent import RandomAgent
    from .registry import AGENTS, make_agent, parse_spec
    cheap = {"depth": 1, "nodes": 0, "simulations": 4, "time": 0.0}
    for spec in specs:
        kind = AGENTS.get(parse_spec(spec)[0])
        if kind is None:  # your own agent (a py: spec): it has no cheap settings to warm with
            continue
        settings = kind.settings
        agent = make_agent(spec, **{k: v for k, v in cheap.items() if k in settings})
        state = game.from_string(start)
        try:
            for _ in range(3):  # a second decision compiles what tree reuse or a second step needs
                if state.is_terminal():
                    break
                state.apply(agent.select_action(state))
            if type(agent) is RandomAgent:  # two of them play a game in one jitted loop (agents.play)
                game.from_string(start).play_random(new_rng(0), new_rng(1))
        except Exception:  # noqa: BLE001 - a faulty agent forfeits its games; warming is best effort
            continue
        state.outcome()


def warm_for_clocks(game, start, specs):
    """Run each agent of `specs` twice with small deeper budgets (depth 3, 64 simulations) from
    `start` (a position string or a State): in a new process the first alpha-beta searches past depth 2
    take 0.2-0.3 s longer than later ones (measured on Flow), which the first moves of a
    clocked game must not pay."""
    from .registry import AGENTS, make_agent, parse_spec
    deeper = {"depth": 3, "nodes": 0, "simulations": 64, "time": 0.0}
    for spec in specs:
        settings = AGENTS[parse_spec(spec)[0]].settings
        if "time" not in settings:
            continue
        agent = make_agent(spec, **{k: v for k, v in deeper.items() if k in settings})
        state = game.from_string(start) if isinstance(start, str) else start.clone()
        try:
            for _ in range(2):
                if state.is_terminal():
                    break
                state.apply(agent.select_action(state))
        except Exception:  # noqa: BLE001 - as warm_up: best effort
            continue
