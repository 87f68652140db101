"""Names that moved when the library was split into layers: found with a DeprecationWarning, or
refused with an AttributeError that says where they went.

A module keeps a table `{old name: "new.module:new_name"}` and answers missing attributes with
`moved(__name__, table, name)` from its module-level `__getattr__`. A name whose new home is in
`agents` cannot be forwarded from `ludo_flow` (the engine never imports its agents, not even
lazily), so there the error names the new home instead; so does a name that is gone (`None`)."""
import importlib
import warnings


def moved(module, table, name, gone_why=""):
    """Return the object `name` of `module` moved to (warning that the old name is deprecated), or
    raise the AttributeError a missing attribute raises, saying where it went or why it is gone."""
    if name not in table:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    target = table[name]
    if target is None:
        raise AttributeError(f"{module}.{name} is gone{': ' + gone_why if gone_why else ''}")
    new_module, new_name = target.split(":")
    if module.split(".")[0] == "ludo_flow" and new_module.split(".")[0] == "agents":
        raise AttributeError(f"{module}.{name} moved to {new_module}.{new_name} (the engine, ludo_flow, "
                             f"no longer imports its agents): import it from there")
    warnings.warn(f"{module}.{name} moved to {new_module}.{new_name}; the old name will be removed",
                  DeprecationWarning, stacklevel=3)
    return getattr(importlib.import_module(new_module), new_name)
