"""Compile a jitted search for the one game it plays, not for every registered game.

Every function that takes a game id branches on it (`ludo_flow.dispatch`), so compiled for an
int64 id it holds every game's kernels: each game's code is typed, lowered and optimised into
every caller, and alpha-beta's `negamax`, which inlines the per-node kernels, compiled for about
twice as long as it does for one game. Compiled for a literal id instead, it holds one game:

- `for_game(function, game, **constants)` returns `function` with its first argument (the
  game id), and any argument named in `constants`, bound to a constant: a small jitted entry,
  generated per (function, game, constants), that calls `function` with the constants (a
  search binds its evaluation id this way, so it compiles only the evaluation it uses).
  numba types a constant argument as a literal (`Literal[int](0)`) and compiles `function`
  and every jitted function it passes the id to for that literal type, so each game has its
  own specialisations, each in numba's cache under its own signature.
- `game_jit` (`njit(cache=True)` with the compiler `GameCompiler`) compiles a function whose
  game id is a literal with that id as a constant in its IR: numba's dead-branch pruning then
  removes every other game's branch, in the function itself and in the dispatch functions it
  inlines, before anything of those branches is typed or compiled. (numba prunes branches on
  constants, but not on literal-typed arguments: without this step a literal id would give
  per-game signatures that still compile every game.)

Compiled for an int64 id (called from Python with a plain int), the same functions keep every
game's branch and raise ValueError for an unknown id, as before.

The generated entries are module-level functions of this module, so numba caches them (a
closure or a function passed as an argument would be compiled again in every process); each
is cached under its own name (`<module>.<function>__<game>[__<name>_<value> ...]`). Their
code is in the cache folder that `ludo_flow.cache` keys on a hash of all sources, so an edit
to the function they call is never served stale.
"""
import inspect

from numba import njit, types
from numba.core import ir, ir_utils
from numba.core.analysis import compute_cfg_from_blocks, dead_branch_prune
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import FunctionPass, register_pass
from numba.core.inline_closurecall import InlineWorker, callee_ir_validator
from numba.core.ir_utils import guard, simplify_CFG
from numba.core.postproc import PostProcessor
from numba.core.registry import CPUDispatcher
from numba.core.untyped_passes import InlineInlinables, IRProcessing

from . import registry


@register_pass(mutates_CFG=False, analysis_only=False)
class LiteralArgumentsAsConstants(FunctionPass):
    """Replace each argument of an integer-literal type by its value in the function's IR."""

    _name = "ludo_flow_literal_arguments_as_constants"

    def __init__(self):
        FunctionPass.__init__(self)

    def run_pass(self, state):
        """Return True if an argument was replaced (the IR's definitions are then rebuilt)."""
        changed = False
        for block in state.func_ir.blocks.values():
            for stmt in block.body:
                if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Arg):
                    arg_type = state.args[stmt.value.index]
                    if isinstance(arg_type, types.IntegerLiteral):
                        stmt.value = ir.Const(arg_type.literal_value, stmt.value.loc)
                        changed = True
        if changed:
            state.func_ir._definitions = ir_utils.build_definitions(state.func_ir.blocks)
        return changed


def _prune(func_ir, arg_types):
    """Remove the branches of `func_ir` that constants decide, and the blocks left unreachable."""
    func_ir._definitions = ir_utils.build_definitions(func_ir.blocks)
    dead_branch_prune(func_ir, arg_types)


@register_pass(mutates_CFG=True, analysis_only=False)
class InlineInlinablesPruned(InlineInlinables):
    """numba's InlineInlinables, pruning the branches decided by constants after each inlined
    call: a call in another game's branch of an inlined dispatch function is never inlined
    (numba's own pass inlines every call it finds first and prunes only afterwards, so it
    runs the compiler front end of every game's kernels at every such call)."""

    _name = "ludo_flow_inline_inlinables_pruned"

    def run_pass(self, state):
        """Inline the inlinable calls of reachable blocks; return True."""
        worker = InlineWorker(state.typingctx, state.targetctx, state.locals, state.pipeline,
                              state.flags, validator=callee_ir_validator)
        func_ir = state.func_ir
        _prune(func_ir, state.args)
        modified = False
        work_list = list(func_ir.blocks.items())
        while work_list:
            label, block = work_list.pop()
            if func_ir.blocks.get(label) is not block:  # pruned away
                continue
            for i, instr in enumerate(block.body):
                if (isinstance(instr, ir.Assign) and isinstance(instr.value, ir.Expr)
                        and instr.value.op == "call"):
                    if guard(self._do_work, state, work_list, block, i, instr.value, worker):
                        modified = True
                        _prune(func_ir, state.args)
                        break  # the block was split: its rest is on the work list
        if modified:  # as numba's pass: drop the jumps and blocks inlining left behind
            cfg = compute_cfg_from_blocks(func_ir.blocks)
            for dead in cfg.dead_nodes():
                del func_ir.blocks[dead]
            PostProcessor(func_ir).run()
            func_ir.blocks = simplify_CFG(func_ir.blocks)
        return True


class GameCompiler(CompilerBase):
    """numba's nopython pipeline with literal arguments made constants before branch pruning,
    and branches pruned while inlining."""

    def define_pipelines(self):
        """Return numba's default nopython pipeline with `LiteralArgumentsAsConstants` after
        the IR is built (and so before the dead-branch pruning passes) and
        `InlineInlinablesPruned` in place of numba's InlineInlinables."""
        pipeline = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pipeline.add_pass_after(LiteralArgumentsAsConstants, IRProcessing)
        pipeline.passes = [(InlineInlinablesPruned, "inline inlinable functions, pruning")
                           if p is InlineInlinables else (p, d) for p, d in pipeline.passes]
        pipeline.finalize()
        return [pipeline]


def game_jit(**options):
    """Return the decorator of a cached jitted function that takes a game id first
    (`njit(cache=True, pipeline_class=GameCompiler, **options)`)."""
    return njit(cache=True, pipeline_class=GameCompiler, **options)


_ENTRIES = {}  # (function, game id, ((name, value) of the bound constants)) -> the generated entry


def for_game(function, game, **constants):
    """Return the jitted `function` with its first argument (the game id) bound to `game` (a
    registered name or id) and each argument named in `constants` bound to its int value: it
    takes the other arguments and is compiled for that game (and those constants) only.

    A bound constant is a literal in `function` just as the game id is: every `game_jit`
    function it reaches prunes the branches it decides (e.g. a search's evaluation id, so the
    search compiles only the evaluation it uses)."""
    game_id = registry.entry_of(game).game_id  # ValueError for an unknown game
    bound = tuple(sorted((name, int(value)) for name, value in constants.items()))
    key = (function, game_id, bound)
    if key in _ENTRIES:
        return _ENTRIES[key]
    py_func = getattr(function, "py_func", function)
    params = list(inspect.signature(py_func).parameters.values())
    if not params or any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or
                         p.default is not p.empty for p in params):
        raise TypeError(f"for_game: {py_func.__qualname__} must take the game id and then only "
                        "positional arguments without defaults")
    unknown = sorted(set(constants) - {p.name for p in params[1:]})
    if unknown:
        raise TypeError(f"for_game: {py_func.__qualname__} has no argument {unknown[0]!r}")
    free = [p.name for p in params[1:] if p.name not in constants]
    if not isinstance(function, CPUDispatcher):  # NUMBA_DISABLE_JIT: a plain function
        def plain(*args):
            values = dict(zip(free, args), **constants)
            return function(game_id, *(values[p.name] for p in params[1:]))
        _ENTRIES[key] = plain
        return plain
    suffix = registry.entry_of(game_id).name + "".join(f"__{n}_{v}" for n, v in bound)
    entry_name = f"{py_func.__name__}__{suffix}"
    call = ", ".join(["_GAME"] + [f"_C_{p.name}" if p.name in constants else p.name
                                  for p in params[1:]])
    # Generated source, compiled as this file's code: numba finds a source file to cache by.
    source = f"def {entry_name}({', '.join(free)}):\n    return _FUNCTION({call})\n"
    # The entry inlines `function`'s body (a twin of it, never compiled on its own) rather than
    # call it: numba re-optimises all the code a function links to in each caller, so one more
    # level of calls costs the whole search's optimisation once more (over a second for alpha-beta).
    twin = njit(inline="always", pipeline_class=GameCompiler)(py_func)
    namespace = {"_FUNCTION": twin, "_GAME": game_id, "__name__": __name__,
                 **{f"_C_{n}": v for n, v in bound}}
    exec(compile(source, __file__, "exec"), namespace)  # noqa: S102 - source built above
    entry = namespace[entry_name]
    entry.__qualname__ = f"{py_func.__module__}.{py_func.__qualname__}__{suffix}"
    entry.__doc__ = (f"{py_func.__qualname__} for game {game_id}"
                     + "".join(f", {n} = {v}" for n, v in bound)
                     + " (ludo_flow.specialize.for_game).")
    _ENTRIES[key] = game_jit()(entry)
    return _ENTRIES[key]


def constants_of(entry):
    """Return {name: value} of the constants `for_game` bound in the jitted `entry`, the game id
    under "game"; {} for a function `for_game` did not make."""
    for (_, game_id, bound), made in list(_ENTRIES.items()):
        if made is entry:
            return {"game": game_id, **dict(bound)}
    return {}


def entries():
    """Return {qualified name: jitted entry} of the entries `for_game` has made so far."""
    return {f"{__name__}.{e.py_func.__qualname__}": e for e in _ENTRIES.values()
            if isinstance(e, CPUDispatcher)}
