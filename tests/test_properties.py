"""Properties over random inputs (every dtype, rank 1-8, negative axes, K in [0, n], ties and
special floats): the oracle agrees with a plain reference; the judge passes the oracle's own
answer under every dialect and rejects corrupted answers."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import ALL_PROFILES, TopKInput, property_settings, topk_inputs

from conformance.core.dtypes import is_float
from conformance.operator.outcome import Outputs
from conformance.ops.topk import profiles
from conformance.ops.topk.judge import judge, topk_outputs
from conformance.ops.topk.oracle import Answer, directml_answer, in_order
from conformance.ops.topk.profiles import Profile

# Random bit patterns include signaling NaNs; widening one to float64 sets numpy's 'invalid'
# flag, which is harmless here (NaN stays NaN and the values are gathered from the input).
pytestmark = pytest.mark.filterwarnings(
    "ignore:invalid value encountered in (cast|add):RuntimeWarning"
)

ORDERED_PROFILES = [p for p in ALL_PROFILES if p.order != "none"]
STRICT_BY_VALUE = [p for p in ALL_PROFILES if p.strict_ties and p.order == "value"]
LOOSE = [profiles.openvino("value", False), profiles.openvino("none", False),
         profiles.openvino("none", True)]


# --- a plain reference, one sequence at a time ---------------------------------------------


def reference_key(value: Any, floating: bool) -> tuple[int, float | int]:
    """NaN above every number; -0.0 == +0.0 as Python compares them."""
    if floating:
        f = float(value)
        return (1, 0.0) if math.isnan(f) else (0, f)
    return (0, int(value))


def reference_topk(x: np.ndarray[Any, Any], axis: int, k: int, largest: bool) -> Answer:
    floating = is_float(x.dtype)
    moved = np.moveaxis(x, axis, -1)
    values = np.zeros((*moved.shape[:-1], k), dtype=x.dtype)
    indices = np.zeros((*moved.shape[:-1], k), dtype=np.int64)
    for position in np.ndindex(moved.shape[:-1]):
        sequence = moved[position]
        pairs = [(reference_key(v, floating), i) for i, v in enumerate(sequence)]
        if largest:  # descending value, ascending index
            ranked = sorted(pairs, key=lambda p: ((-p[0][0], -p[0][1]), p[1]))
        else:  # ascending value, ascending index
            ranked = sorted(pairs, key=lambda p: (p[0], p[1]))
        chosen = np.array([i for _, i in ranked[:k]], dtype=np.int64)
        indices[position] = chosen
        values[position] = sequence[chosen]
    return Answer(np.moveaxis(values, -1, axis), np.moveaxis(indices, -1, axis))


def bits(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return np.ascontiguousarray(a).view(np.dtype(f"u{a.dtype.itemsize}"))


@property_settings(max_examples=300)
@given(topk_inputs())
def test_oracle_matches_plain_reference(inp: TopKInput) -> None:
    got = directml_answer(inp.x, inp.axis, inp.k, inp.largest)
    want = reference_topk(inp.x, inp.axis, inp.k, inp.largest)
    assert got.values.dtype == inp.x.dtype
    assert got.indices.shape == want.indices.shape
    np.testing.assert_array_equal(got.indices, want.indices)
    np.testing.assert_array_equal(bits(got.values), bits(want.values))


@property_settings(max_examples=100)
@given(topk_inputs())
def test_in_order_index_is_the_same_selection_by_index(inp: TopKInput) -> None:
    answer = directml_answer(inp.x, inp.axis, inp.k, inp.largest)
    by_index = in_order(answer, inp.axis, "index")
    np.testing.assert_array_equal(np.sort(by_index.indices, axis=inp.axis),
                                  np.sort(answer.indices, axis=inp.axis))
    assert (np.diff(by_index.indices, axis=inp.axis) > 0).all()
    np.testing.assert_array_equal(
        bits(by_index.values), bits(np.take_along_axis(inp.x, by_index.indices, axis=inp.axis))
    )


# --- the judge passes the oracle's own answer ----------------------------------------------


def oracle_outputs(inp: TopKInput, profile: Profile) -> Outputs:
    answer = in_order(directml_answer(inp.x, inp.axis, inp.k, inp.largest), inp.axis,
                      profile.order)
    return topk_outputs(answer.values, answer.indices.astype(profile.index_dtype))


@property_settings(max_examples=150)
@given(topk_inputs())
def test_judge_passes_the_oracle_answer_under_every_profile(inp: TopKInput) -> None:
    case = inp.case()
    for profile in ALL_PROFILES:
        judgement = judge(case, profile, oracle_outputs(inp, profile))
        assert (judgement.verdict, judgement.rules) == ("pass", ()), (profile.label, judgement)


# --- corruptions are rejected --------------------------------------------------------------


def rows_of(a: np.ndarray[Any, Any], axis: int) -> np.ndarray[Any, Any]:
    """A writable copy, one row per sequence."""
    moved = np.moveaxis(a, axis, -1)
    return moved.reshape(-1, moved.shape[-1]).copy()


def back(rows: np.ndarray[Any, Any], like: np.ndarray[Any, Any], axis: int) -> np.ndarray[Any, Any]:
    moved_shape = np.moveaxis(like, axis, -1).shape
    return np.moveaxis(rows.reshape(moved_shape), -1, axis)


def number_key(value: Any, largest: bool) -> float | int | None:
    """Higher is better in the direction asked; None for NaN (no single order)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    return value if largest else -value


def as_numbers(row: np.ndarray[Any, Any]) -> list[Any]:
    return row.astype(np.float64).tolist() if is_float(row.dtype) else row.tolist()


def corrupt(inp: TopKInput, profile: Profile, pick: Callable[..., Any],
            build: Callable[[TopKInput, Outputs], list[tuple[Any, ...]]],
            apply: Callable[[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any],
                             tuple[Any, ...]], None]) -> Outputs:
    assume(inp.x.size > 0 and inp.k > 0)
    right = oracle_outputs(inp, profile)
    options = build(inp, right)
    assume(options)
    choice = pick(st.sampled_from(options))
    values = rows_of(right["values"], inp.axis)
    indices = rows_of(right["indices"], inp.axis)
    apply(rows_of(inp.x, inp.axis), values, indices, choice)
    return topk_outputs(back(values, right["values"], inp.axis), back(indices, right["indices"], inp.axis))


def positions_with_different_values(inp: TopKInput, out: Outputs) -> list[tuple[int, int, int]]:
    """(row, p, q): two selected positions holding numbers (not NaN) of different value."""
    options = []
    for r, row in enumerate(rows_of(out["values"], inp.axis)):
        keys = [number_key(v, inp.largest) for v in as_numbers(row)]
        options += [(r, p, q) for p in range(len(keys)) for q in range(p + 1, len(keys))
                    if keys[p] is not None and keys[q] is not None and keys[p] != keys[q]]
    return options


def swap_positions(x: Any, values: Any, indices: Any, choice: tuple[Any, ...]) -> None:
    r, p, q = choice
    values[r, [p, q]] = values[r, [q, p]]
    indices[r, [p, q]] = indices[r, [q, p]]


def swap_indices_only(x: Any, values: Any, indices: Any, choice: tuple[Any, ...]) -> None:
    r, p, q = choice
    indices[r, [p, q]] = indices[r, [q, p]]


def worse_unselected(inp: TopKInput, out: Outputs) -> list[tuple[int, int, int]]:
    """(row, p, j): selected position p and an unselected index j whose number is strictly
    worse (NaN on neither side, so no placement of NaN excuses it)."""
    options = []
    x_rows = rows_of(inp.x, inp.axis)
    for r, (row, chosen) in enumerate(zip(x_rows, rows_of(out["indices"], inp.axis), strict=True)):
        keys = [number_key(v, inp.largest) for v in as_numbers(row)]
        chosen_set = set(chosen.tolist())
        for p, i in enumerate(chosen.tolist()):
            if keys[i] is None:
                continue
            options += [(r, p, j) for j in range(len(keys)) if j not in chosen_set
                        and keys[j] is not None and keys[j] < keys[i]]
    return options


def later_unselected_tie(inp: TopKInput, out: Outputs) -> list[tuple[int, int, int]]:
    """(row, p, j): selected position p and an unselected, higher index j of equal value."""
    options = []
    x_rows = rows_of(inp.x, inp.axis)
    for r, (row, chosen) in enumerate(zip(x_rows, rows_of(out["indices"], inp.axis), strict=True)):
        keys = [number_key(v, inp.largest) for v in as_numbers(row)]
        chosen_set = set(chosen.tolist())
        for p, i in enumerate(chosen.tolist()):
            if keys[i] is None:
                continue
            options += [(r, p, j) for j in range(i + 1, len(keys)) if j not in chosen_set
                        and keys[j] == keys[i]]
    return options


def replace_index(x: Any, values: Any, indices: Any, choice: tuple[Any, ...]) -> None:
    r, p, j = choice
    indices[r, p] = j
    values[r, p] = x[r, j]


@property_settings(max_examples=100)
@given(topk_inputs(min_k=2), st.sampled_from(ORDERED_PROFILES), st.data())
def test_swapped_positions_break_order(inp: TopKInput, profile: Profile, data: st.DataObject) -> None:
    if profile.order == "value":
        build = positions_with_different_values
    else:  # sort=index: any two positions of different index
        def build(inp: TopKInput, out: Outputs) -> list[tuple[int, int, int]]:
            rows, k = rows_of(out["indices"], inp.axis).shape
            return [(r, p, q) for r in range(rows) for p in range(k) for q in range(p + 1, k)]
    out = corrupt(inp, profile, data.draw, build, swap_positions)
    judgement = judge(inp.case(), profile, out)
    assert judgement.verdict == "fail" and "order" in judgement.rules, (profile.label, judgement)


@property_settings(max_examples=100)
@given(topk_inputs(min_k=2), st.sampled_from(ALL_PROFILES), st.data())
def test_swapped_indices_break_gather(inp: TopKInput, profile: Profile, data: st.DataObject) -> None:
    out = corrupt(inp, profile, data.draw, positions_with_different_values, swap_indices_only)
    judgement = judge(inp.case(), profile, out)
    assert judgement.verdict == "fail" and "gather" in judgement.rules, (profile.label, judgement)


@property_settings(max_examples=100)
@given(topk_inputs(min_k=1), st.sampled_from(ALL_PROFILES), st.data())
def test_worse_element_breaks_selection(inp: TopKInput, profile: Profile, data: st.DataObject) -> None:
    out = corrupt(inp, profile, data.draw, worse_unselected, replace_index)
    judgement = judge(inp.case(), profile, out)
    assert judgement.verdict == "fail" and "selection" in judgement.rules, (profile.label, judgement)


@property_settings(max_examples=100)
@given(topk_inputs(min_k=1), st.sampled_from(STRICT_BY_VALUE + LOOSE), st.data())
def test_later_tie_is_strict_only(inp: TopKInput, profile: Profile, data: st.DataObject) -> None:
    out = corrupt(inp, profile, data.draw, later_unselected_tie, replace_index)
    judgement = judge(inp.case(), profile, out)
    if profile.strict_ties:
        assert judgement.verdict == "fail" and "selection" in judgement.rules, judgement
    else:
        assert (judgement.verdict, judgement.rules) == ("divergent", ()), (profile.label, judgement)
