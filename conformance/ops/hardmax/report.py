"""Hardmax in the HTML report (its record's `report`): the four documents and what each says
(contract section 7's table), how a backend's results bear on each aspect, the case's input
line, and where a discrepancy's reference came from."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from conformance.operator.report import Aspect, ReportAspects, ResultView, counts_text
from conformance.ops.hardmax.case import Case
from conformance.ops.hardmax.judge import reference
from conformance.ops.hardmax.variants import Variant

Results = Sequence[ResultView]
Cases = Mapping[str, Case]

DOCUMENTS = ("ONNX Hardmax-1 and -11", "ONNX Hardmax-13", "DirectML HARDMAX", "DirectML HARDMAX1")


def _opset(graph: str) -> int | None:
    """The opset of an ONNX graph's name (`onnx-opset13-minimal` -> 13), else None."""
    found = re.match(r"onnx-opset(\d+)", graph)
    return int(found.group(1)) if found else None


def _rows(results: Results, cases: Cases) -> list[str]:
    lines = []
    for label, chosen in (("opsets 1 and 11 (rows from axis on)", (1, 11)), ("opset 13 (one axis)", (13,))):
        picked = [r for r in results if _opset(r.graph) in chosen]
        if picked:
            lines.append(f"{label}: {counts_text(picked)}")
    return lines or ["no ONNX results"]


def _ties(results: Results, cases: Cases) -> list[str]:
    tied = [r for r in results if "ties" in r.tags and r.domain == "defined" and r.verdict != "skip"]
    broken = [r for r in tied if {"selection", "one-hot"} & set(r.rules)]
    return [f"cases with ties: {counts_text(tied)}", f"selection or one-hot broken there: {len(broken)}"]


def _nan(results: Results, cases: Cases) -> list[str]:
    nan = [r for r in results if "nan" in r.tags and r.verdict != "skip"]
    return [f"cases with NaN: {counts_text(nan)}"] if nan else ["no NaN case ran"]


ASPECTS = (
    Aspect("where it chooses", ("the input coerced to 2-D at axis (default 1): a row is every dimension from "
                                "axis on, flattened", "along one axis (default -1)",
                                "each row of an input of effective rank <= 2",
                                "along Axes, flattened in order"), _rows),
    Aspect("ties", ("\"1 for the first maximum value\"", "\"1 if the element is the first maximum value along the "
                    "specified axis\"", "\"the first occurrence of the largest value\"",
                    "first: ARGMAX with increasing direction"), _ties),
    Aspect("NaN", ("not specified",) * 4, _nan),
)


def input_line(case: Case) -> str:
    axis = "absent (each opset's default)" if case.axis_written is None else case.axis_written
    return f"axis {axis}" + (", attributes minimal" if case.attributes == "minimal" else "")


def reference_from(case: Case, variant: Variant) -> str:
    if not case.axes_in_range or variant.cannot_express(case):
        return "the DirectML answer"
    return reference(case, variant.profile(case))[1]


REPORT: ReportAspects[Case, Variant] = ReportAspects(
    documents=DOCUMENTS, aspects=ASPECTS, input_line=input_line, reference_from=reference_from,
    reference_unknown="the case's expected output or the DirectML answer (case file not found)",
)
