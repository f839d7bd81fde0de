"""A Hardmax case, as loaded and checked from a case file, and the rows every dialect chooses
in: the input regrouped as one row per choice (the row axes flattened in the tensor's own
dimension order), and the DirectML answer for a given set of row axes (a 1 at the first
maximum of each row, NaN above every number, every other element 0)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from conformance.core.keys import best_position, better_key, nan_mask


@dataclass(frozen=True)
class Case:
    id: str
    source: str
    file: Path
    x: np.ndarray[Any, Any]
    axis_written: int | list[int] | None = None  # the `axis` field; None: each dialect's default
    op: str = "hardmax"
    tags: tuple[str, ...] = ()
    expected: np.ndarray[Any, Any] | None = field(default=None, compare=False)  # for own_rows
    expected_any: tuple[np.ndarray[Any, Any], ...] = field(default=(), compare=False)
    expect_error: bool = False
    graphs: tuple[str, ...] = ()
    repeat: int = 1
    input_spec: dict[str, Any] = field(default_factory=dict, compare=False)
    attributes: str = "all"  # "minimal": ONNX graphs leave out attributes at their default

    @property
    def dtype_name(self) -> str:
        return str(self.input_spec.get("dtype", self.x.dtype))

    @property
    def axes_written(self) -> tuple[int, ...]:
        """`axis` as a tuple (as written: negative counts from the back); () where absent."""
        written = self.axis_written
        if written is None:
            return ()
        return tuple(written) if isinstance(written, list) else (written,)

    @property
    def axes_in_range(self) -> bool:
        rank = self.x.ndim
        return all(-rank <= axis < rank for axis in self.axes_written)

    @property
    def own_axes(self) -> tuple[int, ...]:
        """The case's own row axes, counted from the front, as written: `axis` along one
        axis (ONNX Hardmax-13, DirectML HARDMAX1), a list flattened (HARDMAX1's Axes); absent,
        the last axis (Hardmax-13's default). Only for axes in range."""
        written = self.axes_written or (-1,)
        return tuple(axis % self.x.ndim for axis in written)

    @property
    def own_rows(self) -> tuple[int, ...]:
        return tuple(sorted(self.own_axes))

    @property
    def axis_index(self) -> int:
        return self.own_rows[0] if self.axes_in_range else 0


def canonical(shape: tuple[int, ...], row_axes: tuple[int, ...]) -> tuple[int, ...]:
    """Row axes as a partition of the elements: axes of size 1 neither split nor join rows,
    so two sets of row axes that differ only in those choose in the same rows."""
    return tuple(axis for axis in sorted(row_axes) if shape[axis] != 1)


def kept_shape(shape: tuple[int, ...], row_axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(size for d, size in enumerate(shape) if d not in row_axes)


def rows(x: np.ndarray[Any, Any], row_axes: tuple[int, ...]) -> np.ndarray[Any, Any]:
    """x as one row per choice: the other axes in order, then the row axes flattened in the
    tensor's own dimension order (`row_axes` sorted)."""
    kept = [d for d in range(x.ndim) if d not in row_axes]
    moved = np.transpose(x, kept + sorted(row_axes))
    count = math.prod(x.shape[d] for d in kept)
    width = math.prod(x.shape[d] for d in row_axes)
    return np.ascontiguousarray(moved).reshape(count, width)


def unrows(regrouped: np.ndarray[Any, Any], shape: tuple[int, ...], row_axes: tuple[int, ...]) -> np.ndarray[Any, Any]:
    """rows() undone: the rows back in a tensor of `shape`."""
    kept = [d for d in range(len(shape)) if d not in row_axes]
    order = kept + sorted(row_axes)
    moved = regrouped.reshape([shape[d] for d in order])
    return np.ascontiguousarray(np.transpose(moved, np.argsort(order)))


def nan_rows(x: np.ndarray[Any, Any], row_axes: tuple[int, ...]) -> np.ndarray[Any, Any]:
    mask: np.ndarray[Any, Any] = np.asarray(nan_mask(rows(x, row_axes)).any(axis=1), dtype=bool)
    return mask


def first_maximum(regrouped: np.ndarray[Any, Any], nan_high: bool = True) -> np.ndarray[Any, Any]:
    """Per row, the position of the first maximum (NaN above or below every number); rows
    must not be empty."""
    return best_position(better_key(regrouped.copy(), True, nan_high))


def directml_answer(x: np.ndarray[Any, Any], row_axes: tuple[int, ...]) -> np.ndarray[Any, Any]:
    """The DirectML answer for these rows: 1 at the first maximum of each (NaN above every
    number), 0 elsewhere, in x's type and shape."""
    regrouped = rows(x, row_axes)
    answer = np.zeros(regrouped.shape, dtype=x.dtype)
    if regrouped.size:
        answer[np.arange(regrouped.shape[0]), first_maximum(regrouped)] = 1
    return unrows(answer, x.shape, row_axes)
