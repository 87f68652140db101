"""ludo_flow.memory: unowned views (same memory, no reference count) and the prefetch hint."""
import numpy as np
from numba import njit

from ludo_flow.memory import prefetch_row, unowned


@njit(cache=True)
def _write_through_view(a, row, value):
    view = unowned(a)
    view[row, 1] = value
    return view.shape[0], view.shape[1], view[row].sum()


def test_unowned_view_shares_memory_shape_and_dtype():
    a = np.arange(12, dtype=np.uint64).reshape(4, 3)
    rows, cols, row_sum = _write_through_view(a, 2, np.uint64(100))
    assert (rows, cols) == (4, 3)
    assert a[2, 1] == 100 and row_sum == 6 + 100 + 8
    assert a.dtype == np.uint64


@njit(cache=True)
def _prefetch_then_read(table, row):
    prefetch_row(table, row)
    return table[row, 1]


def test_prefetch_changes_nothing():
    table = np.arange(40, dtype=np.uint64).reshape(10, 4)
    before = table.copy()
    assert _prefetch_then_read(table, 3) == 13
    assert np.array_equal(table, before)
