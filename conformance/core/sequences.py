"""Views of a tensor as its sequences along one axis: shape (sequences, length)."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided


def as_rows(x: np.ndarray[Any, Any], axis: int) -> np.ndarray[Any, Any]:
    """Move `axis` last and flatten the rest: one row per sequence (a copy where the layout
    needs one; `rows_view` never copies)."""
    moved = np.moveaxis(x, axis, -1)
    count = int(np.prod(moved.shape[:-1], dtype=np.int64))
    return moved.reshape(count, moved.shape[-1])


def from_rows(rows: np.ndarray[Any, Any], shape: tuple[int, ...], axis: int) -> np.ndarray[Any, Any]:
    """Inverse of `as_rows` for a tensor of `shape` (axis dimension already replaced)."""
    moved_shape = (*(d for i, d in enumerate(shape) if i != axis), shape[axis])
    return np.moveaxis(rows.reshape(moved_shape), -1, axis)


def sequence_count(shape: tuple[int, ...], axis: int) -> int:
    return int(np.prod([d for i, d in enumerate(shape) if i != axis], dtype=np.int64))


def rows_view(x: np.ndarray[Any, Any], axis: int) -> np.ndarray[Any, Any] | None:
    """The (sequences, length) rows of x as a read-only view of its memory, or None where
    x's layout has no such view (the sequences' starts are not evenly spaced)."""
    moved = np.moveaxis(x, axis, -1)
    leading = [(d, s) for d, s in zip(moved.shape[:-1], moved.strides[:-1], strict=True) if d != 1]
    for (_, outer), (size, inner) in pairwise(leading):
        if outer != inner * size:
            return None
    step = leading[-1][1] if leading else 0
    count = sequence_count(x.shape, axis)
    return as_strided(moved, shape=(count, moved.shape[-1]), strides=(step, moved.strides[-1]),
                      writeable=False)


def row_block(x: np.ndarray[Any, Any], axis: int, start: int, stop: int) -> np.ndarray[Any, Any]:
    """Sequences start..stop-1 of x as rows: a view where x's layout allows, else a copy of
    those sequences only."""
    view = rows_view(x, axis)
    if view is not None:
        return view[start:stop]
    moved = np.moveaxis(x, axis, -1)
    picked: np.ndarray[Any, Any] = moved[np.unravel_index(np.arange(start, stop), moved.shape[:-1])]
    return picked


def pick_rows(x: np.ndarray[Any, Any], axis: int, rows: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Sequences `rows` (numbers as `as_rows` gives them) of x, as rows: a copy of those
    sequences only."""
    view = rows_view(x, axis)
    if view is not None:
        picked: np.ndarray[Any, Any] = view[rows]
        return picked
    moved = np.moveaxis(x, axis, -1)
    picked = moved[np.unravel_index(rows, moved.shape[:-1])]
    return picked


def gather_rows(x: np.ndarray[Any, Any], axis: int, idx_rows: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """x's elements at `idx_rows` (sequences, k), per sequence, as rows; reads only those
    elements of x (no copy of x in any layout)."""
    view = rows_view(x, axis)
    if view is not None and view.flags.c_contiguous:
        # One flat position per element: several times faster than take_along_axis's pairs.
        offsets = np.arange(view.shape[0], dtype=np.int64)[:, None] * view.shape[1]
        flat: np.ndarray[Any, Any] = view.ravel()[idx_rows + offsets]
        return flat
    moved = np.moveaxis(x, axis, -1)
    picked = np.take_along_axis(moved, idx_rows.reshape(*moved.shape[:-1], idx_rows.shape[1]), axis=-1)
    return picked.reshape(idx_rows.shape)


def sequence_position(row: int, shape: tuple[int, ...], axis: int) -> list[int]:
    """The index of row `row` in the dimensions other than `axis`."""
    others = [d for i, d in enumerate(shape) if i != axis]
    return [int(i) for i in np.unravel_index(row, others)] if others else []


def output_shape(shape: tuple[int, ...], axis: int, k: int) -> tuple[int, ...]:
    return tuple(k if i == axis else d for i, d in enumerate(shape))
