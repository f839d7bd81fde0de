"""An ArgMax or ArgMin case, as loaded and checked from a case file, and its DirectML answer:
the first index of the extreme value (the last with select_last_index), counted over the
reduced axes flattened in the tensor's dimension order, with NaN above every number."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
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
    axes: tuple[int, ...]  # as written (negative counts from the back); one for every dialect but DirectML
    op: str = "argmax"  # argmax | argmin
    keepdims: bool = True
    select_last_index: bool = False
    index_type: str | None = None  # DirectML's output type; None: its default (uint32)
    tags: tuple[str, ...] = ()
    expected: np.ndarray[Any, Any] | None = field(default=None, compare=False)  # indices
    expected_any: tuple[np.ndarray[Any, Any], ...] = field(default=(), compare=False)
    expect_error: bool = False
    graphs: tuple[str, ...] = ()
    repeat: int = 1
    input_spec: dict[str, Any] = field(default_factory=dict, compare=False)
    axis_written: Any = field(default=None, compare=False)  # the `axis` field: an int, a list, None (absent)
    attributes: str = "all"  # all | minimal: which attributes its ONNX graphs write (section 7)

    @property
    def largest(self) -> bool:
        return self.op == "argmax"

    @property
    def reduced(self) -> tuple[int, ...]:
        """The reduced axes, counted from the front, in the order given."""
        return tuple(axis % self.x.ndim for axis in self.axes)

    @property
    def axis_index(self) -> int:
        return self.reduced[0]

    @property
    def n(self) -> int:
        """Elements each output index chooses among."""
        return math.prod(self.x.shape[axis] for axis in self.reduced)

    @property
    def dtype_name(self) -> str:
        return str(self.input_spec.get("dtype", self.x.dtype))

    def output_shape(self, keepdims: bool) -> tuple[int, ...]:
        if keepdims:
            return tuple(1 if d in self.reduced else size for d, size in enumerate(self.x.shape))
        return tuple(size for d, size in enumerate(self.x.shape) if d not in self.reduced)

    def rows(self) -> np.ndarray[Any, Any]:
        """The input as one row per output element: the kept axes in order, then the reduced
        axes flattened in the tensor's own dimension order, whatever order `axis` lists them in
        (DirectML counts so: Axes {2, 0} indexes as {0, 2} does)."""
        kept = [d for d in range(self.x.ndim) if d not in self.reduced]
        moved = np.transpose(self.x, kept + sorted(self.reduced))
        count = math.prod(self.x.shape[d] for d in kept)
        return np.ascontiguousarray(moved).reshape(count, self.n)

    @cached_property
    def nan_rows(self) -> np.ndarray[Any, Any]:
        rows = self.rows()
        mask: np.ndarray[Any, Any] = np.asarray(nan_mask(rows).any(axis=1), dtype=bool)
        return mask

    @cached_property
    def directml_answer(self) -> np.ndarray[Any, Any]:
        """The DirectML answer as a flat int64 row per output element (NaN above every number,
        for inputs DirectML defines nothing for)."""
        rows = self.rows()
        if rows.shape[1] == 0:
            return np.zeros(rows.shape[0], dtype=np.int64)
        return best_position(better_key(rows.copy(), self.largest), self.select_last_index)
