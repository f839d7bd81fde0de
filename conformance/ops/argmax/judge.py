"""The judge of an ArgMax / ArgMin output (contract section 6): shape, dtype, index range,
selection (the element at the index is an extreme; where ties are strict, the first or last
of them), nan-order (one placement of NaN, all above or all below every number, explains
every index), and the DirectML answer as the yardstick."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.core.dtypes import name_of
from conformance.core.keys import best_position, better_key
from conformance.operator.discrepancy import located, summarized
from conformance.operator.outcome import Domain, Judgement, Outcome, Raised, error_rule
from conformance.ops.argmax.case import Case
from conformance.ops.argmax.profiles import Profile

RULES = ("shape", "dtype", "index-range", "selection", "nan-order", "error")


def domain_of(case: Case, profile: Profile) -> Domain:
    """NaN, an empty reduced axis and types or ranks outside the document's tables are
    promised nothing."""
    if case.n == 0 or case.nan_rows.any() or not profile.defines(case.dtype_name, case.x.ndim):
        return "undefined"
    return "defined"


def judge(case: Case, profile: Profile, outcome: Outcome) -> Judgement:
    domain = domain_of(case, profile)
    if isinstance(outcome, Raised) or case.expect_error:
        shown = "" if isinstance(outcome, Raised) else f"indices of shape {list(outcome['indices'].shape)}"
        return error_rule(outcome, case.expect_error, domain, shown)
    return _judge_indices(case, profile, outcome["indices"], domain)


def _judge_indices(case: Case, profile: Profile, indices: np.ndarray[Any, Any], domain: Domain) -> Judgement:
    keepdims = case.keepdims
    want = case.output_shape(keepdims)
    broken: list[str] = []
    if indices.shape != want:
        broken.append("shape")
    if indices.dtype != profile.index_dtype:
        broken.append("dtype")
    if "shape" in broken or not np.issubdtype(indices.dtype, np.integer):
        return Judgement("fail", tuple(broken), domain,
                         f"got indices {list(indices.shape)} {name_of(indices.dtype)}; "
                         f"want {list(want)} {name_of(profile.index_dtype)}")
    got = indices.reshape(-1).astype(np.int64) if indices.dtype != np.uint64 else _wide(indices)
    rows = case.rows()
    n = rows.shape[1]
    in_range = (got >= 0) & (got < n)
    bad = {"index-range": ~in_range}
    if n:
        at = np.where(in_range, got, 0)
        high = _selection(case, profile, rows, at, nan_high=True) & in_range
        if case.nan_rows.any() and high[case.nan_rows].any():
            low = _selection(case, profile, rows, at, nan_high=False) & in_range
            if low[case.nan_rows].any():
                # No one placement of NaN explains the output: what breaks under both.
                bad["selection"] = high & low
                bad["nan-order"] = case.nan_rows & (high | low)
            else:
                bad["selection"] = low
        else:
            bad["selection"] = high
    broken += [rule for rule in RULES if rule in bad and bad[rule].any()]
    answer = case.expected.reshape(-1) if case.expected is not None else case.directml_answer
    source = "the case's expected output" if case.expected is not None else "the DirectML answer"
    if broken:
        first = next((rule for rule in broken if rule in bad), None)
        if first is None:  # the type alone
            return Judgement("fail", tuple(broken), domain,
                             f"got indices {name_of(indices.dtype)}; want {name_of(profile.index_dtype)}")
        row = int(np.flatnonzero(bad[first])[0])
        note = _discrepancy(case, row, first, rows, got, answer, source)
        return Judgement("fail", tuple(broken), domain,
                         f"{', '.join(broken)} broken under {profile.label}; first at {_where(note)}: "
                         f"got index {int(got[row])}, {source} is {int(answer[row])}", note)
    differs = got != answer
    if differs.any():
        row = int(np.flatnonzero(differs)[0])
        note = _discrepancy(case, row, "directml-answer", rows, got, answer, source)
        return Judgement("divergent", (), domain,
                         f"valid under {profile.label} but not {source}; first at {_where(note)}: "
                         f"got index {int(got[row])}, {source} is {int(answer[row])}", note)
    return Judgement("pass", (), domain)


def _wide(indices: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """uint64 indices as int64, those above int64's range as -1 (out of range either way)."""
    flat = indices.reshape(-1)
    wide: np.ndarray[Any, Any] = np.where(flat > np.uint64(2**63 - 1), -1, flat.astype(np.int64))
    return wide


def _selection(case: Case, profile: Profile, rows: np.ndarray[Any, Any], at: np.ndarray[Any, Any],
               nan_high: bool) -> np.ndarray[Any, Any]:
    """Per output element, whether the selection rule breaks under one placement of NaN."""
    keys = better_key(rows.copy(), case.largest, nan_high)
    chosen = np.take_along_axis(keys, at[:, None], axis=1)[:, 0]
    bad: np.ndarray[Any, Any] = chosen != keys.max(axis=1)
    if profile.strict_ties:
        bad |= at != best_position(keys, profile.last)
    return bad


def _position(row: int, shape: tuple[int, ...]) -> list[int]:
    """The output element's index among the kept axes ([] when every axis is reduced)."""
    return [int(i) for i in np.unravel_index(row, shape)] if shape else []


def _where(note: dict[str, Any]) -> str:
    return located("output element", note["sequence"])


def _discrepancy(case: Case, row: int, rule: str, rows: np.ndarray[Any, Any], got: np.ndarray[Any, Any],
                 answer: np.ndarray[Any, Any], source: str) -> dict[str, Any]:
    """The first output element where a discrepancy shows: its input sequence (the reduced
    axes flattened), the index given and the reference's."""
    index, want = int(got[row]), int(answer[row])
    marks = [i for i in (index, want) if 0 <= i < rows.shape[1]]
    return {
        "rule": rule,
        "sequence": _position(row, case.output_shape(keepdims=False)),
        "input": summarized(rows[row], marks),
        "indices": [index],
        "expected_indices": [want],
        "reference": source,
    }
