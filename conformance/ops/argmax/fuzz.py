"""ArgMax / ArgMin for the fuzzer: inputs (shape, element type, axis, keepdims,
select_last_index, DirectML's index type) with tie-heavy or special-value data, smaller inputs
for shrinking, and what a found input's case file says. Imported only when fuzzing.

The plain case hypothesis shrinks towards: float32, the first axis, keepdims, the first index."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import strategies as st

from conformance.core.dtypes import DTYPES, name_of
from conformance.operator.fuzzing import DTYPE_ORDER, FuzzSupport, shapes, tensors, value_tags
from conformance.operator.interfaces import Variant
from conformance.ops.argmax.case import Case


@dataclass(frozen=True)
class FuzzInput:
    """One drawn ArgMax or ArgMin input, with every setting its case file can give."""

    op: str
    x: np.ndarray[Any, Any]
    axis: int  # may be negative
    keepdims: bool = True
    select_last_index: bool = False
    index_type: str | None = None

    @property
    def dtype_name(self) -> str:
        return name_of(self.x.dtype)

    @property
    def expect_error(self) -> bool:
        return False

    def key(self) -> str:
        digest = hashlib.sha256()
        settings = (self.op, self.dtype_name, self.x.shape, self.axis, self.keepdims, self.select_last_index,
                    self.index_type)
        digest.update(repr(settings).encode())
        digest.update(np.ascontiguousarray(self.x).tobytes())
        return digest.hexdigest()[:16]

    def case(self, case_id: str, file: Path, source: str = "topk-conformance fuzz",
             tags: tuple[str, ...] = ()) -> Case:
        return Case(id=case_id, source=source, file=file, x=self.x, axes=(self.axis,), op=self.op,
                    keepdims=self.keepdims, select_last_index=self.select_last_index, index_type=self.index_type,
                    tags=tags, input_spec={"dtype": self.dtype_name, "shape": list(self.x.shape)},
                    axis_written=self.axis)

    def __repr__(self) -> str:
        return (f"FuzzInput(op={self.op}, dtype={self.dtype_name}, shape={list(self.x.shape)}, axis={self.axis}, "
                f"keepdims={self.keepdims}, select_last_index={self.select_last_index}, "
                f"index_type={self.index_type}, x={self.x.tolist()!r})")


def inputs(op: str) -> Any:
    @st.composite
    def drawn(draw: st.DrawFn, dtypes: tuple[str, ...] = DTYPE_ORDER) -> FuzzInput:
        dtype = DTYPES[draw(st.sampled_from(dtypes))]
        shape = draw(shapes())
        rank = len(shape)
        axis = draw(st.integers(0, rank - 1))
        if draw(st.booleans()):
            axis -= rank
        keepdims = not draw(st.booleans())
        last = draw(st.booleans())
        index_type = draw(st.sampled_from([None, None, "int64", "int32", "uint64"]))
        return FuzzInput(op, draw(tensors(dtype, shape)), axis, keepdims, last, index_type)

    return drawn


def simpler(example: FuzzInput, result: Any) -> Iterator[FuzzInput]:
    """Smaller or plainer inputs than `example`: one output element's sequence alone, other
    dimensions cut to one index, elements dropped along the axis, plainer settings."""
    x, axis = example.x, example.axis % example.x.ndim
    for dim in range(x.ndim):
        if dim != axis and x.shape[dim] > 1:
            yield replace(example, x=np.ascontiguousarray(np.take(x, [0], axis=dim)))
    for dim in range(x.ndim):
        if dim != axis and x.shape[dim] == 1:
            written = axis - (dim < axis)
            yield replace(example, x=np.ascontiguousarray(np.squeeze(x, axis=dim)),
                          axis=written - (x.ndim - 1) if example.axis < 0 else written)
    n = x.shape[axis]
    for j in reversed(range(n)):
        if n > 1:
            yield replace(example, x=np.ascontiguousarray(np.delete(x, j, axis=axis)))
    plain: dict[str, Any] = {"keepdims": True, "select_last_index": False, "index_type": None}
    for name, setting in plain.items():
        if getattr(example, name) != setting:
            yield replace(example, **{name: setting})


def case_tags(example: FuzzInput, variants: Sequence[Variant]) -> list[str]:
    tags = ["fuzz", example.dtype_name]
    if example.select_last_index:
        tags.append("select_last_index")
    if example.index_type:
        tags.append("index_type")
    if example.axis < 0:
        tags.append("axis_negative")
    return tags + value_tags(example.x, example.axis)


def case_fields(example: FuzzInput) -> list[str]:
    lines = [f"    axis: {example.axis}"]
    if not example.keepdims:
        lines.append("    keepdims: false")
    if example.select_last_index:
        lines.append("    select_last_index: true")
    if example.index_type is not None:
        lines.append(f"    index_type: {example.index_type}")
    return lines


def support(op: str) -> FuzzSupport:
    return FuzzSupport(inputs=lambda dtypes: inputs(op)(dtypes), simpler=simpler, case_tags=case_tags,
                       case_fields=case_fields)
