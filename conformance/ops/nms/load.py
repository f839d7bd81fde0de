"""NonMaxSuppression case fields (contract section 8): their schema, their checks against each
other and the inputs, and the case's own expected rows judged as a backend's output would be."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from conformance.operator.outcome import Outputs
from conformance.operator.record import CaseFieldError, CaseSource
from conformance.ops.nms import profiles
from conformance.ops.nms.case import Case
from conformance.ops.nms.judge import domain_of, judge

_INT64 = {"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1}
# A threshold: a number, or "nan", "inf", "-inf" as case files write special values.
_THRESHOLD = {"oneOf": [{"type": "number"}, {"enum": ["nan", "inf", "-inf"]}]}
_ANSWER = {
    "type": "object", "required": ["selected_indices"], "additionalProperties": False,
    "properties": {"selected_indices": {"type": "array"}},
}
TENSOR_INPUTS = ("boxes", "scores")
CASE_FIELDS: dict[str, Any] = {
    "max_output_boxes_per_class": _INT64,
    "iou_threshold": _THRESHOLD,
    "score_threshold": _THRESHOLD,
    "center_point_box": {"enum": [0, 1]},
    "sort_result_descending": {"type": "boolean"},
    "expected": _ANSWER,
    "expected_any": {"type": "array", "minItems": 1, "items": _ANSWER},
}
REQUIRED_FIELDS: tuple[str, ...] = ()


def _threshold(raw: Mapping[str, Any], name: str) -> float | None:
    value = raw.get(name)
    return None if value is None else float(value)


def load_case(source: CaseSource) -> Case:
    raw = source.raw
    boxes, scores = source.named_input("boxes"), source.named_input("scores")
    if boxes.dtype != scores.dtype:
        raise CaseFieldError("scores.dtype", f"{scores.dtype} where boxes are {boxes.dtype}: one type for both")
    case = Case(
        id=source.id, source=source.source, file=source.file, boxes=boxes, scores=scores,
        max_output=raw.get("max_output_boxes_per_class"), iou_threshold=_threshold(raw, "iou_threshold"),
        score_threshold=_threshold(raw, "score_threshold"), center_point_box=raw.get("center_point_box", 0),
        sort_result_descending=raw.get("sort_result_descending"), tags=source.tags,
        expect_error=source.expect_error, graphs=source.graphs, repeat=source.repeat,
        input_spec={**source.input_spec, "boxes": raw["boxes"].get("shape"), "scores": raw["scores"].get("shape")},
        attributes=source.attributes,
    )
    if not case.shapes_agree and not case.expect_error:
        raise CaseFieldError("scores.shape", f"boxes {list(boxes.shape)} and scores {list(scores.shape)} do not "
                             "agree: boxes are [batches, boxes, 4] and scores [batches, classes, boxes]")
    expected = _rows(raw["expected"], "expected") if "expected" in raw else None
    expected_any = tuple(_rows(answer, f"expected_any[{i}]") for i, answer in enumerate(raw.get("expected_any", [])))
    case = dataclasses.replace(case, expected=expected, expected_any=expected_any)
    _check_expected(case)
    return case


def _rows(raw: dict[str, Any], where: str) -> np.ndarray[Any, Any]:
    data = raw["selected_indices"]
    if not all(isinstance(row, list) and len(row) == 3 and all(isinstance(v, int) and not isinstance(v, bool)
                                                                for v in row) for row in data):
        raise CaseFieldError(f"{where}.selected_indices", "rows of three integers [batch, class, box]")
    return np.array(data, dtype=np.int64).reshape(-1, 3)


def _check_expected(case: Case) -> None:
    """`expected` and each of `expected_any` must be outputs ONNX admits for the case (some order
    of its equal scores gives each). Not checked outside the defined domain or where an error
    is expected."""
    profile = profiles.onnx(11)
    if case.expect_error or domain_of(case, profile) == "undefined" or case.dtype_name not in profiles.ONNX_DTYPES:
        return
    bare = dataclasses.replace(case, expected=None, expected_any=())
    answers = [("expected", case.expected)] + [(f"expected_any[{i}]", a) for i, a in enumerate(case.expected_any)]
    for where, answer in answers:
        if answer is None:
            continue
        judgement = judge(bare, profile, Outputs({"selected_indices": answer}))
        if judgement.verdict not in ("pass", "divergent"):
            raise CaseFieldError(f"{where}.selected_indices", f"not an output {profile.label} admits: "
                                 f"{judgement.message}")


