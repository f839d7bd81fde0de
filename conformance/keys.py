"""Order keys: integers that sort like the values they stand for, so that every rule of the
judge and the oracle compare plain integers, whatever the dtype."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.dtypes import is_float

_SIGN = np.uint64(1 << 63)
_NAN_HIGH = np.uint64(0xFFFF_FFFF_FFFF_FFFF)  # above +inf's key (0xFFF0...)
_NAN_LOW = np.uint64(0)  # below -inf's key (0x000F...)


def value_key(x: np.ndarray[Any, Any], nan_high: bool = True) -> np.ndarray[Any, Any]:
    """A key with key(a) > key(b) exactly when a > b; -0.0 and +0.0 get one key (they tie);
    every NaN gets one key, above or below every number as `nan_high` says."""
    if is_float(x.dtype):
        # Every float type here widens to float64 exactly; +0.0 folds -0.0 into +0.0.
        wide = x.astype(np.float64) + 0.0
        bits = wide.view(np.uint64)
        key = np.where(bits & _SIGN, ~bits, bits | _SIGN)
        return np.where(np.isnan(wide), _NAN_HIGH if nan_high else _NAN_LOW, key)
    if x.dtype == np.uint64:
        return x.copy()
    return x.astype(np.int64)


def better_key(x: np.ndarray[Any, Any], largest: bool, nan_high: bool = True) -> np.ndarray[Any, Any]:
    """A key where higher means 'selected first' in the given direction (bitwise NOT
    reverses the order of both int64 and uint64 without overflow)."""
    key = value_key(x, nan_high)
    return key if largest else ~key


def has_nan(x: np.ndarray[Any, Any]) -> bool:
    return is_float(x.dtype) and bool(np.isnan(x.astype(np.float64)).any())
