"""The judge: checks one output against the rules of its dialect (contract section 2) and
against the DirectML answer. Linear work per sequence once the reference is known."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from conformance.case import Case
from conformance.dtypes import name_of, to_jsonable
from conformance.keys import better_key, has_nan
from conformance.profiles import Profile
from conformance.sequences import as_rows, output_shape, sequence_position

RULES = (
    "shape", "dtype", "index-range", "index-unique", "gather",
    "selection", "order", "tie-order", "nan-order", "error",
)
Verdict = Literal["pass", "divergent", "fail", "error", "crash", "skip"]
Domain = Literal["defined", "undefined"]


@dataclass(frozen=True)
class Outputs:
    values: np.ndarray[Any, Any]
    indices: np.ndarray[Any, Any]


@dataclass(frozen=True)
class Raised:
    message: str


Outcome = Outputs | Raised


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    rules: tuple[str, ...] = ()
    domain: Domain = "defined"
    message: str = ""
    discrepancy: dict[str, Any] | None = field(default=None, compare=False)


def domain_of(case: Case, profile: Profile) -> Domain:
    """Whether the dialect promises anything for this input (NaN, unordered output, K
    outside the dialect's range, and types or ranks outside its tensor-support tables are
    not promised)."""
    if has_nan(case.x) or profile.order == "none" or not profile.k_defined(case.k, case.n):
        return "undefined"
    if not profile.defines(case.dtype_name, case.x.ndim):
        return "undefined"
    return "defined"


def judge(case: Case, profile: Profile, outcome: Outcome) -> Judgement:
    domain = domain_of(case, profile)
    if isinstance(outcome, Raised):
        if case.expect_error:
            return Judgement("pass", (), domain, f"raised as expected: {outcome.message}")
        return Judgement("error", (), domain, outcome.message)
    if case.expect_error:
        return Judgement(
            "fail", ("error",), domain,
            f"expected an error, got outputs of shape {list(outcome.values.shape)}",
        )
    return _judge_outputs(case, profile, outcome, domain)


def _judge_outputs(case: Case, profile: Profile, out: Outputs, domain: Domain) -> Judgement:
    axis = case.axis_index
    want_shape = output_shape(case.x.shape, axis, case.k)
    broken: list[str] = []
    if out.values.shape != want_shape or out.indices.shape != want_shape:
        broken.append("shape")
    if out.values.dtype != case.x.dtype or out.indices.dtype != profile.index_dtype:
        broken.append("dtype")
    if "shape" in broken or not np.issubdtype(out.indices.dtype, np.integer):
        got = f"values {list(out.values.shape)} {name_of(out.values.dtype)}, indices "
        got += f"{list(out.indices.shape)} {name_of(out.indices.dtype)}"
        want = f"{list(want_shape)}, {name_of(case.x.dtype)} / {name_of(profile.index_dtype)}"
        return Judgement("fail", tuple(broken), domain, f"got {got}; want {want}")

    x_rows = as_rows(case.x, axis)
    v_rows = as_rows(out.values, axis)
    i_rows = as_rows(out.indices, axis)
    bad = _row_rules(case, profile, x_rows, v_rows, i_rows)
    if "dtype" in broken and not any(mask.any() for mask in bad.values()):
        return Judgement(
            "fail", ("dtype",), domain,
            f"got values {name_of(out.values.dtype)}, indices {name_of(out.indices.dtype)}; "
            f"want {name_of(case.x.dtype)}, {name_of(profile.index_dtype)}",
        )
    broken += [rule for rule in RULES if rule in bad and bad[rule].any()]
    reference = case.reference(profile.order)
    ref_v = as_rows(reference.values, axis)
    ref_i = as_rows(reference.indices, axis)
    if broken:
        first_rule = next(rule for rule in broken if rule in bad)
        row = int(np.flatnonzero(bad[first_rule])[0])
        note = _discrepancy(case, row, first_rule, x_rows, v_rows, i_rows, ref_v, ref_i)
        note["reference"] = case.reference_source(profile.order)
        return Judgement(
            "fail", tuple(broken), domain,
            f"{', '.join(broken)} broken under {profile.label}; first at sequence "
            f"{note['sequence']}: got indices {note['indices']}, "
            f"{case.reference_source(profile.order)} is {note['expected_indices']}",
            note,
        )
    differs = _differs_from_reference(profile, v_rows, i_rows, ref_v, ref_i)
    if differs.any():
        row = int(np.flatnonzero(differs)[0])
        note = _discrepancy(case, row, "directml-answer", x_rows, v_rows, i_rows, ref_v, ref_i)
        source = note["reference"] = case.reference_source(profile.order)
        return Judgement(
            "divergent", (), domain,
            f"valid under {profile.label} but not {source}; first at sequence "
            f"{note['sequence']}: got indices {note['indices']}, "
            f"{source} is {note['expected_indices']}",
            note,
        )
    return Judgement("pass", (), domain)


def _row_rules(
    case: Case, profile: Profile,
    x_rows: np.ndarray[Any, Any], v_rows: np.ndarray[Any, Any], i_rows: np.ndarray[Any, Any],
) -> dict[str, np.ndarray[Any, Any]]:
    """Per rule, a boolean per sequence: True where the rule breaks there."""
    rows, n = x_rows.shape
    in_range = (i_rows >= 0) & (i_rows < n)
    bad_range = ~in_range.all(axis=1)
    idx = np.where(in_range, i_rows, 0).astype(np.int64)
    # Counting occurrences per (sequence, index) is linear, unlike sorting each sequence.
    flat = (np.arange(rows, dtype=np.int64)[:, None] * n + idx)[in_range]
    counts = np.bincount(flat, minlength=rows * n).reshape(rows, n)
    bad_unique = np.asarray((counts > 1).any(axis=1))
    valid = ~(bad_range | bad_unique)
    gathered = np.take_along_axis(x_rows, idx, axis=1)
    bad_gather = ~_same_bits(gathered, v_rows).all(axis=1) & ~bad_range

    bad: dict[str, np.ndarray[Any, Any]] = {
        "index-range": bad_range, "index-unique": bad_unique, "gather": bad_gather,
    }
    if i_rows.shape[1] == 0:
        return bad
    if has_nan(case.x):
        nan_rows = np.isnan(x_rows.astype(np.float64)).any(axis=1)
        high = _order_rules(case, profile, x_rows, idx, valid, nan_high=True)
        low = _order_rules(case, profile, x_rows, idx, valid, nan_high=False)
        # One placement of NaN must explain the whole output: all above, or all below.
        if not any(mask[nan_rows].any() for mask in high.values()):
            placed = high
        elif not any(mask[nan_rows].any() for mask in low.values()):
            placed = low
        else:
            # No placement explains it: report what breaks under both, and the NaN rows.
            placed = {rule: high[rule] & low[rule] for rule in high}
            either = np.logical_or.reduce([high[rule] | low[rule] for rule in high])
            bad["nan-order"] = nan_rows & either
        bad.update(placed)
    else:
        bad.update(_order_rules(case, profile, x_rows, idx, valid, nan_high=True))
    return bad


def _order_rules(
    case: Case, profile: Profile, x_rows: np.ndarray[Any, Any], idx: np.ndarray[Any, Any],
    valid: np.ndarray[Any, Any], nan_high: bool,
) -> dict[str, np.ndarray[Any, Any]]:
    keys = better_key(x_rows, case.largest, nan_high)
    chosen = np.take_along_axis(keys, idx, axis=1)
    worst = chosen.min(axis=1)[:, None]
    # Everything strictly better than the worst selected element must be selected.
    bad_selection = (keys > worst).sum(axis=1) != (chosen > worst).sum(axis=1)
    if profile.strict_ties:
        # The tied elements selected at the boundary must be the lowest-indexed ones.
        at_boundary = chosen == worst
        taken = at_boundary.sum(axis=1)
        highest_taken = np.where(at_boundary, idx, -1).max(axis=1)[:, None]
        positions = np.arange(x_rows.shape[1])[None, :]
        below = ((keys == worst) & (positions <= highest_taken)).sum(axis=1)
        bad_selection |= below != taken
    if profile.order == "value":
        bad_order = (chosen[:, :-1] < chosen[:, 1:]).any(axis=1)
    elif profile.order == "index":
        bad_order = (idx[:, :-1] >= idx[:, 1:]).any(axis=1)
    else:
        bad_order = np.zeros(len(keys), dtype=bool)
    bad_tie_order = np.zeros(len(keys), dtype=bool)
    if profile.strict_ties and profile.order == "value":
        tied = chosen[:, :-1] == chosen[:, 1:]
        bad_tie_order = (tied & (idx[:, :-1] > idx[:, 1:])).any(axis=1)
    return {
        "selection": bad_selection & valid,
        "order": bad_order & valid,
        "tie-order": bad_tie_order & valid,
    }


def _same_bits(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Elementwise bit-for-bit equality (tells -0.0 from +0.0, compares NaN payloads)."""
    if a.dtype != b.dtype:
        b = b.astype(a.dtype)
    unsigned = np.dtype(f"u{a.dtype.itemsize}")
    equal: np.ndarray[Any, Any] = np.ascontiguousarray(a).view(unsigned) == np.ascontiguousarray(b).view(unsigned)
    return equal


def _differs_from_reference(
    profile: Profile, v_rows: np.ndarray[Any, Any], i_rows: np.ndarray[Any, Any],
    ref_v: np.ndarray[Any, Any], ref_i: np.ndarray[Any, Any],
) -> np.ndarray[Any, Any]:
    if profile.order == "none":
        # No promised order: the same selection is the same answer.
        moved: np.ndarray[Any, Any] = (np.sort(i_rows.astype(np.int64), axis=1) != np.sort(ref_i, axis=1)).any(axis=1)
        return moved
    same = (i_rows.astype(np.int64) == ref_i) & _same_bits(ref_v, v_rows)
    differs: np.ndarray[Any, Any] = ~same.all(axis=1)
    return differs


def _discrepancy(
    case: Case, row: int, rule: str,
    x_rows: np.ndarray[Any, Any], v_rows: np.ndarray[Any, Any], i_rows: np.ndarray[Any, Any],
    ref_v: np.ndarray[Any, Any], ref_i: np.ndarray[Any, Any],
) -> dict[str, Any]:
    """The first sequence where a discrepancy shows, for messages and the report."""
    return {
        "rule": rule,
        "sequence": sequence_position(row, case.x.shape, case.axis_index),
        "input": to_jsonable(x_rows[row]),
        "values": to_jsonable(v_rows[row]),
        "indices": i_rows[row].tolist(),
        "expected_values": to_jsonable(ref_v[row]),
        "expected_indices": ref_i[row].tolist(),
    }
