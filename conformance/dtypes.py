"""The numeric types a case may use, and exact conversion of case values into them."""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np

# numpy names, as case files spell them; bfloat16 is carried by ml_dtypes.
DTYPES: dict[str, np.dtype[Any]] = {
    "float16": np.dtype(np.float16),
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
    "float32": np.dtype(np.float32),
    "float64": np.dtype(np.float64),
    "int8": np.dtype(np.int8),
    "int16": np.dtype(np.int16),
    "int32": np.dtype(np.int32),
    "int64": np.dtype(np.int64),
    "uint8": np.dtype(np.uint8),
    "uint16": np.dtype(np.uint16),
    "uint32": np.dtype(np.uint32),
    "uint64": np.dtype(np.uint64),
}

INDEX_DTYPES: dict[str, np.dtype[Any]] = {
    "int32": np.dtype(np.int32),
    "int64": np.dtype(np.int64),
    "uint32": np.dtype(np.uint32),
    "uint64": np.dtype(np.uint64),
}

# Strings a case may use for values YAML cannot write portably as numbers.
SPECIAL_FLOATS: dict[str, float] = {
    "nan": math.nan,
    "inf": math.inf,
    "+inf": math.inf,
    "-inf": -math.inf,
    "-0.0": -0.0,
}


def dtype_of(name: str) -> np.dtype[Any]:
    return DTYPES[name]


def name_of(dtype: np.dtype[Any]) -> str:
    for name, candidate in DTYPES.items():
        if candidate == dtype:
            return name
    for name, candidate in INDEX_DTYPES.items():
        if candidate == dtype:
            return name
    return str(dtype)


def is_float(dtype: np.dtype[Any]) -> bool:
    return dtype == DTYPES["bfloat16"] or np.issubdtype(dtype, np.floating)


class ValueError_(ValueError):
    """A case value that the dtype cannot hold; the message says why."""


def convert_scalar(value: object, dtype: np.dtype[Any]) -> Any:
    """Return `value` as a Python number that `dtype` holds exactly (ints) or by rounding
    to nearest (floats); raise ValueError_ with the reason otherwise."""
    if is_float(dtype):
        if isinstance(value, str):
            if value.strip().lower() not in SPECIAL_FLOATS:
                raise ValueError_(
                    f"{value!r} is not a number; strings allowed: "
                    + ", ".join(repr(s) for s in SPECIAL_FLOATS)
                )
            return SPECIAL_FLOATS[value.strip().lower()]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError_(f"{value!r} is not a number")
        try:
            as_float = float(value)
        except OverflowError:  # an int beyond float64's range
            raise ValueError_(f"{value!r} is not representable in {name_of(dtype)}") from None
        with np.errstate(over="ignore"):
            rounded = np.array(as_float, dtype=np.float64).astype(dtype).astype(np.float64)
        if math.isfinite(as_float) and not np.isfinite(rounded):
            # Rounding gave inf: the case meant a finite value the type cannot hold.
            raise ValueError_(f"{value!r} is not representable in {name_of(dtype)}")
        return as_float
    # Integer types: only integers, and only within range.
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError_(f"{value!r} is not an integer, as {name_of(dtype)} requires")
    info = np.iinfo(dtype)
    if not info.min <= value <= info.max:
        raise ValueError_(
            f"{value} is not representable in {name_of(dtype)} (range {info.min}..{info.max})"
        )
    return value


def array_from_flat(values: list[Any], dtype: np.dtype[Any]) -> np.ndarray[Any, Any]:
    """Build an array from already-converted scalars without passing ints through float."""
    if is_float(dtype):
        with np.errstate(over="ignore"):
            return np.array(values, dtype=np.float64).astype(dtype)
    return np.array(values, dtype=dtype)


def to_jsonable(values: np.ndarray[Any, Any]) -> Any:
    """Nested lists the way case files write values: special floats as strings."""
    if not is_float(values.dtype):
        return values.tolist()

    def one(v: float) -> float | str:
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if v == 0.0 and math.copysign(1.0, v) < 0:
            return "-0.0"
        return v

    flat = [one(float(v)) for v in values.astype(np.float64).ravel()]
    return np.array(flat, dtype=object).reshape(values.shape).tolist()
