"""The judge of a Hardmax output (contract section 7): shape, dtype, one-hot (each row holds
exactly one 1, every other element 0), selection (the 1 is at the first maximum of its row:
every document takes the first), nan-order (one placement of NaN, all above or all below
every number, explains every row), and the DirectML answer as the yardstick. A row is the
graph's own (the profile's row axes)."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.core.dtypes import name_of
from conformance.operator.discrepancy import located, summarized
from conformance.operator.outcome import Domain, Judgement, Outcome, Raised, error_rule
from conformance.ops.hardmax.case import Case, canonical, directml_answer, first_maximum, kept_shape, nan_rows, rows
from conformance.ops.hardmax.profiles import Profile

RULES = ("shape", "dtype", "one-hot", "selection", "nan-order", "error")


def domain_of(case: Case, profile: Profile) -> Domain:
    """NaN in a row, and types or ranks outside the document's tables, are promised nothing."""
    if not profile.defines(case.dtype_name, case.x.ndim):
        return "undefined"
    if case.x.size and profile.row_axes and nan_rows(case.x, profile.row_axes).any():
        return "undefined"
    return "defined"


def reference(case: Case, profile: Profile) -> tuple[np.ndarray[Any, Any], str]:
    """The answer an output is compared with: the case's `expected` where the graph's rows
    are the case's own (as the file states them), else the DirectML answer for the graph's rows."""
    shape = case.x.shape
    if case.expected is not None and canonical(shape, profile.row_axes) == canonical(shape, case.own_rows):
        return case.expected, "the case's expected output"
    return directml_answer(case.x, profile.row_axes), "the DirectML answer"


def judge(case: Case, profile: Profile, outcome: Outcome) -> Judgement:
    domain = domain_of(case, profile)
    if isinstance(outcome, Raised) or case.expect_error:
        shown = "" if isinstance(outcome, Raised) else f"an output of shape {list(outcome['output'].shape)}"
        return error_rule(outcome, case.expect_error, domain, shown)
    return _judge_output(case, profile, outcome["output"], domain)


def _judge_output(case: Case, profile: Profile, output: np.ndarray[Any, Any], domain: Domain) -> Judgement:
    broken: list[str] = []
    if output.shape != case.x.shape:
        broken.append("shape")
    if output.dtype != case.x.dtype:
        broken.append("dtype")
    if "shape" in broken or (output.dtype.kind not in "fiub" and name_of(output.dtype) != "bfloat16"):
        return Judgement("fail", tuple(broken), domain,
                         f"got {list(output.shape)} {name_of(output.dtype)}; "
                         f"want {list(case.x.shape)} {name_of(case.x.dtype)}")
    axes = profile.row_axes
    x_rows, y_rows = rows(case.x, axes), rows(output, axes)
    with np.errstate(invalid="ignore", over="ignore"):
        values = y_rows.astype(np.float64)
    ones, zeros = values == 1, values == 0
    width = x_rows.shape[1]
    one_hot = (ones | zeros).all(axis=1) & (ones.sum(axis=1) == (1 if width else 0))
    bad = {"one-hot": ~one_hot}
    if width:
        at = np.argmax(ones, axis=1)
        high = (at != first_maximum(x_rows, nan_high=True)) & one_hot
        nan = nan_rows(case.x, axes)
        if nan.any() and high[nan].any():
            low = (at != first_maximum(x_rows, nan_high=False)) & one_hot
            if low[nan].any():
                # No one placement of NaN explains the output: what breaks under both.
                bad["selection"] = high & low
                bad["nan-order"] = nan & (high | low)
            else:
                bad["selection"] = low
        else:
            bad["selection"] = high
    broken += [rule for rule in RULES if rule in bad and bad[rule].any()]
    answer, source = reference(case, profile)
    answer_rows = rows(answer, axes)
    if broken:
        first = next((rule for rule in broken if rule in bad), None)
        if first is None:  # the type alone
            return Judgement("fail", tuple(broken), domain,
                             f"got {name_of(output.dtype)}; want {name_of(case.x.dtype)}")
        row = int(np.flatnonzero(bad[first])[0])
        note = _discrepancy(case, axes, row, first, x_rows, y_rows, answer_rows, source)
        return Judgement("fail", tuple(broken), domain,
                         f"{', '.join(broken)} broken under {profile.label}; "
                         f"first at {located('row', note['sequence'])}: got {_ones(y_rows[row])}, "
                         f"{source} has {_ones(answer_rows[row])}", note)
    key = f"u{output.dtype.itemsize}"
    differs = (y_rows.view(key) != answer_rows.astype(output.dtype).view(key)).any(axis=1)
    if differs.any():
        row = int(np.flatnonzero(differs)[0])
        note = _discrepancy(case, axes, row, "directml-answer", x_rows, y_rows, answer_rows, source)
        return Judgement("divergent", (), domain,
                         f"valid under {profile.label} but not {source}; "
                         f"first at {located('row', note['sequence'])}: "
                         f"got {_ones(y_rows[row])}, {source} has {_ones(answer_rows[row])}", note)
    return Judgement("pass", (), domain)


def _ones(row: np.ndarray[Any, Any]) -> str:
    """Where a row's 1s are, as text ("1 at 3", "no 1", "1 at 0 and 2", "other values")."""
    with np.errstate(invalid="ignore", over="ignore"):
        values = row.astype(np.float64)
    at = [int(i) for i in np.flatnonzero(values == 1)]
    others = int(np.count_nonzero((values != 1) & (values != 0)))
    text = f"1 at {' and '.join(map(str, at))}" if at else "no 1"
    return text + (f" and {others} element{'s' if others != 1 else ''} neither 0 nor 1" if others else "")


def _discrepancy(case: Case, axes: tuple[int, ...], row: int, rule: str, x_rows: np.ndarray[Any, Any],
                 y_rows: np.ndarray[Any, Any], answer_rows: np.ndarray[Any, Any], source: str) -> dict[str, Any]:
    """The first row where a discrepancy shows: its position among the other axes, its input
    (the row axes flattened), the output's row and the reference's."""
    with np.errstate(invalid="ignore", over="ignore"):
        marks = [int(i) for i in np.flatnonzero((y_rows[row].astype(np.float64) != 0)
                                                | (answer_rows[row].astype(np.float64) != 0))][:5]
    shape = kept_shape(case.x.shape, axes)
    return {
        "rule": rule,
        "sequence": [int(i) for i in np.unravel_index(row, shape)] if shape else [],
        "input": summarized(x_rows[row], marks),
        "output": summarized(y_rows[row], marks),
        "expected_output": summarized(answer_rows[row], marks),
        "reference": source,
    }
