"""What each NonMaxSuppression document promises for a case (contract section 8), as the judge
applies it: how it reads the cap and the thresholds (and their defaults where the graph leaves
them out), the order it states for the output, and the outputs it gives."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from conformance.ops.nms.case import Case
from conformance.ops.nms.select import Reading

Dialect = Literal["onnx", "openvino"]
# "none": ONNX's output is "a set"; "class": OpenVINO's rows of one batch and class by
# descending score; "descending": OpenVINO's sort_result_descending, every row by descending score.
Order = Literal["none", "class", "descending"]

ONNX_DTYPES = frozenset({"float32"})
OPENVINO_DTYPES = frozenset({"float32", "float16", "bfloat16"})


@dataclass(frozen=True)
class Profile:
    dialect: Dialect
    label: str  # "ONNX NonMaxSuppression-11", "OpenVINO NonMaxSuppression-9 sort_result_descending=true"
    order: Order
    # Where the graph leaves the score threshold out: ONNX then has none, OpenVINO's default is 0.
    default_score_threshold: float | None
    scores_output: bool  # OpenVINO's selected_scores and valid_outputs
    defined_dtypes: frozenset[str]

    def reading(self, case: Case, suppresses_equal_iou: bool = False, drops_equal_score: bool = False) -> Reading:
        """The case's parameters as this document reads them; left out, the document's defaults
        (the cap 0: nothing kept; the IoU threshold 0)."""
        score = case.score_threshold if case.score_threshold is not None else self.default_score_threshold
        return Reading(cap=case.max_output if case.max_output is not None else 0,
                       iou_threshold=case.iou_threshold if case.iou_threshold is not None else 0.0,
                       score_threshold=score, center=case.center_point_box == 1,
                       drops_equal_score=drops_equal_score, suppresses_equal_iou=suppresses_equal_iou)


def onnx(opset: int) -> Profile:
    return Profile("onnx", f"ONNX NonMaxSuppression-{opset}", "none", None, False, ONNX_DTYPES)


def openvino(version: int, sort_descending: bool) -> Profile:
    order: Order = "descending" if sort_descending else "class"
    flag = "true" if sort_descending else "false"
    return Profile("openvino", f"OpenVINO NonMaxSuppression-{version} sort_result_descending={flag}", order, 0.0,
                   True, OPENVINO_DTYPES)
