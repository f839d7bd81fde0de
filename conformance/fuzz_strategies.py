"""Hypothesis strategies for `topk-conformance fuzz`: TopK inputs (shape, element type, axis,
K, direction, sort, stable, index type) with tie-heavy or special-value data.

Every draw is arranged so that what hypothesis shrinks towards is the plain case: integers
shrink towards 0 and `sampled_from` towards its first element, so the first choice of each
is the simplest (float32, K = 1, the first axis, largest, sort=value, no `stable`, the
dialect's index type, small integers as values), and the unusual ones (K = 0, K > n, an
empty dimension, a high rank) are the far end of a range. A shrunk example is then a small
input that differs from the plain case only where the discrepancy needs it."""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from conformance.core.dtypes import DTYPES, is_float, name_of
from conformance.core.keys import key_dtype
from conformance.ops.topk.case import Case

# The simplest first: shrinking moves towards the front.
DTYPE_ORDER = (
    "float32", "int32", "float16", "int64", "float64", "bfloat16",
    "int8", "uint8", "int16", "uint16", "uint32", "uint64",
)
MAX_ELEMENTS = 32  # per example: small inputs run fast, shrink fast and read well
MAX_DIM = 6


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


def _float_bits(values: list[float], dtype: np.dtype[Any]) -> list[int]:
    with np.errstate(over="ignore"):
        as_type = np.array(values, dtype=np.float64).astype(dtype)
    bits: list[int] = as_type.view(key_dtype(dtype)).tolist()
    return bits


def small_values(dtype: np.dtype[Any]) -> list[int]:
    """Small numbers, as elements of `dtype` (floats as bit patterns): 0 first."""
    numbers = [0, 1, 2, 3] if not is_float(dtype) and np.iinfo(dtype).min == 0 else [0, 1, -1, 2, -2, 3]
    return _float_bits([float(v) for v in numbers], dtype) if is_float(dtype) else numbers


def special_values(dtype: np.dtype[Any]) -> list[int]:
    """Where implementations tend to differ, as elements of `dtype` (floats as bit patterns):
    extremes and their neighbours, infinities, zeros of both signs, subnormals, NaN with and
    without sign and payload, signalling NaN; for integers also the values a narrower or
    floating-point computation loses (2**24 + 1, 2**31, 2**53 + 1, 2**63, high words shared)."""
    if is_float(dtype):
        info = ml_dtypes.finfo(dtype)  # type: ignore[no-untyped-call]
        numbers = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, float(info.max), float(info.min),
                   float(info.tiny), float(info.smallest_subnormal), -float(info.smallest_subnormal)]
        bits = _float_bits(numbers, dtype)
        width = 8 * dtype.itemsize
        sign = 1 << (width - 1)
        mantissa = {2: 10, 4: 23, 8: 52}[dtype.itemsize] if dtype != DTYPES["bfloat16"] else 7
        exponent_all = (sign - 1) ^ ((1 << mantissa) - 1)  # exponent bits all set
        quiet = exponent_all | (1 << (mantissa - 1))
        bits += [quiet, quiet | sign, quiet | 1, exponent_all | 1, bits[6] - 1]  # NaNs; below max
        return list(dict.fromkeys(bits))
    integers = np.iinfo(dtype)
    lo, hi = int(integers.min), int(integers.max)
    pool = [0, 1, hi, lo, hi - 1, lo + 1]
    if lo < 0:
        pool.append(-1)
    for wide in (2**24 + 1, 2**24, 2**31, 2**31 - 1, 2**32 - 1, 2**32 + 5, 2**53 + 1, 2**53, 2**63, 2**63 + 1,
                 -(2**31) - 1, -(2**53) - 1):
        if lo <= wide <= hi:
            pool.append(wide)
    return list(dict.fromkeys(pool))


def any_element(dtype: np.dtype[Any]) -> st.SearchStrategy[int]:
    """Any element of `dtype`; floats as any bit pattern (NaN payloads and subnormals too)."""
    if is_float(dtype):
        return st.integers(0, (1 << (8 * dtype.itemsize)) - 1)
    info = np.iinfo(dtype)
    return st.integers(int(info.min), int(info.max))


@st.composite
def shapes(draw: st.DrawFn) -> tuple[int, ...]:
    """Rank 1 to 8 (mostly 1 to 3), at most MAX_ELEMENTS elements; a zero-sized dimension
    one time in twenty (never the only way to shrink: it is the far end of its range)."""
    rank = draw(st.integers(1, 3)) if draw(st.integers(0, 9)) < 9 else draw(st.integers(4, 8))
    dims: list[int] = []
    budget = MAX_ELEMENTS
    for _ in range(rank):
        dim = draw(st.integers(1, max(1, min(MAX_DIM, budget))))
        dims.append(dim)
        budget = max(1, budget // dim)
    if draw(st.integers(0, 19)) == 19:
        dims[draw(st.integers(0, rank - 1))] = 0
    return tuple(dims)


@st.composite
def tensors(draw: st.DrawFn, dtype: np.dtype[Any], shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    mode = draw(st.sampled_from(["small", "ties", "special", "mixed", "any"]))
    if mode == "small":  # small numbers: ties everywhere, readable when shrunk
        elements: st.SearchStrategy[int] = st.sampled_from(small_values(dtype))
    elif mode == "ties":  # one to three distinct values of any kind
        pool = draw(st.lists(st.one_of(st.sampled_from(special_values(dtype)), any_element(dtype)),
                             min_size=1, max_size=3))
        elements = st.sampled_from(pool)
    elif mode == "special":
        elements = st.sampled_from(special_values(dtype))
    elif mode == "mixed":
        elements = st.one_of(st.sampled_from(small_values(dtype)), st.sampled_from(special_values(dtype)),
                             any_element(dtype))
    else:
        elements = any_element(dtype)
    storage = key_dtype(dtype) if is_float(dtype) else dtype
    raw = draw(arrays(storage, shape, elements=elements, fill=st.nothing()))
    return raw.view(dtype) if is_float(dtype) else raw


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
