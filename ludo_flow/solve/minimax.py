"""Exhaustive minimax with memory over the reference engine: the independent check of df-pn.

Plain Python over `ludo_flow.flow.reference` (no kernels, no proof numbers): every position
reachable from a root under `max_turns` gets its exact value, memoised by the certificate's
position key. Only for boards and turn limits small enough to enumerate.
"""
import sys

from .certificate import position_key


def minimax_table(root):
    """Return {position key: (White's value +1 / 0 / -1, actions from the root)} for every
    position reachable from the reference position `root`, finished ones included."""
    table = {}
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20000))
    try:
        _value(root, (), table)
    finally:
        sys.setrecursionlimit(limit)
    return table


def _value(position, path, table):
    """Return White's value of `position`, filling `table`."""
    key = position_key(position)
    known = table.get(key)
    if known is not None:
        return known[0]
    if position.is_terminal():
        value = int(position.returns())
    else:
        values = [_value(position.apply(a), path + (a,), table) for a in position.legal_actions()]
        value = max(values) if position.current_player() == 0 else min(values)
    table[key] = (value, path)
    return value


def value_for_mover(white_value, mover):
    """Return 'win', 'loss' or 'draw' for the side to move (0 White, 1 Black)."""
    v = white_value if mover == 0 else -white_value
    return "win" if v > 0 else "loss" if v < 0 else "draw"
