"""What the fuzzer draws for every operator, with hypothesis: element values of each type
(small numbers, the values where implementations tend to differ, any bit pattern), shapes
and tensors of them; and what an operator gives the fuzzer (`FuzzSupport`).

Every draw is arranged so that what hypothesis shrinks towards is the plain case: integers
shrink towards 0 and `sampled_from` towards its first element, so the first choice of each
is the simplest (float32, small integers as values), and the unusual ones (an empty
dimension, a high rank) are the far end of a range. Imported only when fuzzing (hypothesis
is the `test` extra's)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import ml_dtypes
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from conformance.core.dtypes import DTYPES, is_float
from conformance.core.keys import key_dtype
from conformance.operator.interfaces import Case, Variant

# The simplest first: shrinking moves towards the front.
DTYPE_ORDER = (
    "float32", "int32", "float16", "int64", "float64", "bfloat16",
    "int8", "uint8", "int16", "uint16", "uint32", "uint64",
)
MAX_ELEMENTS = 32  # per example: small inputs run fast, shrink fast and read well
MAX_DIM = 6


class FuzzExample(Protocol):
    """One drawn input of an operator, with every setting its case file can give."""

    @property
    def x(self) -> np.ndarray[Any, Any]: ...
    @property
    def dtype_name(self) -> str: ...
    @property
    def expect_error(self) -> bool: ...

    def key(self) -> str:
        """Equal keys, the same input bit for bit and the same settings."""

    def case(self, case_id: str, file: Path, source: str = ..., tags: tuple[str, ...] = ...) -> Case: ...


@dataclass(frozen=True)
class FuzzSupport:
    """What an operator gives the fuzzer: its inputs as a hypothesis strategy (of the element
    types named), smaller or plainer inputs than one that shows a discrepancy (the first
    likeliest; given the target's result), the tags a found input gets (given the variants
    it was found through), and its own fields as lines of a case file."""

    inputs: Callable[[tuple[str, ...]], st.SearchStrategy[Any]]
    simpler: Callable[[Any, Any], Iterator[Any]]
    case_tags: Callable[[Any, Sequence[Variant]], list[str]]
    case_fields: Callable[[Any], list[str]]
    # Its input tensors as lines of a case file, for an operator whose tensors are not one
    # `input` (NonMaxSuppression's boxes and scores); None: `input` from the example's x.
    tensor_lines: Callable[[Any], list[str]] | None = None


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




def value_tags(x: np.ndarray[Any, Any], axis: int) -> list[str]:
    """The tags (docs/tags.md) that say what an input's values hold, along `axis`."""
    tags = []
    if x.size == 0:
        tags.append("empty")
    if x.size and is_float(x.dtype):
        with np.errstate(invalid="ignore"):
            wide = x.astype(np.float64)
        if np.isnan(wide).any():
            tags.append("nan")
        if np.isinf(wide).any():
            tags.append("inf")
        if (wide == 0).any() and np.signbit(wide[wide == 0]).any():
            tags.append("signed_zero")
    if x.size and has_ties(x, axis):
        tags.append("ties")
    return tags


def has_ties(x: np.ndarray[Any, Any], axis: int) -> bool:
    """Whether some sequence along `axis` holds equal values (-0.0 and +0.0 tie; NaN ties nothing)."""
    n = x.shape[axis % x.ndim]
    rows = np.moveaxis(x, axis % x.ndim, -1).reshape(-1, n)
    if is_float(x.dtype):
        with np.errstate(invalid="ignore"):
            rows = rows.astype(np.float64)
        rows = np.where(rows == 0, 0.0, rows)
    return any(len(np.unique(row[~np.isnan(row)] if is_float(x.dtype) else row)) < len(row) for row in rows)
