"""The numeric types a case may use, and exact conversion of case values into them."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
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

# ONNX TensorProto element types (the enum the bridge's tensors and ONNX graphs carry) of the
# types above, by numpy name.
ELEMENT_TYPES: dict[str, int] = {
    "float32": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6, "int64": 7,
    "float16": 10, "float64": 11, "uint32": 12, "uint64": 13, "bfloat16": 16,
}

# Strings a case may use for values YAML cannot write portably as numbers. "nan" and "-nan"
# load as NAN_BITS with the sign bit clear and set; "0x..." strings give any bit pattern.
SPECIAL_FLOATS: dict[str, float] = {
    "nan": math.nan,
    "+nan": math.nan,
    "-nan": -math.nan,
    "inf": math.inf,
    "+inf": math.inf,
    "-inf": -math.inf,
    "-0.0": -0.0,
}

# The default quiet NaN of each float type: sign clear, exponent all ones, only the top
# mantissa bit set. Every NaN a case writes as a number (YAML's .nan) or as "nan" loads as
# these bits, whatever NaN the machine's arithmetic makes (x86 makes one with the sign set).
NAN_BITS: dict[str, int] = {
    "float16": 0x7E00,
    "bfloat16": 0x7FC0,
    "float32": 0x7FC0_0000,
    "float64": 0x7FF8_0000_0000_0000,
}

_HEX_PATTERN = re.compile(r"0[xX]([0-9a-fA-F]+)")


class HexInt(int):
    """An integer a case file wrote unquoted in hex (YAML reads 0x7fc00001 as an int): kept
    apart so that a float tensor can refuse it rather than read a bit pattern as a number."""


@dataclass(frozen=True)
class Bits:
    """A float element given by its bit pattern (the element type's width)."""

    pattern: int


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


def element_type(dtype: np.dtype[Any]) -> int:
    """The ONNX TensorProto element type of a numpy type (onnx's own mapping, which knows
    more types than the suite's, for any other)."""
    for name, candidate in DTYPES.items():
        if candidate == dtype:
            return ELEMENT_TYPES[name]
    from onnx import helper  # only for a type the suite does not use

    return int(helper.np_dtype_to_tensor_dtype(dtype))


def is_float(dtype: np.dtype[Any]) -> bool:
    return dtype == DTYPES["bfloat16"] or np.issubdtype(dtype, np.floating)


class ValueError_(ValueError):
    """A case value that the dtype cannot hold; the message says why."""


def hex_digits(dtype: np.dtype[Any]) -> int:
    """How many hex digits a bit pattern of `dtype` has: its width in bits / 4."""
    return 2 * dtype.itemsize


def _sign_bit(dtype: np.dtype[Any]) -> int:
    return 1 << (8 * dtype.itemsize - 1)


def _float_string(value: str, dtype: np.dtype[Any]) -> float | Bits:
    text = value.strip()
    pattern = _HEX_PATTERN.fullmatch(text)
    if pattern is not None:
        digits = pattern.group(1)
        if len(digits) != hex_digits(dtype):
            raise ValueError_(
                f"{value!r}: a bit pattern of {name_of(dtype)} has {hex_digits(dtype)} hex digits "
                f"(0x{'h' * hex_digits(dtype)}), not {len(digits)}"
            )
        return Bits(int(digits, 16))
    special = text.lower()
    if special not in SPECIAL_FLOATS:
        raise ValueError_(
            f"{value!r} is not a number; strings allowed: "
            + ", ".join(repr(s) for s in SPECIAL_FLOATS)
            + f", or a bit pattern of {hex_digits(dtype)} hex digits ('0x...')"
        )
    if special.endswith("nan"):
        sign = _sign_bit(dtype) if special.startswith("-") else 0
        return Bits(NAN_BITS[name_of(dtype)] | sign)
    return SPECIAL_FLOATS[special]


def convert_scalar(value: object, dtype: np.dtype[Any]) -> int | float | Bits:
    """Return `value` as a Python number that `dtype` holds exactly (ints) or by rounding
    to nearest (floats), or as the Bits of a float element given by its pattern (and every
    NaN, so that its bits do not depend on the machine); raise ValueError_ with the reason
    otherwise."""
    if is_float(dtype):
        if isinstance(value, str):
            return _float_string(value, dtype)
        if isinstance(value, HexInt):
            raise ValueError_(
                f"{int(value):#x} is written unquoted, which YAML reads as the integer {int(value)}; "
                f"quote it (\"0x{abs(value):0{hex_digits(dtype)}x}\") to give a bit pattern"
            )
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError_(f"{value!r} is not a number")
        try:
            as_float = float(value)
        except OverflowError:  # an int beyond float64's range
            raise ValueError_(f"{value!r} is not representable in {name_of(dtype)}") from None
        if math.isnan(as_float):
            return Bits(NAN_BITS[name_of(dtype)])
        with np.errstate(over="ignore"):
            rounded = np.array(as_float, dtype=np.float64).astype(dtype).astype(np.float64)
        if math.isfinite(as_float) and not np.isfinite(rounded):
            # Rounding gave inf: the case meant a finite value the type cannot hold.
            raise ValueError_(f"{value!r} is not representable in {name_of(dtype)}")
        return as_float
    # Integer types: only integers, and only within range.
    if isinstance(value, str) and _HEX_PATTERN.fullmatch(value.strip()):
        raise ValueError_(
            f"{value!r}: bit patterns are for float types only; {name_of(dtype)} takes integers"
        )
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError_(f"{value!r} is not an integer, as {name_of(dtype)} requires")
    info = np.iinfo(dtype)
    if not info.min <= value <= info.max:
        raise ValueError_(
            f"{value} is not representable in {name_of(dtype)} (range {info.min}..{info.max})"
        )
    return int(value)


def array_from_flat(values: list[Any], dtype: np.dtype[Any]) -> np.ndarray[Any, Any]:
    """Build an array from already-converted scalars (convert_scalar's results) without
    passing ints through float, and writing Bits elements bit for bit."""
    if not is_float(dtype):
        return np.array(values, dtype=dtype)
    patterns = [(i, v.pattern) for i, v in enumerate(values) if type(v) is Bits]
    numbers = [0.0 if type(v) is Bits else v for v in values] if patterns else values
    with np.errstate(over="ignore"):
        array = np.array(numbers, dtype=np.float64).astype(dtype)
    if patterns:
        positions, bits = zip(*patterns, strict=True)
        array.view(np.dtype(f"u{dtype.itemsize}"))[list(positions)] = list(bits)
    return array


def fast_array(data: Any, shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray[Any, Any] | None:
    """The tensor that nested lists `data` of `shape` stand for, built with numpy in bulk;
    None wherever the data is not plainly right (wrong nesting, a value the type cannot
    hold, a type not allowed): the caller then walks it element by element, which builds
    the same array or says exactly which element is wrong. Never accepts what that walk
    would refuse."""
    try:
        nested = np.array(data, dtype=object)
    except (ValueError, TypeError):
        return None
    if nested.shape != shape:
        return None
    flat = nested.ravel().tolist()
    kinds = set(map(type, flat))
    if not is_float(dtype):
        if not kinds <= {int}:
            return None
        info = np.iinfo(dtype)
        if flat and not (info.min <= min(flat) and max(flat) <= info.max):
            return None
        return np.array(flat, dtype=dtype).reshape(shape)
    if not kinds <= {int, float, str}:
        return None
    patterns: list[tuple[int, int]] = []
    if str in kinds:
        numbers: list[Any] = []
        try:
            for position, value in enumerate(flat):
                if type(value) is str:
                    converted = _float_string(value, dtype)
                    if isinstance(converted, Bits):
                        patterns.append((position, converted.pattern))
                        converted = 0.0
                    numbers.append(converted)
                else:
                    numbers.append(value)
        except ValueError_:
            return None
        flat = numbers
    try:
        wide = np.array(flat, dtype=np.float64)
    except (OverflowError, ValueError, TypeError):
        return None
    with np.errstate(over="ignore", invalid="ignore"):
        array = wide.astype(dtype)
        if (np.isfinite(wide) & ~np.isfinite(array.astype(np.float64))).any():
            return None  # a finite value beyond the type's range: the walk names it
    unsigned = array.view(np.dtype(f"u{dtype.itemsize}"))
    nan = np.isnan(wide)
    if nan.any():
        unsigned[nan] = NAN_BITS[name_of(dtype)]
    if patterns:
        positions, bits = zip(*patterns, strict=True)
        unsigned[list(positions)] = list(bits)
    return array.reshape(shape)


def to_jsonable(values: np.ndarray[Any, Any]) -> Any:
    """Nested lists the way case files write values: special floats as strings, and a NaN
    other than the default quiet one ("nan", "-nan") as its bit pattern, so that it reads
    back bit for bit."""
    if not is_float(values.dtype):
        return values.tolist()
    default = NAN_BITS[name_of(values.dtype)]
    sign = _sign_bit(values.dtype)
    width = hex_digits(values.dtype)

    def one(v: float, bits: int) -> float | str:
        if math.isnan(v):
            if bits & ~sign == default:
                return "-nan" if bits & sign else "nan"
            return f"0x{bits:0{width}x}"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if v == 0.0 and math.copysign(1.0, v) < 0:
            return "-0.0"
        return v

    unsigned = np.ascontiguousarray(values).view(np.dtype(f"u{values.dtype.itemsize}")).ravel().tolist()
    with np.errstate(invalid="ignore"):  # signalling NaNs: their bits are written, not these
        wide = values.astype(np.float64).ravel().tolist()
    flat = [one(v, bits) for v, bits in zip(wide, unsigned, strict=True)]
    return np.array(flat, dtype=object).reshape(values.shape).tolist()
