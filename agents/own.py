"""Your own agent in a tournament: a `py:` spec names an importable class or factory.

    py:MODULE:NAME[,key=value,...]      e.g. py:my_agents:Greedy,depth=2

`MODULE` is imported (`importlib.import_module`) in every process that plays the agent, so a
spec works with `workers=0`, in worker processes and on Ray, and a record's `white` / `black`
rebuild the agent later with `agents.make_agent(spec)`. `NAME` is a class or a function
returning an agent, called with the settings as keyword arguments. Settings are converted:
by the class's `settings` (typed `Setting`s, as the built-in agents declare) if it has them,
else by the type of the parameter's default (`depth=2` in the signature: an int), else passed
as strings.

The agent needs `select_action(state) -> int` (never changing `state`) and `reset(seed=None)`;
`last_stats` (a dict, read after each move) is optional: its `score`, `depth`, `nodes`,
`simulations`, `time` and `pv` go into the records. In Python, `spec_of(obj)` writes the spec
of a class, a function or a `functools.partial` of either (what `Tournament` does with the
agents it is given). A class defined in `__main__` (a script or a notebook) or inside a
function cannot be imported by another process: `reachable_error` says so, and how to fix it.
"""
import functools
import importlib
import inspect
import re

from .base import AgentError, Setting, split_settings, unknown_setting

KIND = "py"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MAIN = ("__main__", "__mp_main__")
DOCS = "docs/write-your-own-agent.md"


def split_spec(spec):
    """Return (module, name, {setting: value string}) of `py:MODULE:NAME[,key=value,...]`."""
    _, _, rest = spec.strip().partition(":")
    target, *parts = rest.split(",")
    module, sep, name = target.strip().rpartition(":")
    if not sep or not all(_NAME.fullmatch(p) for p in module.split(".")) or not _NAME.fullmatch(name):
        raise AgentError(f"a py agent spec is py:MODULE:NAME[,key=value,...] (e.g. "
                         f"py:my_agents:Greedy,depth=2), got {spec.strip()[:80]!r}")
    return module, name, split_settings(f"{KIND}:{module}:{name}", parts)


def load(module, name):
    """Return the object `name` of module `module` (imported), or AgentError saying why not."""
    where = f"{KIND}:{module}:{name}"
    try:
        mod = importlib.import_module(module)
    except ImportError as err:
        hint = (" (a class defined in a script or notebook cannot be imported: move it into a "
                "module)" if module in _MAIN else " (is its folder on sys.path / PYTHONPATH?)")
        raise AgentError(f"{where}: cannot import module {module!r}: {err}{hint}") from None
    except Exception as err:  # noqa: BLE001 - the user's module failed while importing
        raise AgentError(f"{where}: importing {module!r} raised {type(err).__name__}: {err}") from None
    found = getattr(mod, name, None)
    if found is None or not callable(found):
        raise AgentError(f"{where}: module {module!r} has no class or function {name!r}")
    return found


def _typed_settings(target):
    """Return the `Setting`s a class declares (`settings`), or None."""
    settings = getattr(target, "settings", None) if inspect.isclass(target) else None
    if isinstance(settings, dict) and settings and all(isinstance(s, Setting) for s in settings.values()):
        return settings
    return None


def _convert(where, target, options):
    """Return the keyword arguments for `target` from setting strings: typed by the signature's
    defaults (int, float, bool, str); unknown names refused unless it takes **kwargs."""
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return dict(options)
    params = signature.parameters
    takes_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
    out = {}
    for key, value in options.items():
        param = params.get(key)
        if param is None or param.kind in (param.VAR_POSITIONAL, param.POSITIONAL_ONLY):
            if takes_any:
                out[key] = value
                continue
            names = {k: None for k, p in params.items() if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
            raise AgentError(unknown_setting(where, key, names))
        default = param.default
        kind = type(default) if isinstance(default, (bool, int, float)) else None
        if kind is None and param.annotation in (bool, int, float):
            kind = param.annotation
        if not isinstance(value, str) or kind is None:
            out[key] = value
        elif kind is bool:
            if value.lower() not in ("1", "0", "true", "false"):
                raise AgentError(f"{where}: setting {key} must be true or false, got {value!r}")
            out[key] = value.lower() in ("1", "true")
        else:
            try:
                out[key] = kind(value)
            except ValueError:
                raise AgentError(f"{where}: setting {key} must be {kind.__name__}, got {value!r}") from None
    return out


def make(spec, overrides=None):
    """Return a new agent from a `py:` spec (`overrides` win over the spec's settings)."""
    module, name, options = split_spec(spec)
    options.update(overrides or {})
    where = f"{KIND}:{module}:{name}"
    target = load(module, name)
    settings = _typed_settings(target)
    if settings is not None:
        unknown = sorted(set(options) - set(settings))
        if unknown:
            raise AgentError(unknown_setting(where, unknown[0], settings))
    else:
        options = _convert(where, target, options)
    try:
        agent = target(**options)
    except AgentError:
        raise
    except Exception as err:  # noqa: BLE001 - the user's constructor failed: say so in one line
        raise AgentError(f"{where}: making the agent raised {type(err).__name__}: {err}") from None
    for method in ("select_action", "reset"):
        if not callable(getattr(agent, method, None)):
            raise AgentError(f"{where}: the agent has no {method}() method (an agent needs "
                             f"select_action(state) and reset(seed=None); see {DOCS})")
    return agent


def canonical(spec):
    """Return a `py:` spec with its settings sorted (two specs of one agent compare equal)."""
    module, name, options = split_spec(spec)
    return spec_text(module, name, sorted(options.items()))


def spec_text(module, name, items):
    """Return `py:MODULE:NAME[,key=value,...]`."""
    return f"{KIND}:{module}:{name}" + "".join(f",{k}={v}" for k, v in items)


def spec_of(obj):
    """Return the `py:` spec of a class, a function or a functools.partial of one with keyword
    settings (AgentError if it cannot be written as one)."""
    settings = {}
    target = obj
    if isinstance(obj, functools.partial):
        if obj.args:
            raise AgentError(f"a partial agent factory takes keyword settings only, got the "
                             f"positional arguments {obj.args!r}")
        settings, target = dict(obj.keywords), obj.func
    if not callable(target) or not hasattr(target, "__qualname__") or not hasattr(target, "__module__"):
        raise AgentError(f"an agent is a spec string, an agent class or a factory function, "
                         f"got {obj!r}")
    module, qualname = target.__module__, target.__qualname__
    if "<" in qualname or "." in qualname:
        raise AgentError(f"agent {qualname} is defined inside a function or class: other processes "
                         f"cannot import it; define it at the top level of a module ({DOCS})")
    for key, value in settings.items():
        text = str(value)
        if "," in text or not _NAME.fullmatch(key):
            raise AgentError(f"agent {qualname}: setting {key}={text!r} cannot be written in a spec "
                             f"(no commas in values)")
    return spec_text(module, qualname, [(k, str(v)) for k, v in settings.items()])


def reachable_error(spec):
    """Return why the agent of a `py:` spec cannot be built in another process (a one-line
    message naming the ways out), or None if it can."""
    module, name, _ = split_spec(spec)
    if module in _MAIN:
        return (f"agent {name} is defined in __main__ (a script or notebook), which worker "
                f"processes and Ray cannot import: move it into a module file (e.g. my_agents.py "
                f"beside the script, then `from my_agents import {name}`), or play with workers=0")
    return None


def import_roots(specs):
    """Return the folders from which this process imports the modules of the `py:` specs among
    `specs` (what a Ray worker on this machine must have on its sys.path)."""
    import importlib.util
    import os
    roots = []
    for spec in specs:
        if spec.strip().partition(":")[0].strip().lower() != KIND:
            continue
        module = split_spec(spec)[0]
        try:
            found = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            continue
        if found is None or not found.origin or not os.path.isfile(found.origin):
            continue
        root = os.path.dirname(os.path.abspath(found.origin))
        for _ in range(module.count(".") + (os.path.basename(found.origin) == "__init__.py")):
            root = os.path.dirname(root)
        if root not in roots:
            roots.append(root)
    return roots


def describe():
    """Return the lines of `ludo-flow agents` about py specs."""
    return [f"{KIND}: your own agent, a class or factory importable as MODULE.NAME: "
            f"py:MODULE:NAME[,key=value,...] ({DOCS}).",
            "    settings: the keyword arguments of NAME (typed by its `settings` or its defaults)"]
