"""Views of a tensor as its sequences along one axis: shape (sequences, length)."""

from __future__ import annotations

from typing import Any

import numpy as np


def as_rows(x: np.ndarray[Any, Any], axis: int) -> np.ndarray[Any, Any]:
    """Move `axis` last and flatten the rest: one row per sequence."""
    moved = np.moveaxis(x, axis, -1)
    count = int(np.prod(moved.shape[:-1], dtype=np.int64))
    return moved.reshape(count, moved.shape[-1])


def from_rows(rows: np.ndarray[Any, Any], shape: tuple[int, ...], axis: int) -> np.ndarray[Any, Any]:
    """Inverse of `as_rows` for a tensor of `shape` (axis dimension already replaced)."""
    moved_shape = (*(d for i, d in enumerate(shape) if i != axis), shape[axis])
    return np.moveaxis(rows.reshape(moved_shape), -1, axis)


def sequence_position(row: int, shape: tuple[int, ...], axis: int) -> list[int]:
    """The index of row `row` in the dimensions other than `axis`."""
    others = [d for i, d in enumerate(shape) if i != axis]
    return [int(i) for i in np.unravel_index(row, others)] if others else []


def output_shape(shape: tuple[int, ...], axis: int, k: int) -> tuple[int, ...]:
    return tuple(k if i == axis else d for i, d in enumerate(shape))
