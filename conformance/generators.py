"""Input generators: deterministic from their seed on every machine and numpy version.

Every draw comes from the raw 64-bit output of PCG64, whose algorithm is fixed, and is
mapped to values here with plain integer and float arithmetic; numpy's distribution
methods are not used, since their streams may change between numpy versions."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np
from numpy.random import PCG64, Generator

from conformance.dtypes import is_float, name_of


class GeneratorError(ValueError):
    """Bad generator parameters; `field` names the parameter ("" for the generator as a
    whole, where no one parameter is to blame)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


Params = Mapping[str, Any]


def _raw(seed: int, count: int) -> np.ndarray[Any, Any]:
    rng = Generator(PCG64(seed))
    return rng.bit_generator.random_raw(count).astype(np.uint64)


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
    wrapped = (offsets + np.uint64(low % (1 << 64))).astype(np.uint64)
    if dtype == np.uint64:
        return wrapped
    return wrapped.view(np.int64).astype(dtype)


def _param(params: Params, name: str, default: Any, kind: type | tuple[type, ...]) -> Any:
    value = params.get(name, default)
    if isinstance(value, bool) or not isinstance(value, kind):
        wanted = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise GeneratorError(name, f"{value!r} is not a {wanted}")
    return value


def uniform(dtype: np.dtype[Any], size: int, seed: int, params: Params) -> np.ndarray[Any, Any]:
    raw = _raw(seed, size)
    if is_float(dtype):
        low = float(_param(params, "low", -1.0, (int, float)))
        high = float(_param(params, "high", 1.0, (int, float)))
        if not low < high:
            raise GeneratorError("high", f"needs low < high, got {low} and {high}")
        return _cast(low + (high - low) * _unit(raw), dtype)
    info = np.iinfo(dtype)
    low = int(_param(params, "low", max(info.min, -100), int))
    high = int(_param(params, "high", min(info.max + 1, 101), int))
    if not info.min <= low < high <= info.max + 1:
        raise GeneratorError("high", f"needs {info.min} <= low < high <= {info.max + 1}")
    return _int_range(dtype, low, high, raw)


def few_distinct(dtype: np.dtype[Any], size: int, seed: int, params: Params) -> np.ndarray[Any, Any]:
    """Values from {0, 1, ..., count-1}: heavy ties."""
    count = int(_param(params, "count", 3, int))
    if not 1 <= count <= 100:
        raise GeneratorError("count", f"needs 1 <= count <= 100, got {count}")
    return _cast((_raw(seed, size) % np.uint64(count)).astype(np.int64), dtype)


def constant(dtype: np.dtype[Any], size: int, seed: int, params: Params) -> np.ndarray[Any, Any]:
    if is_float(dtype):
        value = float(_param(params, "value", 0.0, (int, float)))
        return _cast(np.full(size, value, dtype=np.float64), dtype)
    value_i = int(_param(params, "value", 0, int))
    info = np.iinfo(dtype)
    if not info.min <= value_i <= info.max:
        raise GeneratorError("value", f"{value_i} is not representable in {name_of(dtype)}")
    return np.full(size, value_i, dtype=dtype)


def arange(dtype: np.dtype[Any], size: int, seed: int, params: Params) -> np.ndarray[Any, Any]:
    """start, start+step, ... in flat order (descending with a negative step)."""
    start = _param(params, "start", 0, (int, float))
    step = _param(params, "step", 1, (int, float))
    if is_float(dtype):
        return _cast(start + step * np.arange(size, dtype=np.float64), dtype)
    if not isinstance(start, int) or not isinstance(step, int):
        raise GeneratorError("step", f"start and step must be integers for {name_of(dtype)}")
    info = np.iinfo(dtype)
    last = start + step * max(size - 1, 0)
    if not (info.min <= start <= info.max and info.min <= last <= info.max):
        raise GeneratorError("step", f"{start}..{last} leaves the range of {name_of(dtype)}")
    return np.array([start + step * i for i in range(size)], dtype=dtype)


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
        wanted = [exact[0] + j * exact[1] for j in range(n)]
        ramp = _cast(np.array([float(v) for v in wanted], dtype=np.float64), dtype)
        held = ramp.astype(np.float64).tolist()
        for j, (want, got) in enumerate(zip(wanted, held, strict=True)):
            if not np.isfinite(got) or Fraction(got) != want:
                raise GeneratorError(
                    "", f"iota: start + j*step = {float(want)!r} at j={j} is not exactly "
                    f"representable in {name_of(dtype)} ({got!r} there); the ramp must hold exactly"
                )
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
        ramp = np.array([start + j * step for j in range(n)], dtype=dtype)
    along = [1] * len(shape)
    along[axis] = n
    return np.broadcast_to(ramp.reshape(along), shape).copy()


def _in_dtype(value: int | float, dtype: np.dtype[Any], name: str) -> Fraction:
    """`value` rounded to nearest in the float type `dtype`, exactly."""
    try:
        as_float = float(value)
    except OverflowError:
        raise GeneratorError(name, f"{value!r} is not representable in {name_of(dtype)}") from None
    rounded = _cast(np.array(as_float, dtype=np.float64), dtype).astype(np.float64)
    if not np.isfinite(rounded):
        raise GeneratorError(name, f"{value!r} is not representable in {name_of(dtype)}")
    return Fraction(float(rounded))


def special(dtype: np.dtype[Any], size: int, seed: int, params: Params) -> np.ndarray[Any, Any]:
    """Uniform values in [-1, 1) with NaN, +inf, -inf, +0.0 and -0.0 mixed in at `rate`."""
    if not is_float(dtype):
        raise GeneratorError("name", f"'special' needs a float dtype, not {name_of(dtype)}")
    rate = float(_param(params, "rate", 0.25, (int, float)))
    if not 0.0 <= rate <= 1.0:
        raise GeneratorError("rate", f"needs 0 <= rate <= 1, got {rate}")
    raw = _raw(seed, 3 * size)
    values = -1.0 + 2.0 * _unit(raw[:size])
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0])
    mixed = _unit(raw[size : 2 * size]) < rate
    choice = (raw[2 * size :] % np.uint64(len(specials))).astype(np.int64)
    return _cast(np.where(mixed, specials[choice], values), dtype)


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
    choice = (_raw(seed, size) % np.uint64(len(candidates))).astype(np.int64)
    return candidates[choice]


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
    """The input `spec` describes; `axis` is the case's (iota runs along it)."""
    name = spec["name"]
    unknown = set(spec) - _COMMON - _PARAMS[name]
    if unknown:
        raise GeneratorError(sorted(unknown)[0], f"'{name}' takes no parameter {sorted(unknown)[0]!r}")
    if name in AXIS_GENERATORS:
        return AXIS_GENERATORS[name](dtype, shape, axis % len(shape), spec)
    size = int(np.prod(shape, dtype=np.int64))
    return GENERATORS[name](dtype, size, int(spec.get("seed", 0)), spec).reshape(shape)
