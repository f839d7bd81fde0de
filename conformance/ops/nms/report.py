"""NonMaxSuppression in the HTML report (its record's `report`): the two documents and what each
says (contract section 8's table), how a backend's results bear on each aspect, and the case's
input line."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from conformance.operator.report import Aspect, Observe, ReportAspects, ResultView, counts_text
from conformance.ops.nms.case import Case
from conformance.ops.nms.variants import Variant

Results = Sequence[ResultView]
Cases = Mapping[str, Case]

DOCUMENTS = ("ONNX NonMaxSuppression-10 and -11", "OpenVINO NonMaxSuppression-5 and -9")


def _observe(tag: str, rules: tuple[str, ...]) -> Observe[Case]:
    def observed(results: Results, cases: Cases) -> list[str]:
        picked = [r for r in results if tag in r.tags and r.verdict != "skip"]
        if not picked:
            return [f"no {tag.replace('_', ' ')} case ran"]
        broken = [r for r in picked if set(rules) & set(r.rules)]
        return [f"{tag.replace('_', ' ')} cases: {counts_text(picked)}",
                f"{', '.join(rules)} broken there: {len(broken)}"]
    return observed


ASPECTS = (
    Aspect("equal scores", ("not specified", "not specified (\"take the box with highest score\")"),
           _observe("ties", ("selection",))),
    Aspect("IoU at the threshold", ("kept (suppressed when IoU is strictly greater); default 0",
                                    "kept (iou <= iou_threshold); default 0"),
           _observe("iou_threshold", ("iou-threshold",))),
    Aspect("score at the threshold", ("kept (a lower score is removed); left out: no threshold",
                                      "kept (greater or equal); default 0"),
           _observe("score_threshold", ("score-threshold",))),
    Aspect("output order", ("a set", "per class by score; sort_result_descending: across batches by score"),
           _observe("order", ("order",))),
    Aspect("NaN", ("not specified", "not specified"), _observe("nan", ("nan-order", "selection"))),
)


def input_line(case: Case) -> str:
    parts = [f"boxes {list(case.boxes.shape)}"]
    for name, value in (("max_output_boxes_per_class", case.max_output), ("iou_threshold", case.iou_threshold),
                        ("score_threshold", case.score_threshold)):
        parts.append(f"{name} {'left out' if value is None else value}")
    if case.center_point_box:
        parts.append("center_point_box 1")
    if case.sort_result_descending is not None:
        parts.append(f"sort_result_descending {str(case.sort_result_descending).lower()}")
    return ", ".join(parts) + (", attributes minimal" if case.attributes == "minimal" else "")


def reference_from(case: Case, variant: Variant) -> str:
    return "the case's expected rows" if case.expected is not None or case.expected_any else "the common answer"


REPORT: ReportAspects[Case, Variant] = ReportAspects(
    documents=DOCUMENTS, aspects=ASPECTS, input_line=input_line, reference_from=reference_from,
    reference_unknown="the case's expected rows or the common answer (case file not found)",
    outputs_shown=("selected_indices",),
)
