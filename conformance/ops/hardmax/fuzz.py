"""Hardmax for the fuzzer: inputs (shape, float type, an axis or none) with tie-heavy or
special-value data, smaller inputs for shrinking, and what a found input's case file says.
Imported only when fuzzing.

The plain case hypothesis shrinks towards: float32, the first axis."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import strategies as st

from conformance.core.dtypes import DTYPES, name_of
from conformance.operator.fuzzing import FuzzSupport, shapes, tensors, value_tags
from conformance.operator.interfaces import Variant
from conformance.ops.hardmax.case import Case

FLOAT_ORDER = ("float32", "float16", "float64", "bfloat16")  # Hardmax's types, the simplest first


@dataclass(frozen=True)
class FuzzInput:
    """One drawn Hardmax input, with every setting its case file can give."""

    x: np.ndarray[Any, Any]
    axis: int | None  # may be negative; None: each opset's default

    @property
    def dtype_name(self) -> str:
        return name_of(self.x.dtype)

    @property
    def expect_error(self) -> bool:
        return False

    def key(self) -> str:
        digest = hashlib.sha256()
        digest.update(repr((self.dtype_name, self.x.shape, self.axis)).encode())
        digest.update(np.ascontiguousarray(self.x).tobytes())
        return digest.hexdigest()[:16]

    def case(self, case_id: str, file: Path, source: str = "topk-conformance fuzz",
             tags: tuple[str, ...] = ()) -> Case:
        return Case(id=case_id, source=source, file=file, x=self.x, axis_written=self.axis, tags=tags,
                    input_spec={"dtype": self.dtype_name, "shape": list(self.x.shape)})

    def __repr__(self) -> str:
        return (f"FuzzInput(dtype={self.dtype_name}, shape={list(self.x.shape)}, axis={self.axis}, "
                f"x={self.x.tolist()!r})")


@st.composite
def inputs(draw: st.DrawFn, dtypes: tuple[str, ...] = FLOAT_ORDER) -> FuzzInput:
    floats = tuple(name for name in dtypes if name in FLOAT_ORDER) or FLOAT_ORDER
    dtype = DTYPES[draw(st.sampled_from(floats))]
    shape = draw(shapes())
    rank = len(shape)
    axis: int | None = draw(st.integers(0, rank - 1))
    if axis is not None and draw(st.booleans()):
        axis -= rank
    if rank >= 2 and draw(st.integers(0, 9)) == 9:
        axis = None
    return FuzzInput(draw(tensors(dtype, shape)), axis)


def simpler(example: FuzzInput, result: Any) -> Iterator[FuzzInput]:
    """Smaller inputs than `example`: other dimensions cut to one index, then elements
    dropped along the axis."""
    x = example.x
    axis = (example.axis if example.axis is not None else -1) % x.ndim
    for dim in range(x.ndim):
        if dim != axis and x.shape[dim] > 1:
            yield replace(example, x=np.ascontiguousarray(np.take(x, [0], axis=dim)))
    n = x.shape[axis]
    for j in reversed(range(n)):
        if n > 1:
            yield replace(example, x=np.ascontiguousarray(np.delete(x, j, axis=axis)))


def case_tags(example: FuzzInput, variants: Sequence[Variant]) -> list[str]:
    tags = ["fuzz", example.dtype_name]
    if example.axis is not None and example.axis < 0:
        tags.append("axis_negative")
    return tags + value_tags(example.x, example.axis if example.axis is not None else -1)


def case_fields(example: FuzzInput) -> list[str]:
    return [f"    axis: {example.axis}"] if example.axis is not None else []


def support() -> FuzzSupport:
    return FuzzSupport(inputs=lambda dtypes: inputs(dtypes), simpler=simpler, case_tags=case_tags,
                       case_fields=case_fields)
