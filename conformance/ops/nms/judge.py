"""The judge of a NonMaxSuppression output (contract section 8): shape, dtype, index-range,
index-unique, selection (some order of the equal scores gives this set: conformance/ops/nms/
select.py), iou-threshold and score-threshold (a box exactly at a threshold treated against
the document), order (where the document states one), scores (OpenVINO's selected_scores and
valid_outputs), nan-order, and the common answer as the yardstick."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from conformance.core.dtypes import name_of, to_jsonable
from conformance.operator.discrepancy import summarized
from conformance.operator.outcome import Domain, Judgement, Outcome, Outputs, Raised, error_rule
from conformance.ops.nms.case import Case
from conformance.ops.nms.profiles import Profile
from conformance.ops.nms.select import Geometry, Reading, check_class, greedy, keys, passes_threshold

RULES = ("shape", "dtype", "index-range", "index-unique", "selection", "iou-threshold", "score-threshold", "order",
         "scores", "nan-order", "error")
SELECTED = "selected_indices"
# What the other reading of a threshold, which gives the set, is: said after the first problem.
_BOUNDARY = {
    ("score-threshold",): " (the set is what dropping a score equal to the score threshold gives)",
    ("iou-threshold",): " (the set is what suppressing a box whose IoU equals the IoU threshold gives)",
    ("score-threshold", "iou-threshold"): " (the set is what dropping a score equal to the score threshold and "
                                          "suppressing an IoU equal to the IoU threshold give)",
}


def domain_of(case: Case, profile: Profile) -> Domain:
    """Promised nothing: NaN or infinite coordinates or scores, zero-area boxes (IoU 0/0), an IoU
    threshold outside [0, 1] or NaN, a NaN score threshold, a negative cap, a type the document
    does not list."""
    if case.dtype_name not in profile.defined_dtypes or not case.shapes_agree:
        return "undefined"
    boxes, scores = case.boxes.astype(np.float64), case.scores.astype(np.float64)
    if not (np.isfinite(boxes).all() and np.isfinite(scores).all()):
        return "undefined"
    if boxes.size and (Geometry.of(boxes.reshape(-1, 4), case.center_point_box == 1).area == 0).any():
        return "undefined"
    iou, score = case.iou_threshold, case.score_threshold
    if iou is not None and not 0 <= iou <= 1:
        return "undefined"
    if (score is not None and np.isnan(score)) or (case.max_output is not None and case.max_output < 0):
        return "undefined"
    return "defined"


def judge(case: Case, profile: Profile, outcome: Outcome) -> Judgement:
    domain = domain_of(case, profile)
    if isinstance(outcome, Raised) or case.expect_error:
        shown = "" if isinstance(outcome, Raised) else f"{SELECTED} of shape {list(outcome[SELECTED].shape)}"
        return error_rule(outcome, case.expect_error, domain, shown)
    return _judge_output(case, profile, outcome, domain)


@dataclass(frozen=True)
class _Placement:
    """The set and order rules under one placement of NaN scores."""

    broken: tuple[str, ...]
    message: str  # the first problem
    pair: tuple[int, int]  # its batch and class
    common: bool  # the set is the common answer's
    failing: frozenset[tuple[int, int]] = frozenset()  # every batch and class whose set no order gives


def _judge_output(case: Case, profile: Profile, outcome: Outputs, domain: Domain) -> Judgement:
    indices = outcome[SELECTED]
    if indices.ndim != 2 or indices.shape[1] != 3:
        return Judgement("fail", ("shape",), domain, f"{SELECTED} has shape {list(indices.shape)}; want [N, 3]")
    broken: list[str] = []
    if indices.dtype != np.int64:
        broken.append("dtype")
    rows = indices.astype(np.int64)
    counted, count_problem = _valid_rows(profile, outcome, rows)
    if count_problem:
        broken.append("scores")
    rows = rows[:counted]
    b, c, n = case.scores.shape
    in_range = ((rows >= 0) & (rows < np.array([b, c, n]))).all(axis=1)
    if not in_range.all():
        bad = rows[~in_range][0].tolist()
        return Judgement("fail", (*broken, "index-range"), domain,
                         f"row {bad} is outside batches {b}, classes {c}, boxes {n}")
    if np.unique((rows[:, 0] * c + rows[:, 1]) * n + rows[:, 2]).size != len(rows):
        return Judgement("fail", (*broken, "index-unique"), domain, f"{SELECTED} names a box twice")
    score_problem = _scores_problem(case, profile, outcome, rows, counted)
    if score_problem and "scores" not in broken:
        broken.append("scores")
    placement = _judge_sets(case, profile, rows)
    broken += [rule for rule in placement.broken if rule not in broken]
    type_problem = f"{SELECTED} is {name_of(indices.dtype)}; want int64" if "dtype" in broken else ""
    messages = [m for m in (type_problem, count_problem, score_problem, placement.message) if m]
    if broken:
        ordered = tuple(rule for rule in RULES if rule in broken)
        text = f"{', '.join(ordered)} broken under {profile.label}: {'; '.join(messages)}"
        return Judgement("fail", ordered, domain, text, _note(case, profile, rows, placement.pair, ordered[0]))
    differs = _differs_from_reference(case, profile, rows, placement.common)
    if differs:
        note = _note(case, profile, rows, placement.pair, "common-answer")
        return Judgement("divergent", (), domain, f"admissible under {profile.label} but {differs}", note)
    return Judgement("pass", (), domain)


def _valid_rows(profile: Profile, outcome: Outputs, rows: np.ndarray[Any, Any]) -> tuple[int, str]:
    """How many rows are selected boxes: all of them for ONNX; OpenVINO's valid_outputs, the
    rows after it -1 (NonMaxSuppression-5's padding)."""
    if not profile.scores_output:
        return len(rows), ""
    valid = outcome.get("valid_outputs")
    if valid is None or valid.size != 1:
        return len(rows), "valid_outputs is missing or not one number"
    count = int(valid.reshape(-1)[0])
    if not 0 <= count <= len(rows):
        return len(rows), f"valid_outputs is {count}, with {len(rows)} rows"
    if (rows[count:] != -1).any():
        return count, f"rows after valid_outputs ({count}) are not -1 padding"
    return count, ""


def _scores_problem(case: Case, profile: Profile, outcome: Outputs, rows: np.ndarray[Any, Any], counted: int) -> str:
    """OpenVINO's selected_scores: each row [batch, class, score], the batch and class of the
    index row beside it, the score the input's, bit for bit in the input's type."""
    if not profile.scores_output:
        return ""
    selected = outcome.get("selected_scores")
    if selected is None or selected.ndim != 2 or selected.shape[1] != 3 or len(selected) < counted:
        shape = None if selected is None else list(selected.shape)
        return f"selected_scores has shape {shape}; want [{counted}, 3] or more"
    chosen = selected[:counted].astype(np.float64)
    if not (chosen[:, :2] == rows[:, :2]).all():
        return "selected_scores' batch and class differ from selected_indices'"
    want = case.scores[rows[:, 0], rows[:, 1], rows[:, 2]]
    got = selected[:counted, 2]
    if got.dtype == want.dtype:
        width = f"u{want.dtype.itemsize}"
        same = np.ascontiguousarray(got).view(width) == np.ascontiguousarray(want).view(width)
    else:
        same = (got.astype(np.float64) == want.astype(np.float64)) | (np.isnan(got.astype(np.float64))
                                                                    & np.isnan(want.astype(np.float64)))
    if not same.all():
        at = int(np.flatnonzero(~same)[0])
        return (f"selected_scores row {at} has score {got[at]!r} ({name_of(got.dtype)}); the box's score is "
                f"{want[at]!r} ({name_of(want.dtype)})")
    return ""


def _judge_sets(case: Case, profile: Profile, rows: np.ndarray[Any, Any]) -> _Placement:
    """The set and order rules, under NaN above every number and, where the scores hold NaN and
    that fails, below: a rule broken under both is broken; none broken under both, nan-order."""
    high = _placement(case, profile, rows, nan_high=True)
    if not high.broken or not np.isnan(case.scores.astype(np.float64)).any():
        return high
    low = _placement(case, profile, rows, nan_high=False)
    if not low.broken:
        return low
    if high.failing and low.failing and not high.failing & low.failing:
        # Each batch and class is admissible under one placement, but no one placement explains them all.
        return _Placement(("nan-order",), f"{high.message}; with NaN below every number, {low.message}",
                          high.pair, False)
    both = tuple(rule for rule in high.broken if rule in low.broken)
    return _Placement(both or ("nan-order",), high.message + ("" if both else " (and another rule with NaN "
                                                                                "below every number)"),
                      high.pair, False)


def _placement(case: Case, profile: Profile, rows: np.ndarray[Any, Any], nan_high: bool) -> _Placement:
    broken: list[str] = []
    message, pair = "", (0, 0)
    reading = profile.reading(case)
    problems, common = _problems(case, reading, rows, nan_high)
    failing = frozenset(pair for pair, _ in problems)
    if problems:
        pair, message = problems[0]
        broken = _explain(case, profile, rows, nan_high)
        message += _BOUNDARY.get(tuple(broken), "")
    order = _order_problem(profile, rows, _row_keys(case, rows, nan_high))
    if order:
        broken.append("order")
        message = message or order
    return _Placement(tuple(broken), message, pair, common and not problems, failing)


def _pairs(case: Case, rows: np.ndarray[Any, Any]) -> list[tuple[int, int, np.ndarray[Any, Any]]]:
    """Every batch and class with its kept boxes in the output's order (none kept included)."""
    b, c, _ = case.scores.shape
    key = rows[:, 0] * c + rows[:, 1]
    order = np.argsort(key, kind="stable")
    starts = np.searchsorted(key[order], np.arange(b * c + 1))
    return [(p // c, p % c, rows[order[starts[p]:starts[p + 1]], 2]) for p in range(b * c)]


def _problems(case: Case, reading: Reading, rows: np.ndarray[Any, Any], nan_high: bool,
              first_only: bool = False) -> tuple[list[tuple[tuple[int, int], str]], bool]:
    """Each batch and class whose set no order of the equal scores gives, with what is wrong;
    and whether every set is the common answer's."""
    passing = passes_threshold(case.scores, reading, nan_high)
    geometries: dict[int, Geometry] = {}
    found: list[tuple[tuple[int, int], str]] = []
    common = True
    for batch, cls, kept in _pairs(case, rows):
        if batch not in geometries:
            geometries[batch] = Geometry.of(case.boxes[batch], reading.center)
        checked = check_class(geometries[batch], keys(case.scores[batch, cls], nan_high), passing[batch, cls], kept,
                              reading)
        common = common and checked.common
        if checked.problem:
            found.append(((batch, cls), f"batch {batch}, class {cls}: {checked.problem}"))
            if first_only:
                break
    return found, common


def _row_keys(case: Case, rows: np.ndarray[Any, Any], nan_high: bool) -> np.ndarray[Any, Any]:
    """The selected rows' scores as keys (their order, NaN placed)."""
    return keys(case.scores[rows[:, 0], rows[:, 1], rows[:, 2]], nan_high) if len(rows) else np.zeros(0)


def _explain(case: Case, profile: Profile, rows: np.ndarray[Any, Any], nan_high: bool) -> list[str]:
    """Which rule a set that no order gives broke: the boundary rules where the other reading of
    a threshold (an IoU at it suppressing, a score at it dropped) gives the set, else selection."""
    # The score first: a score at its threshold decides whether a box is a candidate at all.
    for rules, iou, score in ((["score-threshold"], False, True), (["iou-threshold"], True, False),
                              (["iou-threshold", "score-threshold"], True, True)):
        other = profile.reading(case, suppresses_equal_iou=iou, drops_equal_score=score)
        if not _problems(case, other, rows, nan_high, first_only=True)[0]:
            return rules
    return ["selection"]


def _order_problem(profile: Profile, rows: np.ndarray[Any, Any], score_rank: np.ndarray[Any, Any]) -> str:
    """Rows out of the order the document states: OpenVINO's per class by descending score, or
    (sort_result_descending) every row by descending score."""
    if profile.order == "none" or len(rows) < 2:
        return ""
    if profile.order == "descending":
        rising = np.flatnonzero(score_rank[1:] > score_rank[:-1])
    else:
        same_class = (rows[1:, :2] == rows[:-1, :2]).all(axis=1)
        rising = np.flatnonzero(same_class & (score_rank[1:] > score_rank[:-1]))
    if rising.size:
        return f"row {int(rising[0]) + 1} has a higher score than the row before it"
    return ""


def common_order(profile: Profile, rows: np.ndarray[Any, Any],
                 score_rank: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The rows in the common answer's order for the dialect: by batch, class, descending score
    and ascending box; with sort_result_descending, by descending score first. `score_rank`: the
    rows' score keys."""
    if profile.order == "descending":
        order = np.lexsort((rows[:, 2], rows[:, 1], rows[:, 0], -score_rank))
    else:
        order = np.lexsort((rows[:, 2], -score_rank, rows[:, 1], rows[:, 0]))
    ordered: np.ndarray[Any, Any] = rows[order]
    return ordered


def _as_set(rows: np.ndarray[Any, Any]) -> set[tuple[int, ...]]:
    return {tuple(row) for row in rows.tolist()}


def _differs_from_reference(case: Case, profile: Profile, rows: np.ndarray[Any, Any], common: bool) -> str:
    """How an admissible output differs from the reference ("" where it does not): the case's
    expected rows (as a set), or the common answer; in its order where the document states one."""
    references = ([case.expected] if case.expected is not None else []) + list(case.expected_any)
    if references:
        if not any(_as_set(rows) == _as_set(answer) for answer in references):
            return "not the case's expected set of boxes"
    elif not common:
        return "not the common answer's set of boxes (equal scores taken in ascending box index)"
    if profile.order != "none" and not np.array_equal(rows, common_order(profile, rows, _row_keys(case, rows, True))):
        return "its rows are in another order than the common answer's (equal scores by ascending box index)"
    return ""


def common_answer(case: Case, profile: Profile, nan_high: bool = True) -> np.ndarray[Any, Any]:
    """The common answer's rows [batch, class, box] in the dialect's order."""
    reading = profile.reading(case)
    passing = passes_threshold(case.scores, reading, nan_high)
    found: list[list[int]] = []
    b, c, _ = case.scores.shape
    for batch in range(b):
        geometry = Geometry.of(case.boxes[batch], reading.center)
        for cls in range(c):
            kept = greedy(geometry, keys(case.scores[batch, cls], nan_high), passing[batch, cls], reading)
            found += [[batch, cls, int(box)] for box in kept]
    rows = np.array(found, dtype=np.int64).reshape(-1, 3)
    return common_order(profile, rows, _row_keys(case, rows, nan_high))


def _note(case: Case, profile: Profile, rows: np.ndarray[Any, Any], pair: tuple[int, int], rule: str) -> dict[str, Any]:
    """The batch and class where a discrepancy shows: its scores, the boxes the output kept
    there and those the common answer keeps."""
    batch, cls = pair
    if not case.scores.size or batch >= case.scores.shape[0] or cls >= case.scores.shape[1]:
        return {"rule": rule, "sequence": [batch, cls], "input": [], "output": to_jsonable(rows[:, 2]),
                "expected_output": [], "reference": "the common answer"}
    reading = profile.reading(case)
    geometry = Geometry.of(case.boxes[batch], reading.center)
    passing = passes_threshold(case.scores[batch, cls], reading, True)
    kept = rows[(rows[:, 0] == batch) & (rows[:, 1] == cls), 2]
    answer = greedy(geometry, keys(case.scores[batch, cls], True), passing, reading)
    marks = [int(i) for i in np.concatenate([kept, answer])][:5]
    return {"rule": rule, "sequence": [batch, cls], "input": summarized(case.scores[batch, cls], marks),
            "output": to_jsonable(kept), "expected_output": to_jsonable(answer),
            "reference": "the common answer"}
