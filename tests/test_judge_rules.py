"""Each rule of the judge (contract section 2) on small hand-made outputs: a wrong output makes
the rule fire, the right output(s) keep it quiet, under every dialect profile."""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conformance.operator.outcome import Judgement, Outputs, Raised
from conformance.ops.topk import profiles
from conformance.ops.topk.case import Case
from conformance.ops.topk.judge import RULES, judge, topk_outputs
from conformance.ops.topk.oracle import Order, directml_answer, in_order
from conformance.ops.topk.profiles import Profile

NAN = math.nan
ONNX_SORTED = profiles.onnx(True)
ONNX_UNSORTED = profiles.onnx(False)
DIRECTML = profiles.directml()


def make_case(
    data: Any, k: int, *, dtype: str = "float32", axis: int = -1, largest: bool = True,
    sort: Order = "value", expect_error: bool = False,
) -> Case:
    return Case(
        id="hand-made", source="tests/test_judge_rules.py", file=Path("x.yaml"),
        x=np.array(data, dtype=np.dtype(dtype)), axis=axis, k=k, largest=largest, sort=sort,
        expect_error=expect_error,
    )


def outputs(case: Case, values: Any, indices: Any, profile: Profile) -> Outputs:
    return topk_outputs(np.array(values, dtype=case.x.dtype), np.array(indices, dtype=profile.index_dtype))


def oracle_outputs(case: Case, profile: Profile) -> Outputs:
    answer = in_order(directml_answer(case.x, case.axis, case.k, case.largest), case.axis,
                      profile.order)
    return topk_outputs(answer.values, answer.indices.astype(profile.index_dtype))


def with_indices(case: Case, indices: Any, profile: Profile) -> Outputs:
    """An output selecting `indices` (per sequence, along the last axis), values gathered from
    the input, so that only selection and order can be wrong."""
    idx = np.array(indices, dtype=np.int64)
    values = np.take_along_axis(case.x, idx, axis=-1)
    return topk_outputs(values, idx.astype(profile.index_dtype))


def assert_fails(judgement: Judgement, *rules: str) -> None:
    assert judgement.verdict == "fail", judgement
    for rule in rules:
        assert rule in judgement.rules, judgement
    assert judgement.message, "a failure must say what broke"


def assert_passes(judgement: Judgement, verdict: str = "pass") -> None:
    assert (judgement.verdict, judgement.rules) == (verdict, ()), judgement


# --- one wrong output per rule -------------------------------------------------------------

# Row 0 selects 5 (4), 4 (2), 3 (0); row 1 selects 9 (0), 6 (2), 5 (3).
BASE = [[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]]
BASE_VALUES = [[5, 4, 3], [9, 6, 5]]
BASE_INDICES = [[4, 2, 0], [0, 2, 3]]


def test_base_answer_is_what_the_rules_below_corrupt() -> None:
    case = make_case(BASE, 3)
    out = oracle_outputs(case, ONNX_SORTED)
    assert out["values"].tolist() == BASE_VALUES
    assert out["indices"].tolist() == BASE_INDICES
    assert_passes(judge(case, ONNX_SORTED, out))


WRONG_OUTPUTS: dict[str, tuple[Any, Any, tuple[str, ...]]] = {
    # rule: (values, indices, exactly the rules broken)
    "shape": ([[5, 4], [9, 6]], [[4, 2], [0, 2]], ("shape",)),
    "index-range-high": ([[5, 4, 3], [9, 6, 5]], [[4, 2, 0], [0, 2, 5]], ("index-range",)),
    "index-range-negative": ([[5, 4, 3], [9, 6, 5]], [[4, 2, -1], [0, 2, 3]], ("index-range",)),
    "index-unique": ([[5, 5, 4], [9, 6, 5]], [[4, 4, 2], [0, 2, 3]], ("index-unique",)),
    "gather": ([[5, 4, 3], [9, 6, 6]], [[4, 2, 0], [0, 2, 3]], ("gather",)),
    "selection": ([[5, 4, 1], [9, 6, 5]], [[4, 2, 1], [0, 2, 3]], ("selection",)),
    "order": ([[5, 4, 3], [6, 9, 5]], [[4, 2, 0], [2, 0, 3]], ("order",)),
}


@pytest.mark.parametrize("name", list(WRONG_OUTPUTS))
def test_wrong_output_breaks_its_rule(name: str) -> None:
    values, indices, rules = WRONG_OUTPUTS[name]
    case = make_case(BASE, 3)
    judgement = judge(case, ONNX_SORTED, outputs(case, values, indices, ONNX_SORTED))
    assert_fails(judgement, *rules)
    assert judgement.rules == rules


@pytest.mark.parametrize("name", ["index-range-high", "gather", "order"])
def test_failure_names_the_broken_sequence(name: str) -> None:
    values, indices, _ = WRONG_OUTPUTS[name]
    case = make_case(BASE, 3)
    judgement = judge(case, ONNX_SORTED, outputs(case, values, indices, ONNX_SORTED))
    assert judgement.discrepancy is not None
    assert judgement.discrepancy["sequence"] == [1]  # only row 1 is wrong
    assert judgement.discrepancy["expected_indices"] == BASE_INDICES[1]
    assert "sequence [1]" in judgement.message


@pytest.mark.parametrize(
    "values_dtype, index_dtype",
    [("float64", "int64"), ("float16", "int64"), ("float32", "int32"), ("float32", "uint64")],
)
def test_dtype_rule(values_dtype: str, index_dtype: str) -> None:
    case = make_case(BASE, 3)
    out = topk_outputs(np.array(BASE_VALUES, dtype=values_dtype), np.array(BASE_INDICES, dtype=index_dtype))
    judgement = judge(case, ONNX_SORTED, out)
    assert_fails(judgement, "dtype")
    assert judgement.rules == ("dtype",)


def test_float_indices_break_dtype() -> None:
    case = make_case(BASE, 3)
    out = topk_outputs(np.array(BASE_VALUES, dtype=np.float32), np.array(BASE_INDICES, dtype=np.float32))
    assert_fails(judge(case, ONNX_SORTED, out), "dtype")


@pytest.mark.parametrize(
    "profile, index_dtype, ok",
    [
        (ONNX_SORTED, "int64", True), (ONNX_SORTED, "int32", False),
        (profiles.openvino("value", True), "int32", True),
        (profiles.openvino("value", True), "int64", False),
        (profiles.openvino("value", True, "int64"), "int64", True),
        (DIRECTML, "uint32", True), (DIRECTML, "int64", False),
        (profiles.directml("uint64"), "uint64", True),
    ],
    ids=lambda p: p.label if isinstance(p, Profile) else str(p),
)
def test_index_dtype_per_dialect(profile: Profile, index_dtype: str, ok: bool) -> None:
    case = make_case(BASE, 3)
    out = topk_outputs(np.array(BASE_VALUES, dtype=np.float32), np.array(BASE_INDICES, dtype=index_dtype))
    judgement = judge(case, profile, out)
    if ok:
        assert_passes(judgement)
    else:
        assert_fails(judgement, "dtype")


def test_a_one_sequence_input_is_named_as_such_not_sequence_empty_list() -> None:
    case = make_case([2, 7, 7, 1], 2)
    judgement = judge(case, ONNX_SORTED, with_indices(case, [2, 1], ONNX_SORTED))
    assert "; first at the only sequence: got indices [2, 1]" in judgement.message, judgement.message
    assert "[]" not in judgement.message


def test_tie_order() -> None:
    case = make_case([2, 7, 7, 1], 2)
    assert_passes(judge(case, ONNX_SORTED, with_indices(case, [1, 2], ONNX_SORTED)))
    judgement = judge(case, ONNX_SORTED, with_indices(case, [2, 1], ONNX_SORTED))
    assert_fails(judgement, "tie-order")
    assert judgement.rules == ("tie-order",)


def test_tie_order_smallest_is_still_ascending_index() -> None:
    case = make_case([2, 1, 7, 1], 3, largest=False)
    assert_passes(judge(case, ONNX_SORTED, with_indices(case, [1, 3, 0], ONNX_SORTED)))
    assert_fails(judge(case, ONNX_SORTED, with_indices(case, [3, 1, 0], ONNX_SORTED)), "tie-order")


def test_order_smallest() -> None:
    case = make_case([4, 1, 3, 2], 3, largest=False)
    assert_passes(judge(case, ONNX_SORTED, with_indices(case, [1, 3, 2], ONNX_SORTED)))
    assert_fails(judge(case, ONNX_SORTED, with_indices(case, [2, 3, 1], ONNX_SORTED)), "order")


def test_selection_smallest() -> None:
    case = make_case([4, 1, 3, 2], 2, largest=False)
    assert_fails(judge(case, ONNX_SORTED, with_indices(case, [1, 2], ONNX_SORTED)), "selection")


def test_rules_are_the_documented_ten() -> None:
    assert RULES == (
        "shape", "dtype", "index-range", "index-unique", "gather",
        "selection", "order", "tie-order", "nan-order", "error",
    )


# --- ONNX sorted=0 -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "permutation", list(itertools.permutations([4, 2, 0])), ids=lambda p: "-".join(map(str, p))
)
def test_onnx_unsorted_accepts_any_permutation(permutation: tuple[int, ...]) -> None:
    case = make_case([3, 1, 4, 1, 5], 3)
    judgement = judge(case, ONNX_UNSORTED, with_indices(case, list(permutation), ONNX_UNSORTED))
    assert_passes(judgement)
    assert judgement.domain == "undefined"  # no promised order
    # ... while sorted=1 takes only the one by value.
    sorted_verdict = judge(case, ONNX_SORTED, with_indices(case, list(permutation), ONNX_SORTED))
    if permutation == (4, 2, 0):
        assert_passes(sorted_verdict)
    else:
        assert_fails(sorted_verdict, "order")


def test_onnx_unsorted_still_rejects_a_wrong_selection() -> None:
    case = make_case([3, 1, 4, 1, 5], 3)
    assert_fails(judge(case, ONNX_UNSORTED, with_indices(case, [4, 1, 0], ONNX_UNSORTED)),
                 "selection")


@pytest.mark.parametrize("indices, ok", [([0, 1], True), ([1, 0], True), ([0, 2], False),
                                         ([2, 1], False), ([1, 3], False)])
def test_onnx_unsorted_ties_select_lowest_index(indices: list[int], ok: bool) -> None:
    case = make_case([7, 7, 7, 1], 2)
    judgement = judge(case, ONNX_UNSORTED, with_indices(case, indices, ONNX_UNSORTED))
    if ok:
        assert_passes(judgement)
    else:
        assert_fails(judgement, "selection")


# --- OpenVINO sort x stable ----------------------------------------------------------------

# [5, 3, 5, 1, 5], largest, K=2: three tied 5s at indices 0, 2, 4 for two places.
TIES = [5, 3, 5, 1, 5]
OV_TABLE: list[tuple[Order, bool, list[int], str, tuple[str, ...]]] = [
    # sort, stable, indices, verdict, rules
    ("value", True, [0, 2], "pass", ()),
    ("value", True, [2, 0], "fail", ("tie-order",)),
    ("value", True, [0, 4], "fail", ("selection",)),
    ("value", True, [4, 2], "fail", ("selection", "tie-order")),
    ("value", False, [0, 2], "pass", ()),
    ("value", False, [2, 0], "divergent", ()),
    ("value", False, [0, 4], "divergent", ()),
    ("value", False, [4, 2], "divergent", ()),
    ("value", False, [0, 1], "fail", ("selection",)),
    ("index", True, [0, 2], "pass", ()),
    ("index", True, [2, 0], "fail", ("order",)),
    ("index", True, [0, 4], "fail", ("selection",)),
    ("index", False, [0, 2], "pass", ()),
    ("index", False, [2, 4], "divergent", ()),
    ("index", False, [4, 2], "fail", ("order",)),
    ("index", False, [1, 2], "fail", ("selection",)),
    ("none", True, [0, 2], "pass", ()),
    ("none", True, [2, 0], "pass", ()),
    ("none", True, [4, 0], "divergent", ()),  # stable has no effect with sort=none
    ("none", False, [2, 0], "pass", ()),
    ("none", False, [4, 2], "divergent", ()),
    ("none", False, [3, 0], "fail", ("selection",)),
]


@pytest.mark.parametrize(
    "sort, stable, indices, verdict, rules", OV_TABLE,
    ids=[f"{s}-{'stable' if st else 'unstable'}-{'-'.join(map(str, i))}" for s, st, i, _, _ in OV_TABLE],
)
def test_openvino_ties(
    sort: Order, stable: bool, indices: list[int], verdict: str, rules: tuple[str, ...],
) -> None:
    profile = profiles.openvino(sort, stable)
    case = make_case(TIES, 2)
    judgement = judge(case, profile, with_indices(case, indices, profile))
    assert (judgement.verdict, judgement.rules) == (verdict, rules), judgement
    assert judgement.domain == ("undefined" if sort == "none" else "defined")


@pytest.mark.parametrize("stable", [True, False], ids=["stable", "unstable"])
def test_openvino_sort_index_orders_by_index_not_value(stable: bool) -> None:
    case = make_case([5, 9, 1], 2)
    by_index = profiles.openvino("index", stable)
    by_value = profiles.openvino("value", stable)
    assert_passes(judge(case, by_index, with_indices(case, [0, 1], by_index)))
    assert_fails(judge(case, by_index, with_indices(case, [1, 0], by_index)), "order")
    assert_passes(judge(case, by_value, with_indices(case, [1, 0], by_value)))
    assert_fails(judge(case, by_value, with_indices(case, [0, 1], by_value)), "order")


@pytest.mark.parametrize("sort", ["value", "index", "none"])
@pytest.mark.parametrize("stable", [True, False], ids=["stable", "unstable"])
def test_openvino_oracle_answer_passes(sort: Order, stable: bool) -> None:
    profile = profiles.openvino(sort, stable)
    case = make_case([[5, 3, 5, 1, 5], [1, 1, 2, 0, 1]], 3)
    assert_passes(judge(case, profile, oracle_outputs(case, profile)))


def test_openvino_sort_none_label_has_no_stable() -> None:
    assert profiles.openvino("none", True).label == "OpenVINO sort=none"
    assert not profiles.openvino("none", True).strict_ties


# --- DirectML ------------------------------------------------------------------------------


def test_directml_is_strict() -> None:
    case = make_case(TIES, 2)
    assert_passes(judge(case, DIRECTML, with_indices(case, [0, 2], DIRECTML)))
    assert_fails(judge(case, DIRECTML, with_indices(case, [2, 0], DIRECTML)), "tie-order")
    assert_fails(judge(case, DIRECTML, with_indices(case, [0, 4], DIRECTML)), "selection")


# --- bit-exactness: -0.0 and +0.0 ----------------------------------------------------------


def test_swapped_zero_signs_break_gather() -> None:
    case = make_case([0.0, -0.0, 1.0], 3)
    right = outputs(case, [1.0, 0.0, -0.0], [2, 0, 1], ONNX_SORTED)
    assert_passes(judge(case, ONNX_SORTED, right))
    swapped = outputs(case, [1.0, -0.0, 0.0], [2, 0, 1], ONNX_SORTED)
    judgement = judge(case, ONNX_SORTED, swapped)
    assert_fails(judgement, "gather")
    assert judgement.rules == ("gather",)


def test_signed_zeros_are_ties() -> None:
    # Were -0.0 < +0.0, index 1 would be the right pick; as ties, index 0 is.
    case = make_case([-0.0, 0.0, 1.0], 2)
    assert_passes(judge(case, ONNX_SORTED, outputs(case, [1.0, -0.0], [2, 0], ONNX_SORTED)))
    assert_fails(judge(case, ONNX_SORTED, outputs(case, [1.0, 0.0], [2, 1], ONNX_SORTED)),
                 "selection")
    unstable = profiles.openvino("value", False)
    assert_passes(judge(case, unstable, outputs(case, [1.0, 0.0], [2, 1], unstable)), "divergent")


def test_signed_zeros_in_index_order_are_tie_ordered() -> None:
    case = make_case([0.0, -0.0, 1.0], 3)
    reversed_ties = outputs(case, [1.0, -0.0, 0.0], [2, 1, 0], ONNX_SORTED)
    assert_fails(judge(case, ONNX_SORTED, reversed_ties), "tie-order")
    unstable = profiles.openvino("value", False)
    reversed_ties = outputs(case, [1.0, -0.0, 0.0], [2, 1, 0], unstable)
    assert_passes(judge(case, unstable, reversed_ties), "divergent")


def test_signed_zero_smallest() -> None:
    case = make_case([0.0, -0.0], 1, largest=False)
    assert_passes(judge(case, ONNX_SORTED, outputs(case, [0.0], [0], ONNX_SORTED)))
    assert_fails(judge(case, ONNX_SORTED, outputs(case, [-0.0], [1], ONNX_SORTED)), "selection")


# --- NaN -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "largest, indices, verdict",
    [
        (True, [1, 2, 0], "pass"),  # NaN above every number, first for largest (DirectML)
        (True, [2, 0, 1], "divergent"),  # NaN below every number, last for largest
        (False, [0, 2, 1], "pass"),  # above: last for smallest
        (False, [1, 0, 2], "divergent"),  # below: first for smallest
    ],
    ids=["largest-above", "largest-below", "smallest-above", "smallest-below"],
)
def test_nan_placed_consistently_is_accepted(largest: bool, indices: list[int], verdict: str) -> None:
    case = make_case([[1.0, NAN, 3.0], [1.0, NAN, 3.0]], 3, largest=largest)
    judgement = judge(case, ONNX_SORTED, with_indices(case, [indices, indices], ONNX_SORTED))
    assert_passes(judgement, verdict)
    assert judgement.domain == "undefined"


def test_nan_selected_or_not_by_placement() -> None:
    # K=1: the NaN (above) or the 3 (below) may be the top element; the 1 may not.
    case = make_case([1.0, NAN, 3.0], 1)
    assert_passes(judge(case, ONNX_SORTED, with_indices(case, [1], ONNX_SORTED)))
    assert_passes(judge(case, ONNX_SORTED, with_indices(case, [2], ONNX_SORTED)), "divergent")
    assert_fails(judge(case, ONNX_SORTED, with_indices(case, [0], ONNX_SORTED)), "selection")


def test_inconsistent_nan_placement_breaks_nan_order() -> None:
    case = make_case([[1.0, NAN, 3.0], [1.0, NAN, 3.0]], 3)
    # Row 0 puts NaN above every number, row 1 below: no single placement explains both.
    judgement = judge(case, ONNX_SORTED, with_indices(case, [[1, 2, 0], [2, 0, 1]], ONNX_SORTED))
    assert_fails(judgement, "nan-order")
    assert judgement.domain == "undefined"


def test_inconsistent_nan_placement_across_selection() -> None:
    # Row 0 selects the NaN as top (above), row 1 leaves it out for the 3 (below).
    case = make_case([[1.0, NAN, 3.0], [1.0, NAN, 3.0]], 1)
    judgement = judge(case, ONNX_SORTED, with_indices(case, [[1], [2]], ONNX_SORTED))
    assert_fails(judgement, "nan-order")


def test_nan_in_the_middle_breaks_order_under_both_placements() -> None:
    case = make_case([3.0, NAN, 1.0], 3)
    judgement = judge(case, ONNX_SORTED, with_indices(case, [0, 1, 2], ONNX_SORTED))
    assert_fails(judgement, "order", "nan-order")


def test_nan_rows_do_not_excuse_other_rows() -> None:
    case = make_case([[1.0, NAN, 3.0], [1.0, 2.0, 3.0]], 2)
    judgement = judge(case, ONNX_SORTED, with_indices(case, [[1, 2], [2, 0]], ONNX_SORTED))
    assert_fails(judgement, "selection")
    assert "nan-order" not in judgement.rules
    assert judgement.discrepancy is not None and judgement.discrepancy["sequence"] == [1]


def test_nan_payload_must_be_kept() -> None:
    quiet = np.array([np.nan], dtype=np.float32).view(np.uint32)[0]
    payload = np.array([quiet | 1], dtype=np.uint32).view(np.float32)
    case = make_case([1.0, payload[0], 3.0], 1)
    assert case.x.view(np.uint32)[1] == quiet | 1
    same = topk_outputs(case.x[1:2].copy(), np.array([1], dtype=np.int64))
    assert_passes(judge(case, ONNX_SORTED, same))
    canonical = topk_outputs(np.array([np.nan], dtype=np.float32), np.array([1], dtype=np.int64))
    assert_fails(judge(case, ONNX_SORTED, canonical), "gather")


# --- divergent -----------------------------------------------------------------------------


def test_divergent_names_the_first_differing_sequence() -> None:
    # Shape (2, 4, 3), axis 1: sequences are indexed by (i, j). Only (1, 2) holds a tie at the
    # boundary that an unstable OpenVINO may resolve differently.
    x = np.arange(24, dtype=np.float32).reshape(2, 4, 3)
    x[1, :, 2] = [4.0, 9.0, 4.0, 4.0]
    case = make_case(x, 2, axis=1)
    profile = profiles.openvino("value", False)
    right = oracle_outputs(case, profile)
    assert right["indices"][1, :, 2].tolist() == [1, 0]
    assert_passes(judge(case, profile, right))
    indices = right["indices"].copy()
    indices[1, :, 2] = [1, 3]
    out = topk_outputs(np.take_along_axis(x, indices.astype(np.int64), axis=1), indices)
    judgement = judge(case, profile, out)
    assert_passes(judgement, "divergent")
    assert judgement.discrepancy is not None
    assert judgement.discrepancy["sequence"] == [1, 2]
    assert judgement.discrepancy["indices"] == [1, 3]
    assert judgement.discrepancy["expected_indices"] == [1, 0]
    # The same output breaks the strict dialects.
    strict = profiles.openvino("value", True)
    strict_out = topk_outputs(out["values"], out["indices"].astype(strict.index_dtype))
    assert_fails(judge(case, strict, strict_out), "selection")


# --- error ---------------------------------------------------------------------------------


def error_case() -> Case:
    return make_case([1.0, 2.0, 3.0], 4, expect_error=True)


def test_expected_error_raised_passes() -> None:
    judgement = judge(error_case(), ONNX_SORTED, Raised("K is larger than the axis"))
    assert_passes(judgement)


def test_expected_error_with_outputs_fails() -> None:
    out = topk_outputs(np.array([3.0, 2.0, 1.0], dtype=np.float32), np.array([2, 1, 0], dtype=np.int64))
    judgement = judge(error_case(), ONNX_SORTED, out)
    assert_fails(judgement, "error")
    assert judgement.rules == ("error",)


def test_raising_on_a_valid_case_is_an_error_verdict() -> None:
    case = make_case(BASE, 3)
    judgement = judge(case, ONNX_SORTED, Raised("unsupported type"))
    assert judgement.verdict == "error"
    assert judgement.rules == ()
    assert "unsupported type" in judgement.message


# --- domain --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "profile, k, domain",
    [
        # ONNX: K is "a single positive value"; K=0's empty outputs are not promised.
        (ONNX_SORTED, 0, "undefined"), (ONNX_SORTED, 1, "defined"), (ONNX_SORTED, 4, "defined"),
        (profiles.openvino("value", True), 0, "undefined"),
        (profiles.openvino("value", True), 1, "defined"),
        (profiles.openvino("value", True), 4, "defined"),
        (DIRECTML, 0, "undefined"), (DIRECTML, 1, "defined"), (DIRECTML, 3, "defined"),
        (DIRECTML, 4, "undefined"),  # the docs say K less than the axis size
    ],
    ids=lambda p: p.label if isinstance(p, Profile) else str(p),
)
def test_domain_of_k(profile: Profile, k: int, domain: str) -> None:
    case = make_case([4.0, 1.0, 3.0, 2.0], k)
    judgement = judge(case, profile, oracle_outputs(case, profile))
    assert_passes(judgement)
    assert judgement.domain == domain


@pytest.mark.parametrize(
    "profile, domain",
    [(ONNX_SORTED, "undefined"), (profiles.openvino("value", True), "undefined"),
     (DIRECTML, "undefined")],
    ids=lambda p: p.label if isinstance(p, Profile) else str(p),
)
def test_domain_of_k_beyond_n(profile: Profile, domain: str) -> None:
    judgement = judge(error_case(), profile, Raised("K > n"))
    assert judgement.domain == domain


def test_an_onnx_runtime_refusing_k_zero_is_an_error_outside_the_domain() -> None:
    judgement = judge(make_case([4.0, 1.0, 3.0], 0), ONNX_SORTED, Raised("K must be positive"))
    assert (judgement.verdict, judgement.domain) == ("error", "undefined")


def test_domain_of_nan_and_unordered_output() -> None:
    case = make_case([1.0, NAN, 3.0], 2)
    assert judge(case, ONNX_SORTED, oracle_outputs(case, ONNX_SORTED)).domain == "undefined"
    plain = make_case([1.0, 2.0, 3.0], 2)
    assert judge(plain, ONNX_SORTED, oracle_outputs(plain, ONNX_SORTED)).domain == "defined"
    assert judge(plain, ONNX_UNSORTED, oracle_outputs(plain, ONNX_UNSORTED)).domain == "undefined"
    none = profiles.openvino("none", False)
    assert judge(plain, none, oracle_outputs(plain, none)).domain == "undefined"


# --- empty and large -----------------------------------------------------------------------


def test_k_zero_gives_empty_outputs() -> None:
    case = make_case(BASE, 0)
    out = oracle_outputs(case, ONNX_SORTED)
    assert out["values"].shape == (2, 0)
    assert_passes(judge(case, ONNX_SORTED, out))
    assert_fails(judge(case, ONNX_SORTED, outputs(case, [[5], [9]], [[4], [0]], ONNX_SORTED)),
                 "shape")


def test_large_sequence() -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(-1000, 1000, size=(1, 200_000)).astype(np.float32)
    case = make_case(x, 100_000)
    out = oracle_outputs(case, ONNX_SORTED)
    assert_passes(judge(case, ONNX_SORTED, out))
    # Swapping the first and last selected positions breaks the order.
    values, indices = out["values"].copy(), out["indices"].copy()
    values[0, [0, -1]] = values[0, [-1, 0]]
    indices[0, [0, -1]] = indices[0, [-1, 0]]
    assert_fails(judge(case, ONNX_SORTED, topk_outputs(values, indices)), "order")
