"""Exhaustive minimax with memory over the reference engine: the independent check of df-pn.

Plain Python over `ludo_flow.flow.reference` (no kernels, no proof numbers): every position
reachable from a root under `max_turns` gets its exact value, memoised by the certificate's
position key. Only for boards and turn limits small enough to enumerate. `forced_win` asks
one side's question alone (a win, or not), so it stops at the first winning move or refuting
reply and reaches deeper.
"""
import sys

from .certificate import position_key


def _deep(function, *args):
    """Return function(*args) with room for a recursion as deep as a game's decisions."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20000))
    try:
        return function(*args)
    finally:
        sys.setrecursionlimit(limit)


def minimax_table(root):
    """Return {position key: (White's value +1 / 0 / -1, actions from the root)} for every
    position reachable from the reference position `root`, finished ones included."""
    table = {}
    _deep(_value, root, (), table)
    return table


def forced_win(root, side):
    """Return (wins, positions): wins is True if `side` (0 White, 1 Black) forces a win from
    the reference position `root` under its `max_turns`; positions, how many were memoised.
    An AND/OR minimax: the side's moves are tried until one wins, the opponent's replies
    until one holds."""
    memo = {}
    won = ("white", "black")[side]
    return _deep(_wins, root, side, won, memo), len(memo)


def _wins(position, side, won, memo):
    """Return True if `side` forces the result `won` from `position`, filling `memo`."""
    key = position_key(position)
    known = memo.get(key)
    if known is not None:
        return known
    if position.is_terminal():
        value = position.result() == won
    elif position.current_player() == side:
        value = any(_wins(position.apply(a), side, won, memo) for a in position.legal_actions())
    else:
        value = all(_wins(position.apply(a), side, won, memo) for a in position.legal_actions())
    memo[key] = value
    return value


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
