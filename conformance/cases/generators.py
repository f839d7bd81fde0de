"""Input generators: deterministic from their seed on every machine and numpy version.

Every draw comes from the raw 64-bit output of PCG64, whose algorithm is fixed, and is
mapped to values here with plain integer and float arithmetic; numpy's distribution
methods are not used, since their streams may change between numpy versions.

A generator makes what its name, dtype and parameters promise, or refuses with a
GeneratorError naming the parameter: bounds that are NaN, infinite or beyond the element
type's range, a constant the type cannot hold, a ramp that overflows. Draws are made and
mapped a block at a time, so that a 10**8-element input costs little more than itself."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np
from numpy.random import PCG64

from conformance.core.dtypes import NAN_BITS, is_float, name_of


class GeneratorError(ValueError):
    """Bad generator parameters; `field` names the parameter ("" for the generator as a
    whole, where no one parameter is to blame)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


Params = Mapping[str, Any]

# Elements drawn and mapped at a time: the values do not depend on it (the stream is one).
_BLOCK = 1 << 20


def _blocks(seed: int, size: int, skip: int = 0) -> Iterator[tuple[slice, np.ndarray[Any, Any]]]:
    """PCG64's raw output from draw `skip` on, `size` draws in all, a block at a time, with
    the slice of the output each block fills."""
    bit_generator = PCG64(seed)
    if skip:
        bit_generator.advance(skip)
    for start in range(0, size, _BLOCK):
        count = min(_BLOCK, size - start)
        yield slice(start, start + count), bit_generator.random_raw(count).astype(np.uint64)


def _unit(raw: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Doubles in [0, 1) from the top 53 bits."""
    return (raw >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


def _cast(values: np.ndarray[Any, Any], dtype: np.dtype[Any]) -> np.ndarray[Any, Any]:
    with np.errstate(over="ignore", invalid="ignore"):
        return values.astype(dtype)


def _int_range(dtype: np.dtype[Any], low: int, high: int, raw: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Integers in [low, high) by modulo over the raw draws, in wrapping uint64 arithmetic
    so that full int64/uint64 ranges work without overflow."""
    span = high - low
    offsets = raw if span == 1 << 64 else raw % np.uint64(span)
    return _wrapped(dtype, (offsets + np.uint64(low % (1 << 64))).astype(np.uint64))


def _wrapped(dtype: np.dtype[Any], values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """uint64 values that are integers of `dtype` modulo 2**64, as that type."""
    if dtype == np.uint64:
        return values
    return values.view(np.int64).astype(dtype)


def _param(params: Params, name: str, default: Any, kind: type | tuple[type, ...]) -> Any:
    value = params.get(name, default)
    if isinstance(value, bool) or not isinstance(value, kind):
        wanted = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise GeneratorError(name, f"{value!r} is not a {wanted}")
    return value


def _shown(value: Any) -> str:
    """A parameter's value for a message: an integer too long to read by its digit count."""
    if isinstance(value, int) and abs(value) >= 10**40:
        return f"an integer of {len(str(abs(value)))} digits"
    return repr(value)


def _float_param(params: Params, name: str, default: float, dtype: np.dtype[Any], *, finite: bool = True) -> float:
    """A number parameter for a float type: it must be a number that `dtype` holds (rounded
    to nearest, as values in `data` are), and finite unless `finite` is false."""
    value = _param(params, name, default, (int, float))
    try:
        as_float = float(value)
    except OverflowError:  # an int beyond float64's range
        raise GeneratorError(name, f"{_shown(value)} is beyond {name_of(dtype)}'s range") from None
    if math.isnan(as_float):
        if finite:
            raise GeneratorError(name, f"{name} is NaN; it must be a finite number")
        return as_float
    if math.isinf(as_float):
        if finite:
            raise GeneratorError(name, f"{name} is {as_float}; it must be a finite number")
        return as_float
    rounded = _cast(np.array(as_float, dtype=np.float64), dtype).astype(np.float64)
    if not np.isfinite(rounded):
        limit = float(ml_dtypes.finfo(dtype).max)  # type: ignore[no-untyped-call]
        raise GeneratorError(
            name, f"{value!r} is beyond {name_of(dtype)}'s range (largest finite value {limit!r})"
        )
    return as_float


def _int_param(params: Params, name: str, default: int, dtype: np.dtype[Any]) -> int:
    value = int(_param(params, name, default, int))
    info = np.iinfo(dtype)
    if not info.min <= value <= info.max:
        raise GeneratorError(name, f"{_shown(value)} is not representable in {name_of(dtype)} "
                             f"(range {info.min}..{info.max})")
    return value


def uniform(dtype: np.dtype[Any], size: int, seed: int, params: Params) -> np.ndarray[Any, Any]:
    out = np.empty(size, dtype=dtype)
    if is_float(dtype):
        low = _float_param(params, "low", -1.0, dtype)
        high = _float_param(params, "high", 1.0, dtype)
        if not low < high:
            raise GeneratorError("high", f"needs low < high, got {low} and {high}")
        span = high - low
        if math.isinf(span):
            raise GeneratorError("high", f"high - low = {high} - {low} overflows float64")
        for where, raw in _blocks(seed, size):
            out[where] = _cast(low + span * _unit(raw), dtype)
        return out
    info = np.iinfo(dtype)
    low_i = int(_param(params, "low", max(info.min, -100), int))
    high_i = int(_param(params, "high", min(info.max + 1, 101), int))
    if not info.min <= low_i <= info.max:
        raise GeneratorError("low", f"needs {info.min} <= low < high <= {info.max + 1}, got low = {_shown(low_i)}")
    if not info.min < high_i <= info.max + 1:
        raise GeneratorError("high", f"needs {info.min} <= low < high <= {info.max + 1}, got high = {_shown(high_i)}")
    if not low_i < high_i:
        raise GeneratorError("high", f"needs low < high, got {low_i} and {high_i}")
    for where, raw in _blocks(seed, size):
        out[where] = _int_range(dtype, low_i, high_i, raw)
    return out


def few_distinct(dtype: np.dtype[Any], size: int, seed: int, params: Params) -> np.ndarray[Any, Any]:
    """Values from {0, 1, ..., count-1}: heavy ties. Every element type holds 0..99 exactly."""
    count = int(_param(params, "count", 3, int))
    if not 1 <= count <= 100:
        raise GeneratorError("count", f"needs 1 <= count <= 100, got {_shown(count)}")
    out = np.empty(size, dtype=dtype)
    for where, raw in _blocks(seed, size):
        out[where] = _cast((raw % np.uint64(count)).astype(np.int64), dtype)
    return out


def constant(dtype: np.dtype[Any], size: int, seed: int, params: Params) -> np.ndarray[Any, Any]:
    if is_float(dtype):
        value = _float_param(params, "value", 0.0, dtype, finite=False)
        out = _cast(np.full(size, value, dtype=np.float64), dtype)
        if math.isnan(value):  # the type's default quiet NaN, whatever NaN YAML's .nan made
            out.view(np.dtype(f"u{dtype.itemsize}"))[:] = NAN_BITS[name_of(dtype)]
        return out
    return np.full(size, _int_param(params, "value", 0, dtype), dtype=dtype)


def arange(dtype: np.dtype[Any], size: int, seed: int, params: Params) -> np.ndarray[Any, Any]:
    """start, start+step, ... in flat order (descending with a negative step)."""
    out = np.empty(size, dtype=dtype)
    if is_float(dtype):
        start = _float_param(params, "start", 0, dtype)
        step = _float_param(params, "step", 1, dtype)
        for block in range(0, size, _BLOCK):
            end = min(block + _BLOCK, size)
            with np.errstate(over="ignore", invalid="ignore"):
                values = _cast(start + step * np.arange(block, end, dtype=np.float64), dtype)
            bad = np.flatnonzero(~np.isfinite(values))
            if bad.size:
                at = block + int(bad[0])
                raise GeneratorError(
                    "step", f"start + i*step = {start!r} + {at}*{step!r} leaves {name_of(dtype)}'s range at i = {at}"
                )
            out[block:end] = values
        return out
    start_i = _param(params, "start", 0, (int, float))
    step_i = _param(params, "step", 1, (int, float))
    if not isinstance(start_i, int) or not isinstance(step_i, int):
        bad_name = "start" if not isinstance(start_i, int) else "step"
        raise GeneratorError(bad_name, f"start and step must be integers for {name_of(dtype)}")
    info = np.iinfo(dtype)
    last = start_i + step_i * max(size - 1, 0)
    if not (info.min <= start_i <= info.max and info.min <= last <= info.max):
        raise GeneratorError("step", f"{start_i}..{last} leaves the range of {name_of(dtype)}")
    step_u, start_u = np.uint64(step_i % (1 << 64)), np.uint64(start_i % (1 << 64))
    for block in range(0, size, _BLOCK):
        end = min(block + _BLOCK, size)
        # Exact modulo 2**64, and every value is within the type's range.
        out[block:end] = _wrapped(dtype, np.arange(block, end, dtype=np.uint64) * step_u + start_u)
    return out


def iota(dtype: np.dtype[Any], shape: tuple[int, ...], axis: int, params: Params) -> np.ndarray[Any, Any]:
    """start + j*step at position j along `axis`, the same ramp in every sequence. start and
    step are first rounded to the element type (as values in `data` are); every element must
    then be exactly start + j*step in that type, so the ramp never silently collapses into
    ties or wraps: one that does not fit is an error."""
    start = _param(params, "start", 0, (int, float))
    step = _param(params, "step", 1, (int, float))
    n = shape[axis]
    if is_float(dtype):
        exact = [_in_dtype(value, dtype, name) for name, value in (("start", start), ("step", step))]
        ramp = _exact_float_ramp(exact[0], exact[1], n, dtype)
    else:
        if not isinstance(start, int) or not isinstance(step, int):
            bad = "start" if not isinstance(start, int) else "step"
            raise GeneratorError(
                bad, f"{params.get(bad)!r}: iota's start and step must be integers for {name_of(dtype)}"
            )
        info = np.iinfo(dtype)
        last = start + step * max(n - 1, 0)
        if n and not (info.min <= start <= info.max and info.min <= last <= info.max):
            raise GeneratorError(
                "", f"iota: start + j*step runs {start}..{last} along the axis (length {n}), "
                f"outside {name_of(dtype)}'s range {info.min}..{info.max}"
            )
        ramp = _wrapped(dtype, np.arange(n, dtype=np.uint64) * np.uint64(step % (1 << 64))
                        + np.uint64(start % (1 << 64)))
    along = [1] * len(shape)
    along[axis] = n
    return np.broadcast_to(ramp.reshape(along), shape).copy()


def _exact_float_ramp(start: Fraction, step: Fraction, n: int, dtype: np.dtype[Any]) -> np.ndarray[Any, Any]:
    """start + j*step for j < n in `dtype`, each element exactly that value, or a
    GeneratorError at the first that is not. start and step are dyadic rationals (values of
    a float type): with a common denominator 2**e the ramp is (A + j*B) / 2**e, computed in
    int64 and checked in bulk where it fits, else element by element in exact arithmetic."""
    denominator = max(start.denominator, step.denominator)  # both powers of two
    first = int(start * denominator)
    stride = int(step * denominator) if n > 1 else 0  # one element: step plays no part
    bound = max(abs(first), abs(first + stride * max(n - 1, 0)))
    ramp = np.empty(n, dtype=dtype)
    if bound < 1 << 62:
        exponent = -(denominator.bit_length() - 1)
        for block in range(0, n, _BLOCK):
            end = min(block + _BLOCK, n)
            scaled = first + np.arange(block, end, dtype=np.int64) * stride  # exact: |values| < 2**62
            wide = scaled.astype(np.float64)
            exact = wide.astype(np.int64) == scaled  # the integer survives float64
            wanted = np.ldexp(wide, exponent)  # exact where `exact` (a power-of-two scaling)
            held = _cast(wanted, dtype)
            with np.errstate(invalid="ignore"):
                good = exact & np.isfinite(held.astype(np.float64)) & (held.astype(np.float64) == wanted)
            if not good.all():
                j = block + int(np.flatnonzero(~good)[0])
                _not_exact(start + j * step, float(held.astype(np.float64)[j - block]), j, dtype)
            ramp[block:end] = held
        return ramp
    for j in range(n):  # huge numerators: the first inexact element comes early (see docs)
        want = start + j * step
        got = float(_cast(np.array(float(want), dtype=np.float64), dtype).astype(np.float64))
        if not math.isfinite(got) or Fraction(got) != want:
            _not_exact(want, got, j, dtype)
        ramp[j] = got
    return ramp


def _not_exact(want: Fraction, got: float, j: int, dtype: np.dtype[Any]) -> None:
    try:
        shown = repr(float(want))
    except OverflowError:
        shown = str(want)
    raise GeneratorError(
        "", f"iota: start + j*step = {shown} at j={j} is not exactly "
        f"representable in {name_of(dtype)} ({got!r} there); the ramp must hold exactly"
    )


def _in_dtype(value: int | float, dtype: np.dtype[Any], name: str) -> Fraction:
    """`value` rounded to nearest in the float type `dtype`, exactly."""
    try:
        as_float = float(value)
    except OverflowError:
        raise GeneratorError(name, f"{_shown(value)} is not representable in {name_of(dtype)}") from None
    rounded = _cast(np.array(as_float, dtype=np.float64), dtype).astype(np.float64)
    if not np.isfinite(rounded):
        raise GeneratorError(name, f"{value!r} is not representable in {name_of(dtype)}")
    return Fraction(float(rounded))


def special(dtype: np.dtype[Any], size: int, seed: int, params: Params) -> np.ndarray[Any, Any]:
    """Uniform values in [-1, 1) with NaN, +inf, -inf, +0.0 and -0.0 mixed in at `rate`.
    Draws 0..size-1 make the values, size..2*size-1 pick where specials go, 2*size..3*size-1
    which special."""
    if not is_float(dtype):
        raise GeneratorError("name", f"'special' needs a float dtype, not {name_of(dtype)}")
    value = _param(params, "rate", 0.25, (int, float))
    try:
        rate = float(value)
    except OverflowError:
        rate = math.inf
    if not 0.0 <= rate <= 1.0:
        raise GeneratorError("rate", f"needs 0 <= rate <= 1, got {_shown(value)}")
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0])
    out = np.empty(size, dtype=dtype)
    streams = zip(_blocks(seed, size), _blocks(seed, size, size), _blocks(seed, size, 2 * size), strict=True)
    for (where, values_raw), (_, mixed_raw), (_, choice_raw) in streams:
        values = -1.0 + 2.0 * _unit(values_raw)
        mixed = _unit(mixed_raw) < rate
        choice = (choice_raw % np.uint64(len(specials))).astype(np.int64)
        out[where] = _cast(np.where(mixed, specials[choice], values), dtype)
    return out


def extremes(dtype: np.dtype[Any], size: int, seed: int, params: Params) -> np.ndarray[Any, Any]:
    """The dtype's extremes and their neighbours, drawn at random."""
    if is_float(dtype):
        info = ml_dtypes.finfo(dtype)  # type: ignore[no-untyped-call]
        big = np.array(info.max, dtype=dtype)
        below = _prev_float(big, dtype)
        pool = [big, below, info.tiny, info.smallest_subnormal, 0.0, 1.0]
        positive = [float(v) for v in pool]
        # Widening to float64 and back is exact for every float dtype here.
        candidates = np.array(positive + [-v for v in positive], dtype=np.float64).astype(dtype)
    else:
        info_i = np.iinfo(dtype)
        pool_i = {info_i.min, info_i.min + 1, info_i.max - 1, info_i.max, 0, 1}
        if info_i.min < 0:
            pool_i.add(-1)
        candidates = np.array(sorted(pool_i), dtype=dtype)
    out = np.empty(size, dtype=dtype)
    for where, raw in _blocks(seed, size):
        out[where] = candidates[(raw % np.uint64(len(candidates))).astype(np.int64)]
    return out


def _prev_float(value: np.ndarray[Any, Any], dtype: np.dtype[Any]) -> Any:
    """The next representable value of `dtype` below a positive `value`."""
    bits = np.array(value, dtype=dtype).view(np.dtype(f"u{dtype.itemsize}"))
    return (bits - 1).view(dtype)


GENERATORS: dict[str, Callable[[np.dtype[Any], int, int, Params], np.ndarray[Any, Any]]] = {
    "uniform": uniform,
    "few_distinct": few_distinct,
    "constant": constant,
    "arange": arange,
    "special": special,
    "extremes": extremes,
}

# Generators whose values depend on the position along the case's axis, not on a seed.
AXIS_GENERATORS: dict[str, Callable[[np.dtype[Any], tuple[int, ...], int, Params], np.ndarray[Any, Any]]] = {
    "iota": iota,
}

_COMMON = {"name", "seed"}
_PARAMS = {
    "uniform": {"low", "high"},
    "few_distinct": {"count"},
    "constant": {"value"},
    "arange": {"start", "step"},
    "special": {"rate"},
    "extremes": set(),
    "iota": {"start", "step"},
}


def generate(spec: Params, dtype: np.dtype[Any], shape: tuple[int, ...], axis: int = -1) -> np.ndarray[Any, Any]:
    """The input `spec` describes; `axis` is the case's (iota runs along it). The caller
    bounds the element count (the loader refuses shapes beyond TOPK_MAX_ELEMENTS first)."""
    name = spec["name"]
    unknown = set(spec) - _COMMON - _PARAMS[name]
    if unknown:
        raise GeneratorError(sorted(unknown)[0], f"'{name}' takes no parameter {sorted(unknown)[0]!r}")
    if name in AXIS_GENERATORS:
        return AXIS_GENERATORS[name](dtype, shape, axis % len(shape), spec)
    size = math.prod(shape)  # Python ints: never wraps
    return GENERATORS[name](dtype, size, int(spec.get("seed", 0)), spec).reshape(shape)
