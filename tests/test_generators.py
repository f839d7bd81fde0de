"""Input generators: declared shape and dtype, deterministic from the seed, pinned to recorded
digests (so every machine and numpy version runs the same inputs), and clear errors."""

from __future__ import annotations

import hashlib
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from conformance.cases.generators import AXIS_GENERATORS, GENERATORS, GeneratorError, generate
from conformance.core.dtypes import DTYPES, is_float

FLOAT_DTYPES = [name for name, dtype in DTYPES.items() if is_float(dtype)]
SOME_DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int32", "int64", "uint8",
               "uint64"]


def dtypes_for(generator: str) -> list[str]:
    return [d for d in SOME_DTYPES if generator != "special" or d in FLOAT_DTYPES]


ALL_GENERATORS = [*GENERATORS, *AXIS_GENERATORS]
COMBOS = [(g, d) for g in ALL_GENERATORS for d in dtypes_for(g)]


def raw_bytes(a: np.ndarray[Any, Any]) -> bytes:
    """The array's bits in little-endian order, whatever the machine's."""
    unsigned = np.ascontiguousarray(a).view(np.dtype(f"u{a.dtype.itemsize}"))
    return unsigned.astype(unsigned.dtype.newbyteorder("<")).tobytes()


def digest(a: np.ndarray[Any, Any]) -> str:
    return hashlib.sha256(raw_bytes(a)).hexdigest()


def test_every_generator_is_covered() -> None:
    assert set(ALL_GENERATORS) == {"uniform", "few_distinct", "constant", "arange", "special",
                                   "extremes", "iota"}


def test_every_generator_is_in_the_schema_and_the_readme() -> None:
    from pathlib import Path

    from conformance.cases.loader import case_schema

    names = case_schema()["$defs"]["generator"]["properties"]["name"]["enum"]
    assert sorted(names) == sorted(ALL_GENERATORS)
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    for name in ALL_GENERATORS:
        assert f"`{name}`" in readme, name


@pytest.mark.parametrize("shape", [(7,), (2, 3, 4), (1, 1, 5, 1), (0, 3)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("generator, dtype", COMBOS, ids=[f"{g}-{d}" for g, d in COMBOS])
def test_shape_and_dtype(generator: str, dtype: str, shape: tuple[int, ...]) -> None:
    a = generate({"name": generator, "seed": 3}, DTYPES[dtype], shape)
    assert a.shape == shape
    assert a.dtype == DTYPES[dtype]


@pytest.mark.parametrize("generator, dtype", COMBOS, ids=[f"{g}-{d}" for g, d in COMBOS])
def test_same_seed_same_bytes(generator: str, dtype: str) -> None:
    spec = {"name": generator, "seed": 12345}
    first = generate(spec, DTYPES[dtype], (4, 25))
    second = generate(dict(spec), DTYPES[dtype], (4, 25))
    assert raw_bytes(first) == raw_bytes(second)


@pytest.mark.parametrize(
    "generator, dtype",
    [(g, d) for g in ("uniform", "few_distinct", "special", "extremes") for d in dtypes_for(g)],
)
def test_different_seed_different_bytes(generator: str, dtype: str) -> None:
    a = generate({"name": generator, "seed": 1}, DTYPES[dtype], (200,))
    b = generate({"name": generator, "seed": 2}, DTYPES[dtype], (200,))
    assert raw_bytes(a) != raw_bytes(b)


def test_missing_seed_is_seed_zero() -> None:
    a = generate({"name": "uniform"}, DTYPES["float32"], (10,))
    b = generate({"name": "uniform", "seed": 0}, DTYPES["float32"], (10,))
    assert raw_bytes(a) == raw_bytes(b)


def test_seed_does_not_depend_on_shape_split() -> None:
    # The draws fill the flat tensor: the same count of elements gives the same values.
    a = generate({"name": "uniform", "seed": 4}, DTYPES["int32"], (6, 4))
    b = generate({"name": "uniform", "seed": 4}, DTYPES["int32"], (24,))
    assert raw_bytes(a) == raw_bytes(b)


# Recorded once (numpy 2.4, ml_dtypes 0.6); a change means every generated case changed.
PINNED: list[tuple[str, str, int, tuple[int, ...], dict[str, Any], str]] = [
    ("uniform", "float32", 11, (1, 3, 4, 5), {},
     "cd4fb1646329f324ffeb25d4fd7e444c1cd2da76061127217b6c671bfb76ead9"),
    ("uniform", "int64", 7, (64,), {"low": -(2**63), "high": 2**63},
     "04432cc7ee23bf5edd3b5081e075558a47a95ff1c01617c687f9a24f47f1bb06"),
    ("uniform", "uint64", 7, (64,), {"low": 0, "high": 2**64},
     "77c1cf6a2a5ed8e7efbdf55a18b9470c0e4af871af4e516302bf4881ad5180b1"),
    ("uniform", "bfloat16", 3, (8, 8), {"low": -4.0, "high": 4.0},
     "ac78226cfca9660c801e5aacddcbdf42eba341778b21dbc982fdfea65b375e2e"),
    ("uniform", "int8", 5, (100,), {},
     "9f8834c76876d6b688d9b2943bf8b4fcb4b6f5d4378cd279d6227b478c37094b"),
    ("few_distinct", "float16", 1, (10, 10), {"count": 4},
     "333052b73abefd6cc2c32874e17fdd824897695eb313eb16c912b7eea75fc4cd"),
    ("special", "float64", 2, (50,), {"rate": 0.5},
     "b4f0d647a8a1aa520d5aea047382ebe6217b900c0f9f135774284fbd1ac06792"),
    ("extremes", "int32", 9, (40,), {},
     "a4ddf75d4b32f5226883b39934f4206b28aad33a19b547e693688a63a65b3189"),
    ("extremes", "float16", 9, (40,), {},
     "00bbdeabc2e9b93582fbc96632ce0abf8a3dfc6a1b7d15d66542ff3bc22d4e61"),
    ("arange", "int16", 0, (3, 7), {"start": 100, "step": -3},
     "4fdd43d293c37ba011cefd324547bac55264cfa98f318d78f28237788eec465b"),
    ("constant", "uint8", 0, (5,), {"value": 200},
     "125eeb1ebbd9a6b3781643fe29bd830c766e5372b669d17db04cc9a35de3f3ec"),
]


@pytest.mark.parametrize(
    "generator, dtype, seed, shape, params, sha256", PINNED,
    ids=[f"{g}-{d}-seed{s}" for g, d, s, _, _, _ in PINNED],
)
def test_pinned_digest(
    generator: str, dtype: str, seed: int, shape: tuple[int, ...], params: dict[str, Any],
    sha256: str,
) -> None:
    a = generate({"name": generator, "seed": seed, **params}, DTYPES[dtype], shape)
    assert digest(a) == sha256


def test_openvino_ir_example_input_is_pinned() -> None:
    # cases/documented/openvino-topk11.yaml, ov-topk11-ir-example.
    spec = {"name": "uniform", "seed": 11, "low": -1.0, "high": 1.0}
    a = generate(spec, DTYPES["float32"], (1, 3, 224, 224))
    assert digest(a) == "2bf390fb66892ddba019e551aeeaca50120abc247de51c29810a5a15b29695c6"


# --- what each generator draws -------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_special_mixes_in_every_special_value(dtype: str) -> None:
    a = generate({"name": "special", "seed": 0, "rate": 0.5}, DTYPES[dtype], (1000,))
    wide = a.astype(np.float64)
    assert np.isnan(wide).any()
    assert (wide == np.inf).any()
    assert (wide == -np.inf).any()
    zeros = wide[wide == 0.0]
    assert (~np.signbit(zeros)).any(), "no +0.0"
    assert np.signbit(zeros).any(), "no -0.0"
    # About half are specials; the rest are uniform in [-1, 1).
    specials = np.isnan(wide) | np.isinf(wide) | (wide == 0.0)
    assert 400 <= specials.sum() <= 600
    finite = wide[~specials]
    assert (finite >= -1.0).all() and (finite <= 1.0).all()


def test_special_rate_zero_has_no_specials() -> None:
    a = generate({"name": "special", "seed": 0, "rate": 0}, DTYPES["float32"], (1000,))
    assert np.isfinite(a).all()


@pytest.mark.parametrize("dtype", SOME_DTYPES)
def test_extremes_contains_min_and_max(dtype: str) -> None:
    dt = DTYPES[dtype]
    a = generate({"name": "extremes", "seed": 0}, dt, (1000,))
    info = ml_dtypes.finfo(dt) if is_float(dt) else np.iinfo(dt)
    values = set(a.astype(np.float64).tolist()) if is_float(dt) else set(a.tolist())
    assert float(info.min) in values if is_float(dt) else info.min in values
    assert float(info.max) in values if is_float(dt) else info.max in values
    if is_float(dt):
        assert float(info.smallest_subnormal) in values
        assert not np.isnan(a.astype(np.float64)).any() and np.isfinite(a.astype(np.float64)).all()
    else:
        assert info.min + 1 in values and info.max - 1 in values


@pytest.mark.parametrize("dtype", SOME_DTYPES)
def test_few_distinct_makes_ties(dtype: str) -> None:
    a = generate({"name": "few_distinct", "seed": 0, "count": 3}, DTYPES[dtype], (300,))
    assert sorted(set(a.astype(np.float64).tolist())) == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "uint64", "float16", "float32"])
def test_uniform_stays_in_range(dtype: str) -> None:
    dt = DTYPES[dtype]
    params = {"low": -5.0, "high": 5.0} if is_float(dt) else {"low": 0, "high": 7}
    a = generate({"name": "uniform", "seed": 0, **params}, dt, (2000,)).astype(np.float64)
    assert a.min() >= params["low"] and a.max() <= params["high"]
    assert len(set(a.tolist())) > (6 if not is_float(dt) else 100)


def test_uniform_full_int64_range_reaches_both_halves() -> None:
    a = generate({"name": "uniform", "seed": 0, "low": -(2**63), "high": 2**63},
                 DTYPES["int64"], (200,))
    assert (a < -(2**62)).any() and (a > 2**62).any()


def test_arange_and_constant() -> None:
    a = generate({"name": "arange", "start": 10, "step": -2}, DTYPES["int8"], (2, 3))
    assert a.tolist() == [[10, 8, 6], [4, 2, 0]]
    f = generate({"name": "arange", "start": 0.5, "step": 0.25}, DTYPES["bfloat16"], (4,))
    assert f.astype(np.float64).tolist() == [0.5, 0.75, 1.0, 1.25]
    c = generate({"name": "constant", "value": -3}, DTYPES["int16"], (3,))
    assert c.tolist() == [-3, -3, -3]


# --- iota: a ramp along the case's axis ------------------------------------------------------


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2, -3])
def test_iota_runs_along_the_axis_in_every_sequence(axis: int) -> None:
    shape = (2, 3, 4)
    a = generate({"name": "iota", "start": 5, "step": -2}, DTYPES["int16"], shape, axis)
    j = np.arange(shape[axis])
    along = [1, 1, 1]
    along[axis] = shape[axis]
    assert (a == np.broadcast_to((5 - 2 * j).reshape(along), shape)).all()
    # Every sequence along the axis is the same ramp.
    rows = np.moveaxis(a, axis, -1).reshape(-1, shape[axis])
    assert (rows == rows[0]).all() and rows[0].tolist() == (5 - 2 * j).tolist()


def test_iota_defaults_and_seed_do_not_matter() -> None:
    a = generate({"name": "iota"}, DTYPES["uint8"], (2, 5), 1)
    b = generate({"name": "iota", "seed": 9, "start": 0, "step": 1}, DTYPES["uint8"], (2, 5), -1)
    assert a.tolist() == b.tolist() == [[0, 1, 2, 3, 4]] * 2


@pytest.mark.parametrize(
    "dtype, start, step, n, want",
    [
        ("int64", 2**53 + 1, 2**53, 3, [2**53 + 1, 2**54 + 1, 3 * 2**53 + 1]),  # not via float
        ("int64", 2**63 - 3, 1, 3, [2**63 - 3, 2**63 - 2, 2**63 - 1]),
        ("uint64", 2**64 - 1, -(2**62), 4, [2**64 - 1 - i * 2**62 for i in range(4)]),
        ("int8", -128, 85, 4, [-128, -43, 42, 127]),
        ("float16", 2040, 1, 9, [2040.0 + i for i in range(9)]),
        ("float16", 0, 2**-24, 3, [0.0, 2**-24, 2**-23]),  # subnormals
        ("bfloat16", -1, 0.25, 9, [-1 + 0.25 * i for i in range(9)]),
        ("float32", 0.5, 0.125, 5, [0.5, 0.625, 0.75, 0.875, 1.0]),
        ("float32", 2**24 - 2, 1, 3, [2.0**24 - 2, 2.0**24 - 1, 2.0**24]),
        ("float64", 2**53 - 2, 1, 3, [2.0**53 - 2, 2.0**53 - 1, 2.0**53]),
        ("float32", 1, 0, 3, [1.0, 1.0, 1.0]),
    ],
)
def test_iota_values_are_exact(dtype: str, start: Any, step: Any, n: int, want: list[Any]) -> None:
    a = generate({"name": "iota", "start": start, "step": step}, DTYPES[dtype], (2, n), 1)
    assert a.dtype == DTYPES[dtype]
    got = a.astype(np.float64).tolist() if is_float(DTYPES[dtype]) else a.tolist()
    assert got == [want, want]


@pytest.mark.parametrize(
    "spec, dtype, n, field",
    [
        ({"start": 120, "step": 5}, "int8", 3, ""),  # 130 leaves int8
        ({"start": 0, "step": -1}, "uint8", 2, ""),
        ({"start": 2**63 - 1, "step": 1}, "int64", 2, ""),
        ({"start": 0, "step": 1}, "float16", 2050, ""),  # 2049 is not a float16
        ({"start": 2**24, "step": 1}, "float32", 2, ""),
        ({"start": 0.1, "step": 0.1}, "float32", 4, ""),  # 0.3 is not 3 * float32(0.1)
        ({"start": 60000, "step": 10000}, "float16", 2, ""),  # 70000 overflows to inf
        ({"step": 0.5}, "int32", 3, "step"),
        ({"start": 1.5}, "int32", 3, "start"),
        ({"start": 1e6}, "float16", 3, "start"),
        ({"step": "big"}, "float32", 3, "step"),
        ({"rate": 0.5}, "float32", 3, "rate"),
    ],
)
def test_iota_that_does_not_fit_is_an_error(spec: dict[str, Any], dtype: str, n: int, field: str) -> None:
    with pytest.raises(GeneratorError) as info:
        generate({"name": "iota", **spec}, DTYPES[dtype], (3, n), -1)
    assert info.value.field == field
    assert str(info.value)


# --- bad parameters ------------------------------------------------------------------------

BAD: list[tuple[dict[str, Any], str, str]] = [
    # spec, dtype, field named
    ({"name": "few_distinct", "count": 0}, "float32", "count"),
    ({"name": "few_distinct", "count": 101}, "int32", "count"),
    ({"name": "few_distinct", "count": 2.5}, "int32", "count"),
    ({"name": "uniform", "low": 1.0, "high": 1.0}, "float32", "high"),
    ({"name": "uniform", "low": 0, "high": 300}, "uint8", "high"),
    ({"name": "uniform", "low": 0.5}, "int32", "low"),
    ({"name": "uniform", "high": "big"}, "float32", "high"),
    ({"name": "uniform", "count": 3}, "float32", "count"),
    ({"name": "special"}, "int32", "name"),
    ({"name": "special", "rate": 1.5}, "float32", "rate"),
    ({"name": "constant", "value": 256}, "uint8", "value"),
    ({"name": "constant", "value": True}, "float32", "value"),
    ({"name": "arange", "start": 120, "step": 10}, "int8", "step"),
    ({"name": "arange", "step": 0.5}, "int32", "step"),
    ({"name": "extremes", "seed": 1, "rate": 0.5}, "float32", "rate"),
]


@pytest.mark.parametrize("spec, dtype, field", BAD,
                         ids=[f"{s['name']}-{f}-{d}" for s, d, f in BAD])
def test_bad_params_name_the_field(spec: dict[str, Any], dtype: str, field: str) -> None:
    with pytest.raises(GeneratorError) as info:
        generate(spec, DTYPES[dtype], (4, 5))
    assert info.value.field == field
    assert str(info.value)
