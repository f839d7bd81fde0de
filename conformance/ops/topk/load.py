"""TopK's case fields: their schema, their checks against each other and the input, and the
case's own expected outputs judged as if a backend had produced them."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from conformance.core.keys import has_nan
from conformance.core.sequences import output_shape
from conformance.operator.outcome import Judgement, Outputs
from conformance.operator.record import CaseFieldError, CaseSource
from conformance.ops.topk import profiles
from conformance.ops.topk.case import Case
from conformance.ops.topk.judge import judge
from conformance.ops.topk.oracle import Answer

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_INT64 = {"type": "integer", "minimum": _INT64_MIN, "maximum": _INT64_MAX}

# JSON Schema properties of TopK's own case fields (contract section 3), beside the common ones.
CASE_FIELDS: dict[str, Any] = {
    "axis": _INT64,
    "k": _INT64,
    "largest": {"type": "boolean"},
    "sort": {"enum": ["value", "index", "none"]},
    "stable": {"type": "boolean"},
    "index_type": {"enum": ["int32", "int64"]},
    "expected": {"$ref": "#/$defs/answer"},
    "expected_any": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/answer"}},
}
REQUIRED_FIELDS = ("k",)
DEFAULT_AXIS = -1  # a case without `axis`: ONNX's default, the last axis (contract section 7)


def load_case(source: CaseSource) -> Case:
    raw = source.raw
    shape = source.shape
    axis, k = raw.get("axis", DEFAULT_AXIS), raw["k"]
    if not -len(shape) <= axis < len(shape):
        raise CaseFieldError("axis", f"{axis} is out of range for rank {len(shape)} "
                             f"(valid: {-len(shape)}..{len(shape) - 1})")
    if not _INT64_MIN <= k <= _INT64_MAX:  # the schema says so too; K is made an int64 tensor below
        raise CaseFieldError("k", f"{k} is outside int64 ({_INT64_MIN}..{_INT64_MAX}); K is an int64 in every graph")
    x = source.make_input(axis)
    n = shape[axis]
    if not 0 <= k <= n and not source.expect_error:
        raise CaseFieldError("k", f"{k} is outside [0, {n}] for axis {axis}; a case that wants an error says "
                             "expect_error: true")
    out_shape = output_shape(shape, axis % len(shape), k)
    expected = _answer(source, raw["expected"], out_shape, x, axis, "expected") if "expected" in raw else None
    expected_any = tuple(
        _answer(source, answer, out_shape, x, axis, f"expected_any[{i}]")
        for i, answer in enumerate(raw.get("expected_any", []))
    )
    case = Case(
        id=source.id, source=source.source, file=source.file, x=x, axis=axis, k=k,
        largest=raw.get("largest", True), sort=raw.get("sort", "value"),
        stable=raw.get("stable"), index_type=raw.get("index_type"),
        tags=source.tags, expected=expected, expected_any=expected_any,
        expect_error=source.expect_error, graphs=source.graphs, repeat=source.repeat,
        input_spec=source.input_spec, attributes=source.attributes,
    )
    _check_expected(case)
    return case


def _answer(source: CaseSource, raw: dict[str, Any], shape: tuple[int, ...], x: np.ndarray[Any, Any],
            axis: int, where: str) -> Answer:
    """An expected output. Without `values` (the source checks the indices only) the values
    are the input's at the indices, so that comparing them adds nothing to the indices and
    the gather rule."""
    n = x.shape[axis]
    indices = source.tensor(raw["indices"], shape, np.dtype(np.int64), f"{where}.indices")
    if indices.size and not ((indices >= 0) & (indices < n)).all():
        raise CaseFieldError(f"{where}.indices", f"an index outside [0, {n})")
    if "values" not in raw:
        return Answer(np.take_along_axis(x, indices, axis=axis), indices, values_given=False)
    return Answer(source.tensor(raw["values"], shape, x.dtype, f"{where}.values"), indices)


def _check_expected(case: Case) -> None:
    """`expected` must be the DirectML answer in the case's own sort order (by value, ties by
    ascending index; by ascending index; the same selection for sort: none), and each of
    `expected_any` a valid output under the loosest of the three documents' rules (OpenVINO
    stable=false in the case's sort order). The DirectML rule defines nothing for an input
    with NaN, and a case that expects an error has no output: those are not checked."""
    with np.errstate(invalid="ignore"):  # a signalling NaN widened to float64 is no error
        nan = has_nan(case.x)
    if case.expect_error or nan:
        return
    # The same case without its answers: the judge then compares with the DirectML answer.
    bare = dataclasses.replace(case, expected=None, expected_any=())
    if case.expected is not None:
        strict = {
            "value": profiles.directml(),
            "index": profiles.openvino("index", stable=True),
            "none": profiles.onnx(sorted_=False),  # lowest-indexed ties selected, no order
        }[case.sort]
        _check_answer(bare, case.expected, strict, "expected", "the DirectML rule", strict=True)
    loose = profiles.openvino(case.sort, stable=False)
    for i, answer in enumerate(case.expected_any):
        _check_answer(bare, answer, loose, f"expected_any[{i}]", loose.label, strict=False)


def _check_answer(case: Case, answer: Answer, profile: profiles.Profile, where: str, rule: str, strict: bool) -> None:
    def verdict_ok(judgement: Judgement) -> bool:
        return judgement.verdict == "pass" or (not strict and judgement.verdict == "divergent")

    indices = answer.indices.astype(profile.index_dtype)
    whole = judge(case, profile, Outputs({"values": answer.values, "indices": indices}))
    if verdict_ok(whole):
        return
    # Which field is wrong: the indices if they fail on their own (with the input's values
    # at them), else the values.
    gathered = np.take_along_axis(case.x, answer.indices, axis=case.axis_index)
    alone = judge(case, profile, Outputs({"values": gathered, "indices": indices}))
    if not verdict_ok(alone):
        raise CaseFieldError(f"{where}.indices", _broken(alone, "indices", rule, strict, case.sort))
    raise CaseFieldError(f"{where}.values", _broken(whole, "values", rule, strict, case.sort))


def _broken(judgement: Judgement, field: str, rule: str, strict: bool, sort: str) -> str:
    note = judgement.discrepancy or {}
    sequence = note.get("sequence")
    where = f"sequence {sequence}" if sequence else "the sequence"  # [] for a 1-D input
    what = f"{', '.join(judgement.rules)} broken" if judgement.rules else "not the DirectML answer"
    text = f"{where}: {what} under {rule}"
    if not strict:
        text += " (the loosest of the three documents' rules)"
    if field == "values":
        text += f": values {note.get('values')} are not the input's at indices {note.get('indices')}"
    else:
        text += f"; got indices {note.get('indices')}"
    if strict and field == "values":
        text += f"; the DirectML answer (sort={sort}) has values {note.get('expected_values')}"
    elif strict and sort == "none":
        text += f", the DirectML answer selects {sorted(note.get('expected_indices', []))} (sort=none: in any order)"
    elif strict:
        text += f", the DirectML answer (sort={sort}) is {note.get('expected_indices')}"
    return text
