"""The NonMaxSuppression judge's rules (contract section 8) on small outputs anyone can check with
a pencil: an output some order of the equal scores gives passes (the common answer) or is
divergent (another order), any other fails naming the rule it broke; and, over random small
inputs, the judge admits exactly the outputs a brute force over every order of the equal scores
gives under greedy NMS."""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.operator.outcome import Judgement, Outputs
from conformance.ops.nms import profiles, select
from conformance.ops.nms.case import Case
from conformance.ops.nms.judge import common_answer, judge
from conformance.ops.nms.profiles import Profile

ONNX = profiles.onnx(11)
OPENVINO = profiles.openvino(9, False)
OPENVINO_SORTED = profiles.openvino(9, True)
ALL_PROFILES = [ONNX, OPENVINO, OPENVINO_SORTED]
NAN = math.nan
UNIT = [0.0, 0.0, 1.0, 1.0]  # [y1, x1, y2, x2]: a unit square
Rows = Sequence[Sequence[int]]


def make_case(boxes: Sequence[Sequence[float]], scores: Sequence[Sequence[float]], *, cap: int | None = 10,
              iou: float | None = 0.5, score: float | None = None, center: int = 0) -> Case:
    """One batch: boxes [N, 4] and scores [C, N]."""
    return Case(id="nms-judge-test", source="test", file=Path("<test>"),
                boxes=np.array([boxes], dtype=np.float32).reshape(1, -1, 4),
                scores=np.array([scores], dtype=np.float32).reshape(1, len(scores), -1),
                max_output=cap, iou_threshold=iou, score_threshold=score, center_point_box=center)


def outputs(case: Case, profile: Profile, rows: Rows, *, scores: np.ndarray[Any, Any] | None = None,
            valid: int | None = None, dtype: type = np.int64) -> Outputs:
    """selected_indices as given; for OpenVINO also selected_scores (each row's own score unless
    given) and valid_outputs (the number of rows unless given)."""
    indices: np.ndarray[Any, Any] = np.array(rows, dtype=dtype).reshape(-1, 3)
    named = {"selected_indices": indices}
    if profile.scores_output:
        if scores is None:
            real = (indices >= 0).all(axis=1)
            scores = np.full((len(indices), 3), -1, dtype=np.float32)
            scores[real, :2] = indices[real, :2]
            picked = indices[real].astype(np.int64)
            scores[real, 2] = case.scores[picked[:, 0], picked[:, 1], picked[:, 2]]
        named["selected_scores"] = scores
        named["valid_outputs"] = np.array([len(indices) if valid is None else valid], dtype=np.int64)
    return Outputs(named)


def judged(case: Case, profile: Profile, rows: Rows, **extra: Any) -> Judgement:
    return judge(case, profile, outputs(case, profile, rows, **extra))


# --- 1. equal scores, identical boxes ------------------------------------------------------------

IDENTICAL = make_case([UNIT, UNIT, UNIT], [[1.0, 1.0, 1.0]])


@pytest.mark.parametrize("profile", ALL_PROFILES, ids=lambda p: p.label)
def test_identical_boxes_keeping_the_lowest_index_passes(profile: Profile) -> None:
    """Three identical boxes of equal score: keeping box 0 alone is the common answer."""
    assert judged(IDENTICAL, profile, [[0, 0, 0]]) == Judgement("pass", (), "defined")


@pytest.mark.parametrize("profile", ALL_PROFILES, ids=lambda p: p.label)
def test_identical_boxes_keeping_another_one_is_divergent(profile: Profile) -> None:
    """Keeping box 2 alone is what another order of the equal scores gives: divergent, not a failure."""
    judgement = judged(IDENTICAL, profile, [[0, 0, 2]])
    assert (judgement.verdict, judgement.rules) == ("divergent", ())
    assert "common answer" in judgement.message


@pytest.mark.parametrize("profile", ALL_PROFILES, ids=lambda p: p.label)
@pytest.mark.parametrize("rows", [[[0, 0, 0], [0, 0, 1]], []], ids=["two-overlapping", "none"])
def test_identical_boxes_keeping_two_or_none_fails_selection(profile: Profile, rows: Rows) -> None:
    """Two identical boxes both kept, or none kept at all, is what no order gives: the selection rule."""
    judgement = judged(IDENTICAL, profile, rows)
    assert (judgement.verdict, judgement.rules) == ("fail", ("selection",))


# --- 2. the cap cutting through a group of equal scores ------------------------------------------

DISJOINT = [[0.0, 2.0 * i, 1.0, 2.0 * i + 1.0] for i in range(4)]  # four unit squares side by side


@pytest.mark.parametrize(("rows", "verdict"), [
    ([0, 1], "pass"), ([1, 3], "divergent"), ([2, 3], "divergent"), ([0, 3], "divergent"), ([2], "fail"),
    ([0, 1, 2], "fail"), ([], "fail"),
])
def test_cap_through_a_tie_group_admits_any_subset_of_its_size(rows: list[int], verdict: str) -> None:
    """Cap 2 over four disjoint boxes of equal score: any two are admissible, the lowest two the common answer."""
    case = make_case(DISJOINT, [[0.5] * 4], cap=2)
    judgement = judged(case, ONNX, [[0, 0, box] for box in rows])
    assert judgement.verdict == verdict
    assert judgement.rules == (("selection",) if verdict == "fail" else ())


@pytest.mark.parametrize(("rows", "verdict"), [([0, 1], "pass"), ([0, 3], "divergent"), ([1, 2], "fail"),
                                               ([0], "fail")])
def test_cap_through_a_tie_group_keeps_the_higher_score_first(rows: list[int], verdict: str) -> None:
    """Cap 2, one box above a tie group of three: it must be kept, the second place goes to any of the tie."""
    case = make_case(DISJOINT, [[0.9, 0.5, 0.5, 0.5]], cap=2)
    judgement = judged(case, ONNX, [[0, 0, box] for box in rows])
    assert judgement.verdict == verdict
    assert judgement.rules == (("selection",) if verdict == "fail" else ())


def test_a_case_leaving_the_cap_out_keeps_nothing() -> None:
    """The cap left out of the graph is 0 in both documents: the empty output passes, any box kept fails."""
    case = make_case(DISJOINT[:2], [[0.9, 0.8]], cap=None, iou=None)
    for profile in ALL_PROFILES:
        assert judged(case, profile, []).verdict == "pass"
        assert judged(case, profile, [[0, 0, 0]]).rules == ("selection",)


def test_the_case_expected_rows_are_the_yardstick_where_given() -> None:
    """Where the case gives its expected rows, an admissible output equal to them passes, any other is divergent."""
    case = dataclasses.replace(IDENTICAL, expected=np.array([[0, 0, 2]], dtype=np.int64))
    assert judged(case, ONNX, [[0, 0, 2]]).verdict == "pass"
    assert judged(case, ONNX, [[0, 0, 0]]).verdict == "divergent"
    assert judged(case, ONNX, [[0, 0, 0], [0, 0, 2]]).rules == ("selection",)


# --- 3. and 4. a threshold met exactly -----------------------------------------------------------

AT_HALF = make_case([UNIT, [0.0, 0.0, 1.0, 2.0]], [[0.9, 0.8]], iou=0.5)  # IoU 1 / 2: exactly 0.5


@pytest.mark.parametrize("profile", ALL_PROFILES, ids=lambda p: p.label)
def test_iou_exactly_at_the_threshold_does_not_suppress(profile: Profile) -> None:
    """An IoU equal to the threshold is not above it: both boxes are kept, and suppressing one names iou-threshold."""
    assert judged(AT_HALF, profile, [[0, 0, 0], [0, 0, 1]]).verdict == "pass"
    judgement = judged(AT_HALF, profile, [[0, 0, 0]])
    assert (judgement.verdict, judgement.rules) == ("fail", ("iou-threshold",))
    assert "IoU equals the IoU threshold" in judgement.message


@pytest.mark.parametrize("profile", ALL_PROFILES, ids=lambda p: p.label)
def test_iou_just_above_the_threshold_suppresses(profile: Profile) -> None:
    """An IoU above the threshold (1 / 1.5) suppresses the lower box; keeping both fails selection."""
    case = make_case([UNIT, [0.0, 0.0, 1.0, 1.5]], [[0.9, 0.8]], iou=0.5)
    assert judged(case, profile, [[0, 0, 0]]).verdict == "pass"
    judgement = judged(case, profile, [[0, 0, 0], [0, 0, 1]])
    assert (judgement.verdict, judgement.rules) == ("fail", ("selection",))


@pytest.mark.parametrize("profile", ALL_PROFILES, ids=lambda p: p.label)
def test_score_exactly_at_the_threshold_is_kept(profile: Profile) -> None:
    """A score equal to the score threshold passes it: dropping that box names score-threshold."""
    case = make_case(DISJOINT[:2], [[0.9, 0.5]], score=0.5)
    assert judged(case, profile, [[0, 0, 0], [0, 0, 1]]).verdict == "pass"
    judgement = judged(case, profile, [[0, 0, 0]])
    assert (judgement.verdict, judgement.rules) == ("fail", ("score-threshold",))
    assert "score equal to the score threshold" in judgement.message


@pytest.mark.parametrize("profile", ALL_PROFILES, ids=lambda p: p.label)
def test_score_below_the_threshold_kept_fails_selection(profile: Profile) -> None:
    """A box whose score is below the score threshold is never a candidate: keeping it fails selection."""
    case = make_case(DISJOINT[:2], [[0.9, 0.4]], score=0.5)
    assert judged(case, profile, [[0, 0, 0]]).verdict == "pass"
    judgement = judged(case, profile, [[0, 0, 0], [0, 0, 1]])
    assert (judgement.verdict, judgement.rules) == ("fail", ("selection",))
    assert "below the score threshold" in judgement.message


def test_score_and_iou_both_at_their_thresholds_name_both_rules() -> None:
    """Dropping a box whose score is at the threshold and suppressing one whose IoU is at it names both rules."""
    # Box 1 overlaps box 0 with IoU exactly 0.5; box 2 (disjoint) has a score exactly at the threshold.
    case = make_case([UNIT, [0.0, 0.0, 1.0, 2.0], [5.0, 5.0, 6.0, 6.0]], [[0.9, 0.8, 0.5]], score=0.5)
    judgement = judged(case, ONNX, [[0, 0, 0]])
    assert (judgement.verdict, judgement.rules) == ("fail", ("iou-threshold", "score-threshold"))


# --- 5. OpenVINO's order and its score outputs ---------------------------------------------------

TWO_CLASSES = make_case(DISJOINT[:2], [[0.9, 0.8], [0.3, 0.95]])


@pytest.mark.parametrize("profile", [OPENVINO, OPENVINO_SORTED], ids=lambda p: p.label)
def test_openvino_rows_of_one_class_rising_in_score_fail_order(profile: Profile) -> None:
    """OpenVINO orders one class's rows by descending score: a lower score first fails the order rule."""
    judgement = judged(TWO_CLASSES, profile, [[0, 0, 1], [0, 0, 0], [0, 1, 1], [0, 1, 0]])
    assert (judgement.verdict, judgement.rules) == ("fail", ("order",))


def test_onnx_output_is_a_set_in_any_order() -> None:
    """ONNX's output is a set: the same rows in another order still pass."""
    assert judged(TWO_CLASSES, ONNX, [[0, 1, 0], [0, 0, 1], [0, 1, 1], [0, 0, 0]]).verdict == "pass"


def test_sort_result_descending_orders_rows_across_classes() -> None:
    """With sort_result_descending every row is by descending score; without it rows go class by class."""
    by_class = [[0, 0, 0], [0, 0, 1], [0, 1, 1], [0, 1, 0]]
    by_score = [[0, 1, 1], [0, 0, 0], [0, 0, 1], [0, 1, 0]]
    assert judged(TWO_CLASSES, OPENVINO, by_class).verdict == "pass"
    assert judged(TWO_CLASSES, OPENVINO_SORTED, by_score).verdict == "pass"
    judgement = judged(TWO_CLASSES, OPENVINO_SORTED, by_class)
    assert (judgement.verdict, judgement.rules) == ("fail", ("order",))
    assert "row 2 has a higher score" in judgement.message


def test_openvino_equal_scores_in_another_order_is_divergent() -> None:
    """Two equal scores with the higher box index first is in order, but not the common answer's order."""
    case = make_case(DISJOINT[:2], [[0.5, 0.5]])
    assert judged(case, OPENVINO_SORTED, [[0, 0, 0], [0, 0, 1]]).verdict == "pass"
    judgement = judged(case, OPENVINO_SORTED, [[0, 0, 1], [0, 0, 0]])
    assert (judgement.verdict, judgement.rules) == ("divergent", ())


@pytest.mark.parametrize("profile", [OPENVINO, OPENVINO_SORTED], ids=lambda p: p.label)
def test_openvino_selected_scores_with_a_wrong_score_fail_scores(profile: Profile) -> None:
    """selected_scores must carry each kept box's own score: a wrong one fails the scores rule."""
    rows = [[0, 0, 0], [0, 0, 1]]
    wrong = np.array([[0, 0, 0.9], [0, 0, 0.7]], dtype=np.float32)
    judgement = judged(make_case(DISJOINT[:2], [[0.9, 0.8]]), profile, rows, scores=wrong)
    assert (judgement.verdict, judgement.rules) == ("fail", ("scores",))
    assert "selected_scores row 1" in judgement.message


def test_openvino_selected_scores_with_a_wrong_class_fail_scores() -> None:
    """selected_scores' batch and class must be those of the index row beside it."""
    case = make_case(DISJOINT[:2], [[0.9, 0.8]])
    wrong = np.array([[0, 0, 0.9], [0, 1, 0.8]], dtype=np.float32)
    judgement = judged(case, OPENVINO, [[0, 0, 0], [0, 0, 1]], scores=wrong)
    assert (judgement.verdict, judgement.rules) == ("fail", ("scores",))


@pytest.mark.parametrize("profile", [OPENVINO, OPENVINO_SORTED], ids=lambda p: p.label)
def test_openvino_valid_outputs_more_than_the_rows_fails_scores(profile: Profile) -> None:
    """valid_outputs counting more rows than there are fails the scores rule."""
    case = make_case(DISJOINT[:2], [[0.9, 0.8]])
    judgement = judged(case, profile, [[0, 0, 0], [0, 0, 1]], valid=3)
    assert (judgement.verdict, judgement.rules) == ("fail", ("scores",))
    assert "valid_outputs is 3" in judgement.message


def test_openvino_valid_outputs_fewer_than_the_real_rows_fails_scores() -> None:
    """valid_outputs of 1 where two real rows follow: the second row is not -1 padding, the scores rule fails."""
    case = make_case(DISJOINT[:2], [[0.9, 0.8]])
    judgement = judged(case, OPENVINO, [[0, 0, 0], [0, 0, 1]], valid=1)
    assert judgement.verdict == "fail"
    assert "scores" in judgement.rules  # and selection: the one counted row leaves box 1 out
    assert "not -1 padding" in judgement.message


def test_openvino_padding_after_valid_outputs_passes() -> None:
    """Rows after valid_outputs that are -1 padding (NonMaxSuppression-5's static shape) are not selected boxes."""
    case = make_case(DISJOINT[:2], [[0.9, 0.8]])
    judgement = judged(case, OPENVINO, [[0, 0, 0], [0, 0, 1], [-1, -1, -1]], valid=2)
    assert judgement == Judgement("pass", (), "defined")


def test_openvino_missing_valid_outputs_fails_scores() -> None:
    """An OpenVINO output without valid_outputs fails the scores rule."""
    case = make_case(DISJOINT[:2], [[0.9, 0.8]])
    named = dict(outputs(case, OPENVINO, [[0, 0, 0], [0, 0, 1]]).named)
    del named["valid_outputs"]
    judgement = judge(case, OPENVINO, Outputs(named))
    assert (judgement.verdict, judgement.rules) == ("fail", ("scores",))


# --- 6. the shape of the output --------------------------------------------------------------------

@pytest.mark.parametrize("profile", ALL_PROFILES, ids=lambda p: p.label)
@pytest.mark.parametrize("row", [[0, 0, 4], [0, 1, 0], [1, 0, 0], [0, 0, -1]], ids=["box", "class", "batch", "neg"])
def test_an_index_out_of_range_fails_index_range(profile: Profile, row: list[int]) -> None:
    """A row naming a batch, class or box the input does not have fails index-range."""
    case = make_case(DISJOINT, [[0.9, 0.8, 0.7, 0.6]])
    rows = [[0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 0, 3], row]
    named = dict(outputs(case, ONNX, rows).named)
    if profile.scores_output:
        named["selected_scores"] = np.zeros((len(rows), 3), dtype=np.float32)
        named["valid_outputs"] = np.array([len(rows)], dtype=np.int64)
    judgement = judge(case, profile, Outputs(named))
    assert (judgement.verdict, judgement.rules) == ("fail", ("index-range",))


@pytest.mark.parametrize("profile", ALL_PROFILES, ids=lambda p: p.label)
def test_a_row_given_twice_fails_index_unique(profile: Profile) -> None:
    """The same [batch, class, box] twice fails index-unique."""
    case = make_case(DISJOINT[:2], [[0.9, 0.8]])
    judgement = judged(case, profile, [[0, 0, 0], [0, 0, 0], [0, 0, 1]])
    assert (judgement.verdict, judgement.rules) == ("fail", ("index-unique",))


@pytest.mark.parametrize("profile", ALL_PROFILES, ids=lambda p: p.label)
def test_rows_of_two_columns_fail_shape(profile: Profile) -> None:
    """selected_indices of shape [N, 2] instead of [N, 3] fails the shape rule."""
    case = make_case(DISJOINT[:2], [[0.9, 0.8]])
    named: dict[str, np.ndarray[Any, Any]] = {"selected_indices": np.array([[0, 0], [0, 1]], dtype=np.int64),
             "selected_scores": np.zeros((2, 3), dtype=np.float32), "valid_outputs": np.array([2])}
    judgement = judge(case, profile, Outputs(named))
    assert (judgement.verdict, judgement.rules) == ("fail", ("shape",))
    assert "[2, 2]" in judgement.message


def test_indices_of_int32_fail_dtype() -> None:
    """The right rows as int32 instead of int64 fail the dtype rule alone."""
    case = make_case(DISJOINT[:2], [[0.9, 0.8]])
    judgement = judged(case, ONNX, [[0, 0, 0], [0, 0, 1]], dtype=np.int32)
    assert (judgement.verdict, judgement.rules) == ("fail", ("dtype",))


# --- 7. NaN scores -----------------------------------------------------------------------------------

@pytest.mark.parametrize("profile", ALL_PROFILES, ids=lambda p: p.label)
def test_a_nan_score_taken_as_the_highest_is_admitted(profile: Profile) -> None:
    """Two identical boxes, one scored NaN: keeping the NaN box (NaN above every number) is admitted, undefined."""
    case = make_case([UNIT, UNIT], [[1.0, NAN]])
    judgement = judged(case, profile, [[0, 0, 1]])
    assert judgement.verdict in ("pass", "divergent")
    assert judgement.domain == "undefined"


@pytest.mark.parametrize("profile", ALL_PROFILES, ids=lambda p: p.label)
def test_a_nan_score_taken_as_the_lowest_is_admitted(profile: Profile) -> None:
    """Keeping the number over the NaN (NaN below every number) is admitted too: the domain is undefined."""
    case = make_case([UNIT, UNIT], [[1.0, NAN]])
    judgement = judged(case, profile, [[0, 0, 0]])
    assert judgement.verdict in ("pass", "divergent")
    assert judgement.domain == "undefined"


def test_a_nan_score_does_not_excuse_keeping_both_overlapping_boxes() -> None:
    """Two identical boxes, one scored NaN, both kept: no placement of NaN gives that, selection fails."""
    case = make_case([UNIT, UNIT], [[1.0, NAN]])
    judgement = judged(case, ONNX, [[0, 0, 0], [0, 0, 1]])
    assert (judgement.verdict, judgement.rules, judgement.domain) == ("fail", ("selection",), "undefined")


def test_nan_placed_high_in_one_class_and_low_in_another_fails_nan_order() -> None:
    """NaN above every number in one class and below in another: each alone admissible, together nan-order."""
    case = make_case([UNIT, UNIT], [[NAN, 1.0], [NAN, 1.0]])
    judgement = judged(case, ONNX, [[0, 0, 0], [0, 1, 1]])
    assert (judgement.verdict, judgement.rules, judgement.domain) == ("fail", ("nan-order",), "undefined")


# --- 8. a brute force over every order of the equal scores ------------------------------------------

SCORE_VALUES = (0.25, 0.5, 0.75)
IOU_THRESHOLDS = (0.0, 0.25, 0.5, 1.0)
SCORE_THRESHOLDS = (None, 0.25, 0.5, 0.75)


@st.composite
def nms_cases(draw: st.DrawFn) -> Case:
    """One batch, 1-2 classes, up to 7 boxes of positive area on a small integer grid (so IoUs land
    exactly on thresholds), scores from a few values (so they tie), cap 0..8."""
    center = draw(st.sampled_from((0, 1)))
    n = draw(st.integers(0, 7))
    coordinate = st.integers(0, 3)
    boxes: list[list[float]] = []
    for _ in range(n):
        if center:
            size = st.integers(1, 3)
            boxes.append([draw(coordinate), draw(coordinate), draw(size), draw(size)])
        else:
            y1, y2 = draw(st.lists(coordinate, min_size=2, max_size=2, unique=True))
            x1, x2 = draw(st.lists(coordinate, min_size=2, max_size=2, unique=True))
            boxes.append([y1, x1, y2, x2])  # either diagonal pair
    classes = draw(st.integers(1, 2))
    scores = [[draw(st.sampled_from(SCORE_VALUES)) for _ in range(n)] for _ in range(classes)]
    return Case(id="nms-property", source="test", file=Path("<test>"),
                boxes=np.array(boxes, dtype=np.float32).reshape(1, n, 4),
                scores=np.array(scores, dtype=np.float32).reshape(1, classes, n),
                max_output=draw(st.integers(0, 8)), iou_threshold=draw(st.sampled_from(IOU_THRESHOLDS)),
                score_threshold=draw(st.sampled_from(SCORE_THRESHOLDS)), center_point_box=center)


def _float32_iou(boxes: np.ndarray, center: bool) -> np.ndarray:
    """IoU of every pair, in float32 as ONNX's reference evaluator computes it (independent of the judge's code)."""
    b = boxes.astype(np.float32)
    if center:
        half_w, half_h = b[:, 2] / np.float32(2), b[:, 3] / np.float32(2)
        b = np.stack([b[:, 1] - half_h, b[:, 0] - half_w, b[:, 1] + half_h, b[:, 0] + half_w], axis=1)
    y1, y2 = np.minimum(b[:, 0], b[:, 2]), np.maximum(b[:, 0], b[:, 2])
    x1, x2 = np.minimum(b[:, 1], b[:, 3]), np.maximum(b[:, 1], b[:, 3])
    area = (y2 - y1) * (x2 - x1)
    h = np.maximum(np.minimum(y2[:, None], y2[None, :]) - np.maximum(y1[:, None], y1[None, :]), np.float32(0))
    w = np.maximum(np.minimum(x2[:, None], x2[None, :]) - np.maximum(x1[:, None], x1[None, :]), np.float32(0))
    inter = h * w
    result: np.ndarray = inter / (area[:, None] + area[None, :] - inter)
    return result


def every_greedy_output(case: Case, profile: Profile, cls: int) -> tuple[set[frozenset[int]], frozenset[int]]:
    """Every set greedy NMS keeps for one class under some order of the equal scores, and the one
    it keeps taking equal scores in ascending box index."""
    reading = profile.reading(case)
    n = case.boxes.shape[1]
    suppresses = _float32_iou(case.boxes[0], reading.center) > np.float32(reading.iou_threshold)
    scores = [float(s) for s in case.scores[0, cls]]
    t = reading.score_threshold
    candidates = [i for i in range(n) if t is None or scores[i] >= t]
    values = sorted({scores[i] for i in candidates}, reverse=True)
    groups = [[i for i in candidates if scores[i] == v] for v in values]
    found: set[frozenset[int]] = set()
    common: frozenset[int] | None = None
    for orders in itertools.product(*(itertools.permutations(group) for group in groups)):
        kept: list[int] = []
        for box in itertools.chain.from_iterable(orders):
            if len(kept) >= reading.cap:
                break
            if not any(suppresses[box, k] for k in kept):
                kept.append(box)
        found.add(frozenset(kept))
        common = frozenset(kept) if common is None else common  # the first orders: ascending index
    assert common is not None
    return found, common


def ordered_rows(case: Case, profile: Profile, sets: Sequence[frozenset[int]]) -> list[list[int]]:
    """Rows [0, class, box] in the dialect's common order: by class, descending score and ascending
    box; with sort_result_descending, descending score first."""
    scores = case.scores[0]
    rows = [[0, cls, box] for cls, kept in enumerate(sets) for box in kept]
    if profile.order == "descending":
        rows.sort(key=lambda r: (-scores[r[1], r[2]], r[1], r[2]))
    else:
        rows.sort(key=lambda r: (r[1], -scores[r[1], r[2]], r[2]))
    return rows


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=nms_cases(), profile=st.sampled_from(ALL_PROFILES), data=st.data())
def test_the_judge_admits_exactly_what_some_order_of_equal_scores_gives(case: Case, profile: Profile,
                                                                        data: st.DataObject) -> None:
    """Over small random inputs, pass or divergent exactly for the sets a brute force over every order gives."""
    classes, n = case.scores.shape[1], case.scores.shape[2]
    admitted: list[set[frozenset[int]]] = []
    commons: list[frozenset[int]] = []
    for cls in range(classes):
        found, common = every_greedy_output(case, profile, cls)
        admitted.append(found)
        commons.append(common)

    answer = common_answer(case, profile)
    assert answer.tolist() == ordered_rows(case, profile, commons)
    assert judge(case, profile, outputs(case, profile, answer.tolist())) == Judgement("pass", (), "defined")

    # Each admissible set of each class (the other classes at the common answer): pass only for the common one.
    for cls in range(classes):
        for kept in admitted[cls]:
            sets = [kept if c == cls else commons[c] for c in range(classes)]
            judgement = judged(case, profile, ordered_rows(case, profile, sets))
            assert judgement.verdict == ("pass" if kept == commons[cls] else "divergent"), (cls, sorted(kept),
                                                                                             judgement)

    # A random subset per class: admitted exactly when each class's set is one some order gives.
    chosen = [frozenset(box for box in range(n) if data.draw(st.booleans())) for _ in range(classes)]
    judgement = judged(case, profile, ordered_rows(case, profile, chosen))
    if all(kept in admitted[cls] for cls, kept in enumerate(chosen)):
        assert judgement.verdict in ("pass", "divergent"), judgement
    else:
        assert judgement.verdict == "fail", (chosen, judgement)
        assert set(judgement.rules) <= {"selection", "iou-threshold", "score-threshold"}, judgement
        assert judgement.rules

    # Every set of one box more or one box fewer than an admissible one is no order's: it fails.
    for cls in range(classes):
        kept = next(iter(admitted[cls]))
        for box in range(n):
            flipped = kept ^ {box}
            sets = [flipped if c == cls else commons[c] for c in range(classes)]
            judgement = judged(case, profile, ordered_rows(case, profile, sets))
            assert (judgement.verdict == "fail") == (flipped not in admitted[cls]), (cls, sorted(flipped), judgement)


def test_boxes_without_area_keep_the_pairs_pruned_and_their_own_pairs_whole() -> None:
    """SSD300's NonMaxSuppression on a flat input gets 35,388 boxes, 1,347 of them without area:
    their pairs with each other (IoU 0/0) are all kept, and the rest are pruned as for boxes with
    area. Pruning nothing took 16 GB and did not finish."""
    rng = np.random.default_rng(3)
    corners = rng.uniform(0, 10_000, (20_000, 2)).astype(np.float32)
    boxes = np.concatenate([corners, corners + rng.uniform(4, 20, (20_000, 2)).astype(np.float32)], axis=1)
    flat = rng.choice(20_000, 300, replace=False)
    boxes[flat, 2] = boxes[flat, 0]
    geometry = select.Geometry.of(boxes, center=False)
    assert geometry.finite and int(geometry.flat.sum()) == 300
    pairs = select.overlaps_within(geometry, np.arange(20_000), select.Reading(100, 0.5, None, False))
    assert pairs.i.size < 2_000_000  # of 200 million
    flat_pairs = {(int(i), int(j)) for i, j in zip(pairs.i, pairs.j, strict=True)
                  if geometry.flat[i] and geometry.flat[j]}
    assert len(flat_pairs) == 300 * 299 // 2
    assert all(pairs.uncertain[geometry.flat[pairs.i] & geometry.flat[pairs.j]])


@pytest.mark.parametrize("spanning", [False, True])
@pytest.mark.parametrize("threshold", [0.0, 0.3, 0.7, -0.1])
def test_the_common_answer_over_thousands_of_boxes_is_greedy_nms_by_the_book(threshold: float,
                                                                              spanning: bool) -> None:
    """The common answer strikes out only boxes whose x extent meets a kept one's (a detector's
    NonMaxSuppression has thousands of boxes): the same boxes as greedy NMS computed the plain
    way, every IoU of every pair in float32, on boxes of many widths, some without area, a few
    with NaN corners, many equal scores, and (`spanning`) one box spanning the whole image."""
    rng = np.random.default_rng(7)
    n = 2_000
    corners = rng.uniform(0, 400, (n, 2)).astype(np.float32)
    boxes = np.concatenate([corners, corners + rng.uniform(0, 40, (n, 2)).astype(np.float32)], axis=1)
    flat = rng.choice(n, 40, replace=False)
    boxes[flat, 3] = boxes[flat, 1]
    if spanning:
        boxes[5] = [0, -1e30, 400, 1e30]
    boxes[rng.choice(n, 10, replace=False), 1] = np.nan
    scores = rng.integers(0, 50, n).astype(np.float32)
    reading = select.Reading(1_500, threshold, None, False)
    with np.errstate(invalid="ignore"):  # two boxes without area: IoU 0/0, NaN, suppressing nothing
        suppresses = _float32_iou(boxes, center=False) > np.float32(threshold)
    kept: list[int] = []
    for box in sorted(range(n), key=lambda i: (-scores[i], i)):
        if len(kept) < reading.cap and not suppresses[box, kept].any():
            kept.append(box)
    answer = select.greedy(select.Geometry.of(boxes, center=False), select.keys(scores, True),
                           np.ones(n, dtype=bool), reading)
    assert answer.tolist() == kept
