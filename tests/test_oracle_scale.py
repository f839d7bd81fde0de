"""The linear-time oracle and judge against the simple ones they replaced: the oracle's full
stable argsort on float64-widened keys, and the judge's whole-input counting. Every dtype,
both directions, K from 0 to n, tie-heavy and special-value inputs; with the oracle's block,
sample and chunk sizes shrunk so that small inputs take every path that long ones take
(pieces of a long row, sampled bounds, tie-heavy fall-backs). Also: keys in the input's own
width order like the old float64 keys, NaN found in the input's own type, long sequences
summarized in discrepancy records, and memory bounded on a large input."""

from __future__ import annotations

import math
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import ALL_PROFILES, TopKInput, property_settings, tensors, topk_inputs

from conformance.core import keys
from conformance.core.dtypes import DTYPES, is_float, to_jsonable
from conformance.operator.discrepancy import LONG_SEQUENCE, kept_elements, shown
from conformance.operator.fuzzing import any_element, special_values
from conformance.operator.outcome import Outputs
from conformance.ops.topk import judge as judge_module
from conformance.ops.topk import oracle, profiles
from conformance.ops.topk.case import Case
from conformance.ops.topk.judge import judge, topk_outputs
from conformance.ops.topk.oracle import Answer, directml_answer, in_order
from conformance.ops.topk.profiles import Profile

pytestmark = pytest.mark.filterwarnings(
    "ignore:invalid value encountered in (cast|add):RuntimeWarning"
)




# --- the replaced implementations, kept as references -------------------------------------

_SIGN = np.uint64(1 << 63)


def old_value_key(x: np.ndarray[Any, Any], nan_high: bool = True) -> np.ndarray[Any, Any]:
    """The old key: every float widened to float64, every integer to int64 (or uint64)."""
    if is_float(x.dtype):
        with np.errstate(invalid="ignore"):
            wide = x.astype(np.float64) + 0.0
        bits = wide.view(np.uint64)
        key = np.where(bits & _SIGN, ~bits, bits | _SIGN)
        return np.where(np.isnan(wide), np.uint64(2**64 - 1) if nan_high else np.uint64(0), key)
    if x.dtype == np.uint64:
        return x.copy()
    return x.astype(np.int64)


def old_better_key(x: np.ndarray[Any, Any], largest: bool, nan_high: bool = True) -> np.ndarray[Any, Any]:
    key = old_value_key(x, nan_high)
    return key if largest else ~key


def old_rows(x: np.ndarray[Any, Any], axis: int) -> np.ndarray[Any, Any]:
    moved = np.moveaxis(x, axis, -1)
    return moved.reshape(int(np.prod(moved.shape[:-1], dtype=np.int64)), moved.shape[-1])


def old_directml_answer(x: np.ndarray[Any, Any], axis: int, k: int, largest: bool) -> Answer:
    """The old oracle: a full stable argsort of every sequence."""
    axis = axis % x.ndim
    rows = old_rows(x, axis)
    order = np.argsort(~old_better_key(rows, largest), axis=1, kind="stable")[:, :k]
    values = np.take_along_axis(rows, order, axis=1)
    moved_shape = (*(d for i, d in enumerate(x.shape) if i != axis), k)
    return Answer(np.moveaxis(values.reshape(moved_shape), -1, axis),
                  np.moveaxis(order.astype(np.int64).reshape(moved_shape), -1, axis))


def old_row_rules(case: Case, profile: Profile, v_rows: np.ndarray[Any, Any],
                  i_rows: np.ndarray[Any, Any]) -> dict[str, np.ndarray[Any, Any]]:
    """The old judge's per-sequence rules: counting over whole float64-keyed inputs."""
    x_rows = old_rows(case.x, case.axis_index)
    rows, n = x_rows.shape
    in_range = (i_rows >= 0) & (i_rows < n)
    bad_range = ~in_range.all(axis=1)
    idx = np.where(in_range, i_rows, 0).astype(np.int64)
    flat = (np.arange(rows, dtype=np.int64)[:, None] * n + idx)[in_range]
    counts = np.bincount(flat, minlength=rows * n).reshape(rows, n)
    bad_unique = np.asarray((counts > 1).any(axis=1))
    valid = ~(bad_range | bad_unique)
    gathered = np.take_along_axis(x_rows, idx, axis=1)
    unsigned = np.dtype(f"u{gathered.dtype.itemsize}")
    same = np.ascontiguousarray(gathered).view(unsigned) == np.ascontiguousarray(
        v_rows.astype(gathered.dtype)).view(unsigned)
    bad = {"index-range": bad_range, "index-unique": bad_unique,
           "gather": ~same.all(axis=1) & ~bad_range}
    if i_rows.shape[1] == 0:
        return bad

    def order_rules(nan_high: bool) -> dict[str, np.ndarray[Any, Any]]:
        keys_ = old_better_key(x_rows, case.largest, nan_high)
        chosen = np.take_along_axis(keys_, idx, axis=1)
        worst = chosen.min(axis=1)[:, None]
        bad_selection = (keys_ > worst).sum(axis=1) != (chosen > worst).sum(axis=1)
        if profile.strict_ties:
            at_boundary = chosen == worst
            taken = at_boundary.sum(axis=1)
            highest_taken = np.where(at_boundary, idx, -1).max(axis=1)[:, None]
            positions = np.arange(n)[None, :]
            below = ((keys_ == worst) & (positions <= highest_taken)).sum(axis=1)
            bad_selection |= below != taken
        if profile.order == "value":
            bad_order = (chosen[:, :-1] < chosen[:, 1:]).any(axis=1)
        elif profile.order == "index":
            bad_order = (idx[:, :-1] >= idx[:, 1:]).any(axis=1)
        else:
            bad_order = np.zeros(rows, dtype=bool)
        bad_tie_order = np.zeros(rows, dtype=bool)
        if profile.strict_ties and profile.order == "value":
            tied = chosen[:, :-1] == chosen[:, 1:]
            bad_tie_order = (tied & (idx[:, :-1] > idx[:, 1:])).any(axis=1)
        return {"selection": bad_selection & valid, "order": bad_order & valid,
                "tie-order": bad_tie_order & valid}

    with np.errstate(invalid="ignore"):
        nan_rows = np.isnan(x_rows.astype(np.float64)).any(axis=1) if is_float(x_rows.dtype) \
            else np.zeros(rows, dtype=bool)
    high = order_rules(True)
    if nan_rows.any():
        low = order_rules(False)
        if not any(mask[nan_rows].any() for mask in high.values()):
            placed = high
        elif not any(mask[nan_rows].any() for mask in low.values()):
            placed = low
        else:
            placed = {rule: high[rule] & low[rule] for rule in high}
            either = np.logical_or.reduce([high[rule] | low[rule] for rule in high])
            bad["nan-order"] = nan_rows & either
        bad.update(placed)
    else:
        bad.update(high)
    return bad


# --- small sizes: every path of a long input on a small one -------------------------------


@dataclass(frozen=True)
class Sizes:
    block: int
    sample_step: int
    sampled_from: int
    full_sort_up_to: int
    chunk: int
    ties_prefix: int = oracle.TIES_PREFIX
    crowd_from: int = oracle.CROWD_FROM
    crowd_sample: int = oracle.CROWD_SAMPLE
    parallel_from: int = oracle.PARALLEL_FROM
    threads: int | None = oracle.THREADS


DEFAULT_SIZES = Sizes(oracle.BLOCK, oracle.SAMPLE_STEP, oracle.SAMPLED_FROM,
                      oracle.FULL_SORT_UP_TO, keys.CHUNK, oracle.TIES_PREFIX)
SIZE_NAMES = {"block": "BLOCK", "sample_step": "SAMPLE_STEP", "sampled_from": "SAMPLED_FROM",
              "full_sort_up_to": "FULL_SORT_UP_TO", "ties_prefix": "TIES_PREFIX",
              "crowd_from": "CROWD_FROM", "crowd_sample": "CROWD_SAMPLE",
              "parallel_from": "PARALLEL_FROM", "threads": "THREADS"}


@contextmanager
def sizes(chosen: Sizes) -> Iterator[None]:
    saved = {name: getattr(oracle, name) for name in SIZE_NAMES.values()}, keys.CHUNK
    for field, name in SIZE_NAMES.items():
        setattr(oracle, name, getattr(chosen, field))
    keys.CHUNK = chosen.chunk
    try:
        yield
    finally:
        for name, value in saved[0].items():
            setattr(oracle, name, value)
        keys.CHUNK = saved[1]


small_sizes = st.builds(
    Sizes, block=st.integers(4, 64), sample_step=st.integers(2, 4),
    sampled_from=st.integers(4, 32), full_sort_up_to=st.integers(1, 8), chunk=st.integers(1, 16),
    ties_prefix=st.integers(1, 8), crowd_from=st.integers(4, 64), crowd_sample=st.integers(3, 16),
    parallel_from=st.integers(0, 64), threads=st.integers(1, 4),
)
any_sizes = st.one_of(st.just(DEFAULT_SIZES), small_sizes)


@st.composite
def long_rows(draw: st.DrawFn) -> TopKInput:
    """1-3 sequences of up to 1500 elements, any dtype, tie-heavy or special data, small
    K mostly (the sampled path) but any K in [0, n]."""
    dtype = DTYPES[draw(st.sampled_from(sorted(DTYPES)))]
    rows = draw(st.integers(1, 3))
    n = draw(st.integers(1, 1500))
    x = draw(tensors(dtype, (rows, n)))
    k = draw(st.one_of(st.integers(0, min(n, 8)), st.integers(0, n)))
    axis = draw(st.sampled_from([-1, 0, 1]))
    if axis == 0:
        x = np.ascontiguousarray(x.T)  # sequences along the first axis: a strided layout
    return TopKInput(x, axis, k, draw(st.booleans()))


@st.composite
def tie_heavy_rows(draw: st.DrawFn) -> TopKInput:
    """1-4 sequences of up to 3000 elements drawn from a pool of 2 to 40 values, some far
    more often than others: the dtype's special ones (-0.0 and +0.0, NaN with and without
    sign and payload, infinities, extremes) and any others; every dtype; small K mostly,
    but any K in [0, n]. The K-th best is tied with many, near the front of the row or far
    from it."""
    dtype = DTYPES[draw(st.sampled_from(sorted(DTYPES)))]
    pool = draw(st.lists(st.one_of(st.sampled_from(special_values(dtype)), any_element(dtype)),
                         min_size=2, max_size=40, unique=True))
    rows, n = draw(st.integers(1, 4)), draw(st.integers(1, 3000))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    storage = keys.key_dtype(dtype) if is_float(dtype) else dtype
    weights = rng.dirichlet(np.full(len(pool), 0.5))
    x = rng.choice(np.array(pool, dtype=storage), size=(rows, n), p=weights).view(dtype)
    k = draw(st.one_of(st.integers(0, min(n, 16)), st.integers(0, n)))
    axis = draw(st.sampled_from([-1, 0]))
    if axis == 0:
        x = np.ascontiguousarray(x.T)  # sequences along the first axis: a strided layout
    return TopKInput(x, axis, k, draw(st.booleans()))


def bits(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return np.ascontiguousarray(a).view(np.dtype(f"u{a.dtype.itemsize}"))


def assert_same_answer(got: Answer, want: Answer) -> None:
    assert got.indices.shape == want.indices.shape
    np.testing.assert_array_equal(got.indices, want.indices)
    assert got.values.dtype == want.values.dtype
    np.testing.assert_array_equal(bits(got.values), bits(want.values))


@property_settings(max_examples=300)
@given(topk_inputs(), any_sizes)
def test_fast_oracle_matches_the_full_sort(inp: TopKInput, chosen: Sizes) -> None:
    with sizes(chosen):
        got = directml_answer(inp.x, inp.axis, inp.k, inp.largest)
    assert_same_answer(got, old_directml_answer(inp.x, inp.axis, inp.k, inp.largest))


@property_settings(max_examples=300)
@given(long_rows(), any_sizes)
def test_fast_oracle_matches_the_full_sort_on_long_rows(inp: TopKInput, chosen: Sizes) -> None:
    want = old_directml_answer(inp.x, inp.axis, inp.k, inp.largest)
    with sizes(chosen):
        assert_same_answer(directml_answer(inp.x, inp.axis, inp.k, inp.largest), want)
        told = oracle.nan_rows(inp.x, inp.axis)
        assert_same_answer(directml_answer(inp.x, inp.axis, inp.k, inp.largest, told), want)


@property_settings(max_examples=300)
@given(tie_heavy_rows(), any_sizes)
def test_fast_oracle_matches_the_full_sort_on_tie_heavy_rows(inp: TopKInput, chosen: Sizes) -> None:
    want = old_directml_answer(inp.x, inp.axis, inp.k, inp.largest)
    with sizes(chosen):
        assert_same_answer(directml_answer(inp.x, inp.axis, inp.k, inp.largest), want)
        # Told which sequences hold NaN, as a case tells it (no pass of its own to find out).
        told = oracle.nan_rows(inp.x, inp.axis)
        assert_same_answer(directml_answer(inp.x, inp.axis, inp.k, inp.largest, told), want)


ADVERSARIAL = ["constant", "two-values", "ascending", "descending", "special", "off-sample", "on-sample"]
# Pieces of a row (blocks of 32 or 7), whole rows a block at a time (blocks of 2000), and
# both on several threads.
ADVERSARIAL_SIZES = (DEFAULT_SIZES, Sizes(32, 2, 16, 4, 8, 2), Sizes(7, 3, 4, 1, 1, 1), Sizes(2000, 2, 16, 4, 8, 2),
                     Sizes(2000, 2, 16, 4, 8, 2, 16, 8, 0, 3), Sizes(64, 2, 16, 4, 8, 2, 16, 8, 0, 2))


def adversarial_row(data: str, dtype: str, n: int, k: int, largest: bool, block: int) -> np.ndarray[Any, Any]:
    """A row where a sample bounds nothing (all ties, sorted, the worst values on the
    sample's places and the others off them) or too much (the best values on the sample's
    places), or of special values."""
    ramp = np.arange(n) % (100 if dtype.endswith("8") else n)
    step = oracle.sample_step(min(n, block), max(k, 1))
    x = {
        "constant": np.zeros(n),
        "two-values": (np.arange(n) % 7 == 3).astype(np.float64),
        "ascending": ramp,
        "descending": ramp[::-1],
        "special": np.resize([np.nan, 0.0, -0.0, np.inf, -np.inf, 1.0, -np.nan], n)
        if dtype.startswith(("float", "bfloat")) else np.resize([0, 1, -1, 127], n),
        "off-sample": np.where(np.arange(n) % step == 0, 0 if largest else 127, ramp % 100 + 1),
        "on-sample": np.where(np.arange(n) % step == 0, ramp % 100 + (1 if largest else 0), 0 if largest else 127),
    }[data]
    with np.errstate(invalid="ignore", over="ignore"):
        typed: np.ndarray[Any, Any] = x.astype(DTYPES[dtype])
    return typed


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("data", [*ADVERSARIAL, "all at once"])
def test_fast_oracle_on_adversarial_rows(dtype: str, largest: bool, data: str) -> None:
    """Adversarial rows (one at a time, or every kind in one input: rows of one block taking
    different paths), for K from 0 to n (every small K, then a spread), through every path,
    on one thread and on several."""
    n = 300
    for chosen in ADVERSARIAL_SIZES:
        with sizes(chosen):
            for k in sorted({*range(21), *range(21, n, 13), n - 1, n}):
                kinds = ADVERSARIAL if data == "all at once" else [data]
                typed = np.stack([adversarial_row(kind, dtype, n, k, largest, chosen.block) for kind in kinds])
                got = directml_answer(typed, -1, k, largest)
                assert_same_answer(got, old_directml_answer(typed, -1, k, largest))


@pytest.mark.parametrize("dtype", ["float32", "int64", "bfloat16", "uint8"])
@pytest.mark.parametrize("largest", [True, False])
def test_fast_oracle_retries_the_rows_its_bound_was_too_good_for(
    dtype: str, largest: bool, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The sample's j-th best (j < K, `sample_reach`, here for 202 rows) can be better than the row's K-th best:
    where the best values sit on the sample's places (distinct, or each twice: the sample
    then foretells ties the row does not hold), and now and then by chance (distinct
    values, 200 rows). Those rows are done again with the sample's K-th best."""
    safe_calls: list[bool] = []
    original = oracle._select_sampled

    def spy(c: np.ndarray[Any, Any], k: int, largest: bool, safe: bool = False) -> np.ndarray[Any, Any]:
        safe_calls.append(safe)
        return original(c, k, largest, safe)

    monkeypatch.setattr(oracle, "_select_sampled", spy)
    rng = np.random.default_rng(5)
    n = 4000
    for k in (5, 10, 20, 40):
        with sizes(Sizes(oracle.BLOCK, 2, 16, 64, keys.CHUNK)):
            step = oracle.sample_step(n, k)
            assert oracle.sample_reach(step, k, 202) < k
            on_sample = np.arange(n) % step == 0
            distinct = np.where(on_sample, n + np.arange(n), np.arange(n) % 7)
            pairs = np.where(on_sample, n + np.arange(n) // (2 * step), np.arange(n) % 7)
            rows = np.stack([distinct, pairs, *(rng.permutation(n) for _ in range(200))])
            with np.errstate(invalid="ignore", over="ignore"):
                x = (rows if largest else -rows).astype(DTYPES[dtype])
            got = directml_answer(x, -1, k, largest)
        assert_same_answer(got, old_directml_answer(x, -1, k, largest))
    if dtype in ("float32", "int64"):  # exact values: the retries happen
        assert any(safe_calls)


# --- keys ------------------------------------------------------------------------------------


@property_settings(max_examples=200)
@given(topk_inputs(), st.booleans(), st.integers(1, 64))
def test_own_width_keys_order_like_the_float64_keys(inp: TopKInput, nan_high: bool, chunk: int) -> None:
    x = inp.x.ravel()
    new = keys.value_key(x, nan_high)
    assert new.dtype == np.dtype(f"u{x.dtype.itemsize}")
    # The same ranks: the same order and the same ties.
    np.testing.assert_array_equal(np.unique(new, return_inverse=True)[1],
                                  np.unique(old_value_key(x, nan_high), return_inverse=True)[1])
    with sizes(Sizes(oracle.BLOCK, 16, 4096, 64, chunk)):
        with np.errstate(invalid="ignore"):
            want = is_float(x.dtype) and bool(np.isnan(inp.x.astype(np.float64)).any())
        assert keys.has_nan(inp.x) == want
        assert keys.has_nan(np.moveaxis(inp.x, inp.axis, -1)) == want  # a strided layout


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_nan_found_in_the_own_type_with_any_payload(dtype: str) -> None:
    d = DTYPES[dtype]
    width = 8 * d.itemsize
    exponent = keys._exponent_bits(d)
    patterns = [exponent | 1, exponent | (exponent >> 1), (1 << width) - 1, exponent,
                (1 << (width - 1)) | exponent, 0, 1 << (width - 1)]
    x = np.array(patterns, dtype=f"u{d.itemsize}").view(d)
    assert keys.nan_mask(x).tolist() == [True, True, True, False, False, False, False]
    key = keys.value_key(x)
    assert key[:3].tolist() == [(1 << width) - 1] * 3  # NaN above +inf
    assert key[5] == key[6]  # -0.0 ties +0.0
    assert key[4] < key[5] < key[3]  # -inf < 0 < +inf


def test_keys_of_bfloat16_do_not_widen() -> None:
    x = np.array([1.5, -2.0, 0.0], dtype=ml_dtypes.bfloat16)
    assert keys.value_key(x).dtype == np.uint16
    assert keys.value_key(np.array([-3, 4], dtype=np.int8)).dtype == np.uint8


# --- the judge: the same rules as the whole-input counting ---------------------------------


@st.composite
def judged_outputs(draw: st.DrawFn) -> tuple[TopKInput, Profile, Outputs]:
    """An input, a profile and an output near the DirectML answer or far from it: the
    answer itself, reordered, with an index replaced, random indices (out of range and
    repeated too), values not the input's."""
    inp = draw(st.one_of(topk_inputs(), long_rows(), tie_heavy_rows()))
    profile = draw(st.sampled_from(ALL_PROFILES))
    answer = in_order(old_directml_answer(inp.x, inp.axis, inp.k, inp.largest), inp.axis, profile.order)
    axis = inp.axis_index
    rows = old_rows(answer.indices, axis).copy()
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    mode = draw(st.sampled_from(["answer", "permuted", "replaced", "random", "wild"]))
    if rows.size:
        if mode == "permuted":
            rows = rng.permuted(rows, axis=1)
        elif mode == "replaced":
            r, p = rng.integers(rows.shape[0]), rng.integers(rows.shape[1])
            rows[r, p] = rng.integers(inp.n)
        elif mode == "random":
            rows = np.stack([rng.choice(inp.n, inp.k, replace=False) for _ in rows]) if inp.n else rows
        elif mode == "wild":
            rows = rng.integers(-1, inp.n + 1, size=rows.shape)
    moved_shape = (*np.moveaxis(answer.indices, axis, -1).shape[:-1], inp.k)
    indices = np.moveaxis(rows.reshape(moved_shape), -1, axis)
    safe = np.clip(indices, 0, max(inp.n - 1, 0))
    values = np.take_along_axis(inp.x, safe, axis=axis) if inp.x.size else answer.values.copy()
    if draw(st.booleans()) and values.size:
        flat = bits(values).copy().ravel()
        flat[rng.integers(flat.size)] ^= 1
        values = flat.reshape(values.shape).view(values.dtype)
    index_dtype = profile.index_dtype
    if np.issubdtype(index_dtype, np.unsignedinteger):
        indices = np.where(indices < 0, np.iinfo(index_dtype).max, indices)
    return inp, profile, topk_outputs(values, indices.astype(index_dtype))


def rules_of(case: Case, profile: Profile, out: Outputs, **kwargs: Any) -> dict[str, list[bool]]:
    axis = case.axis_index
    v_rows = old_rows(out["values"], axis)
    i_rows = old_rows(out["indices"], axis)
    if kwargs.pop("old", False):
        found = old_row_rules(case, profile, v_rows, i_rows)
    else:
        found = judge_module._row_rules(case, profile, v_rows, i_rows, **kwargs)
    return {rule: mask.tolist() for rule, mask in found.items()}


@property_settings(max_examples=300)
@given(judged_outputs(), any_sizes)
def test_judge_rules_match_the_whole_input_counting(judged: tuple[TopKInput, Profile, Outputs],
                                                    chosen: Sizes) -> None:
    inp, profile, out = judged
    with sizes(chosen):
        case = inp.case()
        want = rules_of(case, profile, out, old=True)
        assert rules_of(case, profile, out) == want
        assert rules_of(inp.case(), profile, out, shortcut=False) == want
        # And the verdicts (the messages may show long sequences summarized).
        fast = judge(inp.case(), profile, out)
    assert fast.rules == tuple(rule for rule in judge_module.RULES if any(want.get(rule, [])))


# --- discrepancy records ---------------------------------------------------------------------


def expand(field: Any) -> dict[int, Any]:
    """Position -> element of a record's sequence, summarized or not."""
    length, kept = kept_elements(field)
    if isinstance(field, list):
        assert (length, kept) == (len(field), dict(enumerate(field)))
        return kept
    assert field["summarized"] is True and field["length"] == length
    previous_stop = -1
    for start, values in field["segments"]:
        assert start > previous_stop  # ascending and apart
        previous_stop = start + len(values)
    assert previous_stop <= length and max(kept) < length
    return kept


def test_a_long_sequence_is_summarized_around_where_it_differs() -> None:
    n = 100_000
    x = np.linspace(-1.0, 1.0, n, dtype=np.float32)[None, :]
    x[0, 50_000] = np.nan
    case = Case(id="long", source="test", file=Path("long.yaml"), x=x, axis=-1, k=3)
    # NaN taken last when largest, then 1.0 and the one below: no placement of NaN explains it.
    out = topk_outputs(x[:, [n - 1, n - 2, 50_000]], np.array([[n - 1, n - 2, 50_000]], dtype=np.int64))
    judgement = judge(case, profiles.onnx(True), out)
    assert judgement.verdict == "fail" and "nan-order" in judgement.rules
    note = judgement.discrepancy
    assert note is not None
    assert note["indices"] == [n - 1, n - 2, 50_000]  # short: whole lists, as before
    assert note["expected_indices"] == [50_000, n - 1, n - 2]
    kept = expand(note["input"])
    assert note["input"]["length"] == n
    assert len(kept) <= 2 * 20 + 3 * 41
    for position in [0, 19, n - 20, n - 1, 50_000 - 20, 50_000, 50_000 + 20, n - 3]:
        assert kept[position] == to_jsonable(x[0, position : position + 1])[0]
    assert kept[50_000] == "nan"
    assert 20 not in kept and 49_000 not in kept
    assert len(str(note)) < 10_000


def test_long_outputs_are_summarized_alike() -> None:
    n = 5000
    x = np.arange(n, dtype=np.int32)[None, :]
    case = Case(id="long-k", source="test", file=Path("long.yaml"), x=x, axis=-1, k=n)
    answer = case.directml_answer
    indices = answer.indices.copy()
    indices[0, [10, 3000]] = indices[0, [3000, 10]]
    out = topk_outputs(np.take_along_axis(x, indices, axis=1), indices)
    judgement = judge(case, profiles.onnx(True), out)
    assert judgement.rules == ("order",)
    note = judgement.discrepancy
    assert note is not None
    fields = ["values", "indices", "expected_values", "expected_indices"]
    kept = {name: expand(note[name]) for name in fields}
    assert {len(k) for k in kept.values()} == {len(kept["indices"])}
    assert [[start for start, _ in note[name]["segments"]] for name in fields] == [[0, 2980, 4980]] * 4
    assert kept["indices"][10] == n - 1 - 3000 and kept["expected_indices"][10] == n - 1 - 10
    assert "(5000 in all)" in judgement.message
    assert shown([1, 2]) == "[1, 2]"


@pytest.mark.parametrize("n", [LONG_SEQUENCE, LONG_SEQUENCE + 1])
def test_sequences_up_to_the_limit_stay_whole(n: int) -> None:
    x = np.zeros((1, n), dtype=np.float32)
    case = Case(id="edge", source="test", file=Path("edge.yaml"), x=x, axis=-1, k=1)
    out = topk_outputs(x[:, :1], np.array([[n - 1]], dtype=np.int64))
    note = judge(case, profiles.onnx(True), out).discrepancy
    assert note is not None
    assert isinstance(note["input"], list) == (n <= LONG_SEQUENCE)


# --- memory ----------------------------------------------------------------------------------


def test_oracle_and_judge_stay_within_a_fraction_of_a_large_input() -> None:
    """Temporaries are bounded by the block size, not the input: on 2^24 float32 (64 MiB) in
    blocks of 2^20 elements, with NaN (keys needed), passing and failing."""
    n = 1 << 24
    x = np.random.default_rng(7).random((1, n), dtype=np.float32)
    x[0, ::1000] = np.nan
    case = Case(id="big", source="test", file=Path("big.yaml"), x=x, axis=-1, k=100, largest=False)
    with sizes(Sizes(1 << 20, 16, 4096, 64, 1 << 18)):
        tracemalloc.start()
        try:
            answer = case.directml_answer
            wrong = answer.indices.copy()
            wrong[0, -1] = int(np.flatnonzero(np.isnan(x[0]))[5])  # a NaN among numbers
            passing = judge(case, profiles.onnx(True), topk_outputs(answer.values, answer.indices))
            failing = judge(case, profiles.onnx(True), topk_outputs(np.take_along_axis(x, wrong, 1), wrong))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert passing.verdict == "pass"
    assert failing.verdict == "fail"
    assert peak < x.nbytes / 2, f"peak {peak / x.nbytes:.2f}x the input"
    assert math.isnan(float(answer.values[0, -1])) is False
