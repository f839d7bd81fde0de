"""ArgMax / ArgMin case fields (contract section 6): their schema, their checks against each
other and the input, and the case's own expected indices judged as a backend's would be."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from conformance.core.dtypes import INDEX_DTYPES
from conformance.operator.outcome import Outputs
from conformance.operator.record import CaseFieldError, CaseSource, checked_axes
from conformance.ops.argmax import profiles
from conformance.ops.argmax.case import Case
from conformance.ops.argmax.judge import judge

_INT64 = {"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1}
_ANSWER = {
    "type": "object", "required": ["indices"], "additionalProperties": False,
    # A list, or one integer where every axis is reduced and keepdims is false (a 0-d output).
    "properties": {"indices": {"type": ["array", "integer"]}},
}
CASE_FIELDS: dict[str, Any] = {
    "axis": {"oneOf": [_INT64, {"type": "array", "minItems": 1, "maxItems": 8, "items": _INT64}]},
    "keepdims": {"type": "boolean"},
    "select_last_index": {"type": "boolean"},
    "index_type": {"enum": ["int32", "int64", "uint32", "uint64"]},
    "expected": _ANSWER,
    "expected_any": {"type": "array", "minItems": 1, "items": _ANSWER},
}
REQUIRED_FIELDS: tuple[str, ...] = ()
DEFAULT_AXIS = 0  # a case without `axis`: ONNX's default, the first axis (contract section 7)


def case_loader(op: str) -> Callable[[CaseSource], Case]:
    def load_case(source: CaseSource) -> Case:
        return _load(op, source)

    return load_case


def _load(op: str, source: CaseSource) -> Case:
    raw, shape = source.raw, source.shape
    written = raw.get("axis")
    axes = tuple(written) if isinstance(written, list) else (DEFAULT_AXIS if written is None else written,)
    checked_axes(written, axes, len(shape), source.expect_error)
    x = source.make_input(axes[0] % len(shape))
    case = Case(
        id=source.id, source=source.source, file=source.file, x=x, axes=axes, op=op,
        keepdims=raw.get("keepdims", True), select_last_index=raw.get("select_last_index", False),
        index_type=raw.get("index_type"), tags=source.tags, expect_error=source.expect_error,
        graphs=source.graphs, repeat=source.repeat, input_spec=source.input_spec, axis_written=written,
        attributes=source.attributes,
    )
    out_shape = case.output_shape(case.keepdims)
    expected = None
    if "expected" in raw:
        expected = _indices(source, case, raw["expected"], out_shape, "expected")
    expected_any = tuple(_indices(source, case, answer, out_shape, f"expected_any[{i}]")
                         for i, answer in enumerate(raw.get("expected_any", [])))
    case = dataclasses.replace(case, expected=expected, expected_any=expected_any)
    _check_expected(case)
    return case


def _indices(source: CaseSource, case: Case, raw: dict[str, Any], shape: tuple[int, ...], where: str) -> Any:
    indices = source.tensor(raw["indices"], shape, np.dtype(np.int64), f"{where}.indices")
    if indices.size and not ((indices >= 0) & (indices < case.n)).all():
        raise CaseFieldError(f"{where}.indices", f"an index outside [0, {case.n})")
    return indices


def _check_expected(case: Case) -> None:
    """`expected` must be the DirectML answer (the first index of the extreme, the last with
    select_last_index); each of `expected_any` any index of an extreme (ONNX before opset 12,
    the loosest rule). Not checked for an input with NaN or a case that expects an error."""
    if case.expect_error or case.n == 0 or case.nan_rows.any():
        return
    bare = dataclasses.replace(case, expected=None, expected_any=())
    name = "ArgMax" if case.largest else "ArgMin"
    checks = [("expected", case.expected, profiles.directml(name.upper(), "int64", case.select_last_index), True)]
    checks += [(f"expected_any[{i}]", answer, profiles.onnx(name, 11, False), False)
               for i, answer in enumerate(case.expected_any)]
    for where, answer, profile, strict in checks:
        if answer is None:
            continue
        judgement = judge(bare, profile, Outputs({"indices": answer.astype(INDEX_DTYPES["int64"])}))
        if judgement.verdict == "pass" or (not strict and judgement.verdict == "divergent"):
            continue
        note = judgement.discrepancy or {}
        what = f"{', '.join(judgement.rules)} broken" if judgement.rules else "not the DirectML answer"
        raise CaseFieldError(f"{where}.indices", f"output element {note.get('sequence', [])}: {what} under "
                             f"{profile.label}; got index {note.get('indices')}, the DirectML answer is "
                             f"{note.get('expected_indices')}")
