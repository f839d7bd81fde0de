"""Hardmax case fields (contract section 7): their schema, their checks against each other
and the input, and the case's own expected output judged as a backend's would be."""

from __future__ import annotations

import dataclasses
from typing import Any

from conformance.operator.outcome import Outputs
from conformance.operator.record import CaseFieldError, CaseSource, checked_axes
from conformance.ops.hardmax import profiles
from conformance.ops.hardmax.case import Case, nan_rows
from conformance.ops.hardmax.judge import judge

_INT64 = {"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1}
_ANSWER = {
    "type": "object", "required": ["output"], "additionalProperties": False,
    "properties": {"output": {"type": "array"}},
}
CASE_FIELDS: dict[str, Any] = {
    # An integer (the ONNX attribute; HARDMAX1's one axis), or a list: the rows HARDMAX1's
    # Axes give, which an ONNX graph expresses only where its own rows are those.
    "axis": {"oneOf": [_INT64, {"type": "array", "minItems": 1, "maxItems": 8, "items": _INT64}]},
    "expected": _ANSWER,
    "expected_any": {"type": "array", "minItems": 1, "items": _ANSWER},
}
REQUIRED_FIELDS: tuple[str, ...] = ()  # no axis: each opset's default (1 for 1 and 11, -1 from 13)


def load_case(source: CaseSource) -> Case:
    raw, shape = source.raw, source.shape
    written = raw.get("axis")
    axes = tuple(written) if isinstance(written, list) else (() if written is None else (written,))
    valid = checked_axes(written, axes, len(shape), source.expect_error)
    x = source.make_input(valid[0] if valid else len(shape) - 1)
    case = Case(
        id=source.id, source=source.source, file=source.file, x=x, axis_written=written, tags=source.tags,
        expect_error=source.expect_error, graphs=source.graphs, repeat=source.repeat,
        input_spec=source.input_spec, attributes=source.attributes,
    )
    expected = _output(source, case, raw["expected"], "expected") if "expected" in raw else None
    expected_any = tuple(_output(source, case, answer, f"expected_any[{i}]")
                         for i, answer in enumerate(raw.get("expected_any", [])))
    case = dataclasses.replace(case, expected=expected, expected_any=expected_any)
    _check_expected(case)
    return case


def _output(source: CaseSource, case: Case, raw: dict[str, Any], where: str) -> Any:
    return source.tensor(raw["output"], case.x.shape, case.x.dtype, f"{where}.output")


def _check_expected(case: Case) -> None:
    """`expected` and each of `expected_any` must be the DirectML answer for the case's own
    rows (its axis along one axis, a list flattened; absent, the last axis), as DirectML
    HARDMAX1 would give it: every document takes the first maximum. Not checked for an input
    with NaN or a case that expects an error."""
    if case.expect_error or not case.x.size or nan_rows(case.x, case.own_rows).any():
        return
    bare = dataclasses.replace(case, expected=None, expected_any=())
    profile = profiles.directml("ACTIVATION_HARDMAX1", case.own_rows)
    answers = [("expected", case.expected)] + [(f"expected_any[{i}]", a) for i, a in enumerate(case.expected_any)]
    for where, answer in answers:
        if answer is None:
            continue
        judgement = judge(bare, profile, Outputs({"output": answer}))
        if judgement.verdict == "pass":
            continue
        note = judgement.discrepancy or {}
        what = f"{', '.join(judgement.rules)} broken" if judgement.rules else "not the DirectML answer"
        raise CaseFieldError(f"{where}.output", f"row {note.get('sequence', [])}: {what} under {profile.label}; "
                             f"got {note.get('output')}, the DirectML answer is {note.get('expected_output')}")
