"""TopK for the fuzzer: its inputs (shape, element type, axis, K, direction, sort, stable,
index type) with tie-heavy or special-value data, smaller inputs for shrinking, and what a
found input's case file says. Imported only when fuzzing (hypothesis is the `test` extra's).

The plain case hypothesis shrinks towards: float32, K = 1, the first axis, largest,
sort=value, no `stable`, the dialect's index type; K = 0 and K > n are the far end of a range."""

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
from conformance.ops.topk.case import Case


@dataclass(frozen=True)
class FuzzInput:
    """One drawn TopK input, with every setting a case file can give."""

    x: np.ndarray[Any, Any]
    axis: int  # may be negative
    k: int
    largest: bool = True
    sort: str = "value"
    stable: bool | None = None
    index_type: str | None = None

    @property
    def dtype_name(self) -> str:
        return name_of(self.x.dtype)

    @property
    def n(self) -> int:
        return int(self.x.shape[self.axis % self.x.ndim])

    @property
    def expect_error(self) -> bool:
        """K outside [0, n]: every dialect must refuse it (a case says expect_error)."""
        return not 0 <= self.k <= self.n

    def key(self) -> str:
        """Equal keys, the same input bit for bit and the same settings."""
        digest = hashlib.sha256()
        settings = (self.dtype_name, self.x.shape, self.axis, self.k, self.largest, self.sort,
                    self.stable, self.index_type)
        digest.update(repr(settings).encode())
        digest.update(np.ascontiguousarray(self.x).tobytes())
        return digest.hexdigest()[:16]

    def case(self, case_id: str, file: Path, source: str = "topk-conformance fuzz",
             tags: tuple[str, ...] = ()) -> Case:
        return Case(
            id=case_id, source=source, file=file, x=self.x, axis=self.axis, k=self.k,
            largest=self.largest, sort=self.sort,  # type: ignore[arg-type]
            stable=self.stable, index_type=self.index_type, tags=tags,
            expect_error=self.expect_error,
            input_spec={"dtype": self.dtype_name, "shape": list(self.x.shape)},
        )

    def __repr__(self) -> str:
        return (f"FuzzInput(dtype={self.dtype_name}, shape={list(self.x.shape)}, axis={self.axis}, k={self.k}, "
                f"largest={self.largest}, sort={self.sort}, stable={self.stable}, "
                f"index_type={self.index_type}, x={self.x.tolist()!r})")


@st.composite
def fuzz_inputs(draw: st.DrawFn, dtypes: tuple[str, ...] = DTYPE_ORDER) -> FuzzInput:
    dtype = DTYPES[draw(st.sampled_from(dtypes))]
    shape = draw(shapes())
    rank = len(shape)
    axis = draw(st.integers(0, rank - 1))
    if draw(st.booleans()):
        axis -= rank  # the same axis, counted from the back
    n = shape[axis]
    odd_k = draw(st.integers(0, 29))
    if odd_k == 29:
        k = n + 1  # above the axis: an error everywhere
    elif odd_k == 28 or n == 0:
        k = 0
    else:
        k = 1 + draw(st.integers(0, n - 1))
    largest = not draw(st.booleans())
    sort = draw(st.sampled_from(["value", "value", "value", "index", "none"]))
    stable = draw(st.sampled_from([None, True, False]))
    index_type = draw(st.sampled_from([None, None, "int64", "int32"]))
    x = draw(tensors(dtype, shape))
    return FuzzInput(x, axis, k, largest, sort, stable, index_type)


def _with(example: FuzzInput, x: np.ndarray[Any, Any], axis: int, **changes: Any) -> FuzzInput:
    """`example` with input `x` and the axis at dimension `axis`, written negative if the
    example's was; K kept in its relation to n (above it stays above, otherwise at most n)."""
    n = x.shape[axis]
    k = changes.pop("k", example.k)
    k = n + 1 if example.expect_error else min(k, n)
    written = axis - x.ndim if example.axis < 0 else axis
    return replace(example, x=np.ascontiguousarray(x), axis=written, k=k, **changes)


def simpler(example: FuzzInput, result: Any) -> Iterator[FuzzInput]:
    """Smaller or plainer inputs than `example`, the likeliest first; `result` is the target
    variant's on it (its discrepancy names the sequence where it shows)."""
    x, axis = example.x, example.axis % example.x.ndim
    others = [d for d in range(x.ndim) if d != axis]
    sequence = (result.discrepancy or {}).get("sequence")
    at = [int(i) for i in sequence] if isinstance(sequence, list) and len(sequence) == len(others) else []
    if x.ndim > 1 and at and x.size:
        index: list[Any] = list(at)
        index.insert(axis, slice(None))
        yield _with(example, x[tuple(index)], 0)  # the sequence alone, 1-D
    for position, dim in enumerate(others):
        if x.shape[dim] > 1:
            keep = at[position] if at else 0
            yield _with(example, np.take(x, [keep], axis=dim), axis)
    for dim in others:
        if x.shape[dim] == 1:
            yield _with(example, np.squeeze(x, axis=dim), axis - (dim < axis))
    n = x.shape[axis]
    for j in reversed(range(n)):
        if n > 1:
            yield _with(example, np.delete(x, j, axis=axis), axis)
    if 1 < example.k <= n:
        yield _with(example, x, axis, k=example.k - 1)
    plain: dict[str, Any] = {"sort": "value", "stable": None, "index_type": None, "largest": True}
    for name, setting in plain.items():
        if getattr(example, name) != setting:
            yield _with(example, x, axis, **{name: setting})
    flat = x.reshape(-1)
    for number in (0, 1):
        simple = np.array(number).astype(x.dtype)
        bits = np.dtype(f"u{x.dtype.itemsize}")
        for i in range(flat.size):
            if flat[i : i + 1].view(bits)[0] != simple.reshape(1).view(bits)[0]:
                changed = flat.copy()
                changed[i] = simple
                yield _with(example, changed.reshape(x.shape), axis)


def case_tags(example: FuzzInput, variants: Sequence[Variant]) -> list[str]:
    """The tags (docs/tags.md) that say what the input holds; `k_type` where it was found
    through a K-type variant, so that `run` gives the case those variants too."""
    tags = ["fuzz", example.dtype_name]
    if any(getattr(variant, "k_type", "") for variant in variants):
        tags.append("k_type")
    if not example.largest:
        tags.append("smallest")
    if example.x.size == 0:
        tags.append("empty")
    if example.k == 0:
        tags.append("k_zero")
    elif example.expect_error:
        tags.append("k_too_large")
    elif example.k == example.n and example.n:
        tags.append("k_equals_n")
    if example.axis < 0:
        tags.append("axis_negative")
    if example.sort != "value":
        tags.append(f"sort_{example.sort}")
    if example.index_type:
        tags.append("index_type")
    return tags + [tag for tag in value_tags(example.x, example.axis) if tag != "empty"]


def case_fields(example: FuzzInput) -> list[str]:
    """TopK's fields of the case file a found input is written as."""
    lines = [f"    axis: {example.axis}", f"    k: {example.k}", f"    largest: {str(example.largest).lower()}"]
    if example.sort != "value":
        lines.append(f"    sort: {example.sort}")
    if example.stable is not None:
        lines.append(f"    stable: {str(example.stable).lower()}")
    if example.index_type is not None:
        lines.append(f"    index_type: {example.index_type}")
    return lines


SUPPORT = FuzzSupport(inputs=fuzz_inputs, simpler=simpler, case_tags=case_tags, case_fields=case_fields)
