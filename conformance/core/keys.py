"""Order keys: unsigned integers of the input's own width that sort like the values they
stand for, so that the judge and the oracle compare plain integers whatever the dtype
(float16 and bfloat16 -> uint16, float32 -> uint32, float64 -> uint64, intN -> uintN).

Where the input's own type already compares like the DirectML rule wants (every integer
type; float16/32/64 without NaN, where -0.0 == +0.0 as the rule wants), `comparable`
hands back the input itself and no key is built at all."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from conformance.core.dtypes import DTYPES, is_float

# Elements one pass handles at once, so that temporaries stay small on long inputs.
CHUNK = 1 << 20

_BFLOAT16 = DTYPES["bfloat16"]


def key_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """The unsigned integer type of `dtype`'s own width."""
    return np.dtype(f"u{dtype.itemsize}")


def _sign(dtype: np.dtype[Any]) -> Any:
    return key_dtype(dtype).type(1 << (8 * dtype.itemsize - 1))


def _all_ones(dtype: np.dtype[Any]) -> Any:
    return key_dtype(dtype).type((1 << (8 * dtype.itemsize)) - 1)


def _exponent_bits(dtype: np.dtype[Any]) -> int:
    """The bit pattern of +inf: exponent all ones, mantissa zero."""
    return {2: 0x7F80 if dtype == _BFLOAT16 else 0x7C00, 4: 0x7F80_0000,
            8: 0x7FF0_0000_0000_0000}[dtype.itemsize]


def nan_mask(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Elementwise NaN test in the input's own type (bfloat16 by its bits)."""
    if not is_float(x.dtype):
        return np.zeros(x.shape, dtype=bool)
    if x.dtype == _BFLOAT16:
        magnitude = x.view(key_dtype(x.dtype)) & np.uint16(0x7FFF)
        mask: np.ndarray[Any, Any] = magnitude > np.uint16(_exponent_bits(x.dtype))
        return mask
    nan: np.ndarray[Any, Any] = np.isnan(x)
    return nan


def value_key(x: np.ndarray[Any, Any], nan_high: bool = True) -> np.ndarray[Any, Any]:
    """A key with key(a) > key(b) exactly when a > b, of x's own width: -0.0 and +0.0 get one
    key (they tie); every NaN gets one key, above or below every number as `nan_high` says.
    Unsigned input is its own key (returned as it is: do not write into it)."""
    unsigned = key_dtype(x.dtype)
    if not is_float(x.dtype):
        if np.issubdtype(x.dtype, np.unsignedinteger):
            return x
        # Flipping the sign bit maps intN's order onto uintN's.
        key: np.ndarray[Any, Any] = x.view(unsigned) ^ _sign(x.dtype)
        return key
    bits = x.view(unsigned)
    signed = np.dtype(f"i{x.dtype.itemsize}")
    # All ones where the sign bit is set, else zero; | sign: XOR then flips every bit of a
    # negative number (reversing their order) and only the sign bit of a positive one.
    key = np.right_shift(bits.view(signed), 8 * x.dtype.itemsize - 1).view(unsigned)
    key |= _sign(x.dtype)
    key ^= bits
    # -0.0's key is +0.0's minus one: fold it into +0.0's.
    np.add(key, key == ~_sign(x.dtype), out=key, casting="unsafe")
    nan = nan_mask(x)
    if nan.any():
        # Finite keys lie strictly between 0 (below -inf's) and all ones (above +inf's).
        np.putmask(key, nan, _all_ones(x.dtype) if nan_high else unsigned.type(0))
    return key


def better_key(x: np.ndarray[Any, Any], largest: bool, nan_high: bool = True) -> np.ndarray[Any, Any]:
    """A key where higher means 'selected first' in the given direction (bitwise NOT
    reverses an unsigned order)."""
    key = value_key(x, nan_high)
    if largest:
        return key
    if key is x:  # unsigned input is its own key: not to be written into
        inverted: np.ndarray[Any, Any] = ~key
        return inverted
    inverted = np.invert(key, out=key)
    return inverted


def natively_ordered(x: np.ndarray[Any, Any], nan: bool | None = None) -> bool:
    """Whether numpy's own comparisons of x's elements are the DirectML order: every
    integer type, and float16/32/64 without NaN (-0.0 == +0.0 there, as ties). `nan`:
    whether x holds NaN, where the caller knows (no pass over x then)."""
    if not is_float(x.dtype):
        return True
    return x.dtype != _BFLOAT16 and not (has_nan(x) if nan is None else nan)


def comparable(x: np.ndarray[Any, Any], nan_high: bool = True, nan: bool | None = None) -> np.ndarray[Any, Any]:
    """x itself where numpy compares its elements in the DirectML order, else its key: an
    array whose <, == and sorting order the elements by value, -0.0 tied with +0.0, NaN
    above (or below) every number. `nan` as natively_ordered's."""
    return x if natively_ordered(x, nan) else value_key(x, nan_high)


def _chunks(x: np.ndarray[Any, Any]) -> Iterator[np.ndarray[Any, Any]]:
    """x's elements in pieces of at most CHUNK, without copying a contiguous array."""
    if x.size <= CHUNK:
        yield x
        return
    flat = x if x.ndim == 1 else x.ravel(order="K") if x.flags.forc else None
    if flat is not None:  # a view: x is one-dimensional, or contiguous
        for start in range(0, flat.size, CHUNK):
            yield flat[start : start + CHUNK]
        return
    step = CHUNK // (x.size // x.shape[0])
    if step == 0:  # one slice along the first axis is already more than a chunk
        for sub in x:
            yield from _chunks(sub)
        return
    for start in range(0, x.shape[0], step):
        yield x[start : start + step]


def has_nan(x: np.ndarray[Any, Any]) -> bool:
    """Whether x holds a NaN, tested in its own type, a piece at a time."""
    if not is_float(x.dtype) or x.size == 0:
        return False
    if x.dtype == _BFLOAT16:
        return any(bool(nan_mask(chunk).any()) for chunk in _chunks(x))
    # numpy's min propagates NaN (documented), and reads each piece once without the
    # boolean temporary of isnan: about 3x faster on float32.
    return any(bool(np.isnan(np.min(chunk))) for chunk in _chunks(x))


def best_position(keys: np.ndarray[Any, Any], last: bool = False) -> np.ndarray[Any, Any]:
    """Per row of `keys` (as better_key gives them), the position of the best key: the first
    of equal best keys, or the last (int64, one per row). Rows must not be empty."""
    if last:
        width = keys.shape[1]
        flipped: np.ndarray[Any, Any] = width - 1 - np.argmax(keys[:, ::-1], axis=1)
        return flipped.astype(np.int64)
    first: np.ndarray[Any, Any] = np.argmax(keys, axis=1).astype(np.int64)
    return first
