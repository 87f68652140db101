"""The layers: the engine (`ludo_flow`) never imports the agents, and no modules import each other.

Every import is read from the sources (module level and inside functions alike, and
`importlib.import_module` / `__import__` calls with a constant name), so a lazy import counts.
"""
import ast
import importlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("ludo_flow", "agents")


def module_name(path):
    """Return the dotted module name of a source file under REPO."""
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_names(path):
    """Return the absolute module names a source file imports (anywhere in it)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module_name(path)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module
            found += [f"{prefix}.{alias.name}" for alias in node.names]  # a module, or a name in one
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and getattr(node.func, "attr", getattr(node.func, "id", None)) in ("import_module",
                                                                                 "__import__")):
            found.append(node.args[0].value)
    return found


def sources(package):
    """Return the .py files of a package."""
    return sorted((REPO / package).rglob("*.py"))


def test_the_engine_never_imports_the_agents():
    offenders = [(str(path.relative_to(REPO)), name) for path in sources("ludo_flow")
                 for name in imported_names(path) if name == "agents" or name.startswith("agents.")]
    assert offenders == []


def test_the_reader_sees_lazy_and_relative_imports(tmp_path, monkeypatch):
    # the test above could not fail if the reader missed these forms
    monkeypatch.setattr(__import__(__name__), "REPO", tmp_path)
    (tmp_path / "ludo_flow").mkdir()
    path = tmp_path / "ludo_flow" / "x.py"
    path.write_text("def f():\n    from agents import mcts\n    import agents.cli\n"
                    "    importlib.import_module('agents.warmup')\nfrom . import cache\n")
    assert set(imported_names(path)) == {"agents.mcts", "agents.cli", "agents.warmup", "ludo_flow.cache"}


def test_no_two_modules_import_each_other():
    modules = {module_name(p): p for package in PACKAGES for p in sources(package)}
    graph = {}
    for name, path in modules.items():
        targets = set()
        for imported in imported_names(path):
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported and imported != name and not (path.name == "__init__.py"
                                                       and imported.startswith(name + ".")):
                targets.add(imported)
        graph[name] = targets
    # a package's __init__ that re-exports its own modules is its face, not a circle
    circles = []
    state = {}

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == "open":
                circles.append(stack[stack.index(target):] + [target])
            elif target not in state:
                visit(target, stack)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    assert circles == []
    # the other half of that face: a module that imports its own subpackage (whose __init__
    # imports the module) would be a circle the rule above cannot see; the two top-level packages
    # are every module's way in and stay importable from anywhere
    upward = sorted((name, target) for name, targets in graph.items() for target in targets
                    if modules[name].name != "__init__.py" and name.startswith(target + ".")
                    and target not in PACKAGES)
    assert upward == []


MAX_PARAMETERS = 10  # a function wanting more takes a named bundle (a NamedTuple) instead


def parameter_counts(path):
    """Return [(parameters, line, name)] of every function and method in a source file (a
    method's `self` or `cls` not counted; *args and **kwargs count one each)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    counts = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = node.args
            names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
            n = len(names) + (a.vararg is not None) + (a.kwarg is not None)
            if names and names[0] in ("self", "cls"):
                n -= 1
            counts.append((n, node.lineno, getattr(node, "name", "<lambda>")))
    return counts


def test_no_function_takes_more_than_ten_parameters():
    too_many = [f"{path.relative_to(REPO)}:{line} {name} takes {n}"
                for package in PACKAGES for path in sources(package)
                for n, line, name in parameter_counts(path) if n > MAX_PARAMETERS]
    assert not too_many, too_many


def test_the_parameter_count_sees_every_kind_of_parameter(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("def f(a, /, b, *c, d, **e): pass\n"
                      "class K:\n    def m(self, x): pass\n"
                      "g = lambda p, q: p\n")
    assert sorted(parameter_counts(source)) == [(1, 3, "m"), (2, 4, "<lambda>"), (5, 1, "f")]


def module_level_imports(path):
    """Return the module names a source file imports outside any function or class."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            found.append(node.module)
    return found


def test_scikit_learn_is_imported_by_the_trainer_only_and_lazily():
    # the `learn` extra is optional: the engine and every other module must import without it
    def is_sklearn(name):
        return name == "sklearn" or name.startswith("sklearn.")

    users = sorted(str(path.relative_to(REPO)) for package in PACKAGES for path in sources(package)
                   if any(is_sklearn(name) for name in imported_names(path)))
    assert users == ["agents/train.py"]
    assert not any(is_sklearn(name) for name in module_level_imports(REPO / "agents" / "train.py"))


MOVED_TABLES = ("ludo_flow.cache", "ludo_flow.adapters.openspiel", "agents.tournament", "agents.mcts",
                "agents.records")


@pytest.mark.parametrize("module_name", MOVED_TABLES)
def test_moved_names_warn_and_forward_or_say_where_they_went(module_name):
    if module_name.endswith("openspiel"):
        pytest.importorskip("pyspiel")
    module = importlib.import_module(module_name)
    assert module._MOVED
    for name, target in module._MOVED.items():
        assert name not in vars(module), name  # answered by __getattr__ only
        if target is None:
            with pytest.raises(AttributeError, match=f"{name} is gone: "):
                getattr(module, name)
            continue
        new_module, new_name = target.split(":")
        expected = getattr(importlib.import_module(new_module), new_name)
        if module_name.startswith("ludo_flow") and new_module.startswith("agents"):
            with pytest.raises(AttributeError, match=f"moved to {new_module}.{new_name}"):
                getattr(module, name)
        else:
            with pytest.warns(DeprecationWarning, match=f"moved to {new_module}.{new_name}"):
                assert getattr(module, name) is expected
    with pytest.raises(AttributeError, match="has no attribute"):
        module.no_such_name  # noqa: B018
