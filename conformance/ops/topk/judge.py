"""The judge: checks one output against the rules of its dialect (contract section 2) and
against the DirectML answer. Linear work per sequence once the reference is known."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from conformance.core import keys
from conformance.core.dtypes import name_of
from conformance.core.keys import better_key
from conformance.core.sequences import as_rows, gather_rows, output_shape, pick_rows, row_block, sequence_position
from conformance.operator.discrepancy import MARKED, located, shown, summarized
from conformance.operator.outcome import Domain, Judgement, Outcome, Outputs, Raised, error_rule
from conformance.ops.topk.case import Case
from conformance.ops.topk.profiles import Profile

# TopK's rules (contract section 2): the common ones and its own, in the order results list them.
RULES = (
    "shape", "dtype", "index-range", "index-unique", "gather",
    "selection", "order", "tie-order", "nan-order", "error",
)


def domain_of(case: Case, profile: Profile) -> Domain:
    """Whether the dialect promises anything for this input (NaN, unordered output, K
    outside the dialect's range, and types or ranks outside its tensor-support tables are
    not promised)."""
    if profile.order == "none" or not profile.k_defined(case.k, case.n) or case.nan_rows.any():
        return "undefined"
    if not profile.defines(case.dtype_name, case.x.ndim):
        return "undefined"
    return "defined"


def judge(case: Case, profile: Profile, outcome: Outcome) -> Judgement:
    domain = domain_of(case, profile)
    if isinstance(outcome, Raised) or case.expect_error:
        shown = "" if isinstance(outcome, Raised) else f"outputs of shape {list(outcome['values'].shape)}"
        return error_rule(outcome, case.expect_error, domain, shown)
    return _judge_outputs(case, profile, outcome, domain)


def _judge_outputs(case: Case, profile: Profile, outputs: Outputs, domain: Domain) -> Judgement:
    out = _Pair(outputs["values"], outputs["indices"])
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

    v_rows = as_rows(out.values, axis)
    i_rows = as_rows(out.indices, axis)
    bad = _row_rules(case, profile, v_rows, i_rows)
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
        note = _discrepancy(case, row, first_rule, v_rows, i_rows, ref_v, ref_i)
        note["reference"] = case.reference_source(profile.order)
        return Judgement(
            "fail", tuple(broken), domain,
            f"{', '.join(broken)} broken under {profile.label}; first at "
            f"{located('sequence', note['sequence'])}: got indices {shown(note['indices'])}, "
            f"{case.reference_source(profile.order)} is {shown(note['expected_indices'])}",
            note,
        )
    differs = _differs_from_reference(profile, v_rows, i_rows, ref_v, ref_i)
    if differs.any():
        row = int(np.flatnonzero(differs)[0])
        note = _discrepancy(case, row, "directml-answer", v_rows, i_rows, ref_v, ref_i)
        source = note["reference"] = case.reference_source(profile.order)
        return Judgement(
            "divergent", (), domain,
            f"valid under {profile.label} but not {source}; first at "
            f"{located('sequence', note['sequence'])}: got indices {shown(note['indices'])}, "
            f"{source} is {shown(note['expected_indices'])}",
            note,
        )
    return Judgement("pass", (), domain)


@dataclass(frozen=True)
class _Pair:
    values: np.ndarray[Any, Any]
    indices: np.ndarray[Any, Any]


def _row_rules(
    case: Case, profile: Profile, v_rows: np.ndarray[Any, Any], i_rows: np.ndarray[Any, Any],
    shortcut: bool = True,
) -> dict[str, np.ndarray[Any, Any]]:
    """Per rule, a boolean per sequence: True where the rule breaks there. Work in the size
    of the output, plus one scan of the input's sequences whose selection differs from the
    DirectML answer's (`shortcut=False`: of every sequence)."""
    k = i_rows.shape[1]
    n = case.n
    in_range = (i_rows >= 0) & (i_rows < n)
    bad_range: np.ndarray[Any, Any] = ~np.all(in_range, axis=1)
    idx = np.where(in_range, i_rows, 0).astype(np.int64)
    # Sequences whose indices are the DirectML answer's, in its order (a conforming output
    # mostly), are in range, distinct and its selection: no sort is needed to tell.
    as_answer = np.zeros(len(idx), dtype=bool)
    if shortcut and k:
        as_answer = (in_range & (idx == as_rows(case.directml_answer.indices, case.axis_index))).all(axis=1)
    others = np.flatnonzero(~as_answer)
    # Repeats by sorting each other output sequence (K log K); an out-of-range entry gets a
    # negative stand-in of its own, so that it repeats nothing.
    distinct = np.sort(np.where(in_range[others], idx[others], -1 - np.arange(k, dtype=np.int64)), axis=1)
    bad_unique = np.zeros(len(idx), dtype=bool)
    bad_unique[others] = (distinct[:, 1:] == distinct[:, :-1]).any(axis=1)
    valid = ~(bad_range | bad_unique)
    gathered = gather_rows(case.x, case.axis_index, idx)
    bad_gather = ~_same_bits(gathered, v_rows).all(axis=1) & ~bad_range

    bad: dict[str, np.ndarray[Any, Any]] = {
        "index-range": bad_range, "index-unique": bad_unique, "gather": bad_gather,
    }
    if k == 0:
        return bad
    rules = _Rules(case, profile, gathered, idx, valid, shortcut, as_answer, others, distinct)
    nan_rows = case.nan_rows
    high = rules.placed(nan_high=True)
    if nan_rows.any():
        # One placement of NaN must explain the whole output: all above, or all below.
        if not any(mask[nan_rows].any() for mask in high.values()):
            placed = high
        else:
            # Sequences without NaN are judged alike under both placements.
            low_there = rules.placed(nan_high=False, rows=np.flatnonzero(nan_rows))
            low = {rule: high[rule].copy() for rule in high}
            for rule in low:
                low[rule][nan_rows] = low_there[rule]
            if not any(mask[nan_rows].any() for mask in low.values()):
                placed = low
            else:
                # No placement explains it: report what breaks under both, and the NaN rows.
                placed = {rule: high[rule] & low[rule] for rule in high}
                either = np.logical_or.reduce([high[rule] | low[rule] for rule in high])
                bad["nan-order"] = nan_rows & either
        bad.update(placed)
    else:
        bad.update(high)
    return bad


@dataclass(frozen=True)
class _Rules:
    """The selection and order rules of one output, per sequence, under one placement of
    NaN at a time."""

    case: Case
    profile: Profile
    gathered: np.ndarray[Any, Any]  # the input's values at the output's indices
    idx: np.ndarray[Any, Any]  # the output's indices (out-of-range ones as 0)
    valid: np.ndarray[Any, Any]  # sequences whose indices are in range and distinct
    shortcut: bool
    as_answer: np.ndarray[Any, Any]  # sequences whose indices are the DirectML answer's
    others: np.ndarray[Any, Any]  # the other sequences (their numbers)
    distinct: np.ndarray[Any, Any]  # their indices sorted (out-of-range ones negative)

    def placed(self, nan_high: bool, rows: np.ndarray[Any, Any] | None = None) -> dict[str, np.ndarray[Any, Any]]:
        """The rules for every sequence, or for sequences `rows` only."""
        picked = slice(None) if rows is None else rows
        idx, valid = self.idx[picked], self.valid[picked]
        row_ids = np.arange(len(self.idx))[picked]
        case, profile = self.case, self.profile
        chosen = better_key(self.gathered[picked], case.largest, nan_high)
        worst = chosen.min(axis=1)
        # Sequences left to scan: those whose selected set is not the DirectML answer's
        # (which holds every dialect's selection rule, with NaN above every number).
        scan = valid.copy()
        if self.shortcut and nan_high:
            scan &= ~self.same_selection()[row_ids]
        bad_selection = np.zeros(len(idx), dtype=bool)
        if scan.any():
            bad_selection[scan] = _scan_selection(
                case, profile, row_ids[scan], chosen[scan], idx[scan], worst[scan], nan_high,
            )
        if profile.order == "value":
            bad_order = (chosen[:, :-1] < chosen[:, 1:]).any(axis=1)
        elif profile.order == "index":
            bad_order = (idx[:, :-1] >= idx[:, 1:]).any(axis=1)
        else:
            bad_order = np.zeros(len(idx), dtype=bool)
        bad_tie_order = np.zeros(len(idx), dtype=bool)
        if profile.strict_ties and profile.order == "value":
            tied = chosen[:, :-1] == chosen[:, 1:]
            bad_tie_order = (tied & (idx[:, :-1] > idx[:, 1:])).any(axis=1)
        return {
            "selection": bad_selection & valid,
            "order": bad_order & valid,
            "tie-order": bad_tie_order & valid,
        }

    def same_selection(self) -> np.ndarray[Any, Any]:
        """Per sequence, whether the output selects the DirectML answer's set (meaningful
        where the indices are valid)."""
        same = self.as_answer.copy()
        if self.others.size:
            answer = as_rows(self.case.directml_answer.indices, self.case.axis_index)[self.others]
            same[self.others] = (self.distinct == np.sort(answer, axis=1)).all(axis=1)
        return same


def _scan_selection(
    case: Case, profile: Profile, row_ids: np.ndarray[Any, Any], chosen: np.ndarray[Any, Any],
    idx: np.ndarray[Any, Any], worst: np.ndarray[Any, Any], nan_high: bool,
) -> np.ndarray[Any, Any]:
    """The selection rule on sequences `row_ids`, by counting over the input: everything
    strictly better than the worst selected element must be selected; where ties are strict,
    the tied elements selected at the boundary must be the lowest-indexed ones. A block of
    sequences (or a piece of a long one) at a time, keys in the input's own width."""
    selected_better = (chosen > worst[:, None]).sum(axis=1)
    at_boundary = chosen == worst[:, None]
    taken = at_boundary.sum(axis=1)
    highest_taken = np.where(at_boundary, idx, -1).max(axis=1)
    better = np.zeros(len(row_ids), dtype=np.int64)
    below = np.zeros(len(row_ids), dtype=np.int64)
    x, axis, n = case.x, case.axis_index, case.n
    block = keys.CHUNK  # keys and masks of at most this many elements at once
    if n > block:
        for i, row in enumerate(row_ids.tolist()):
            sequence = row_block(x, axis, row, row + 1)[0]
            for start in range(0, n, block):
                ranked = better_key(sequence[start : start + block], case.largest, nan_high)
                better[i] += int(np.count_nonzero(ranked > worst[i]))
                if profile.strict_ties and highest_taken[i] >= start:
                    tied = ranked[: highest_taken[i] - start + 1] == worst[i]
                    below[i] += int(np.count_nonzero(tied))
    else:
        per_block = max(1, block // max(1, n))
        positions = np.arange(n)[None, :]
        for first in range(0, len(row_ids), per_block):
            part = slice(first, first + per_block)
            ranked = better_key(pick_rows(x, axis, row_ids[part]), case.largest, nan_high)
            bound = worst[part][:, None]
            better[part] = np.count_nonzero(ranked > bound, axis=1)
            if profile.strict_ties:
                tied = (ranked == bound) & (positions <= highest_taken[part][:, None])
                below[part] = np.count_nonzero(tied, axis=1)
    bad: np.ndarray[Any, Any] = better != selected_better
    if profile.strict_ties:
        bad |= below != taken
    return bad


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
    v_rows: np.ndarray[Any, Any], i_rows: np.ndarray[Any, Any],
    ref_v: np.ndarray[Any, Any], ref_i: np.ndarray[Any, Any],
) -> dict[str, Any]:
    """The first sequence where a discrepancy shows, for messages and the report; a long
    sequence summarized around where it differs, never copied whole."""
    got_i, want_i = i_rows[row], ref_i[row]
    differ = np.flatnonzero((got_i.astype(np.int64) != want_i.astype(np.int64))
                            | ~_same_bits(ref_v[row], v_rows[row]))[:MARKED]
    n = case.n
    at = [int(i) for i in np.concatenate([got_i[differ].astype(np.int64), want_i[differ].astype(np.int64)])
          if 0 <= int(i) < n]
    return {
        "rule": rule,
        "sequence": sequence_position(row, case.x.shape, case.axis_index),
        "input": summarized(row_block(case.x, case.axis_index, row, row + 1)[0], at),
        "values": summarized(v_rows[row], differ.tolist()),
        "indices": summarized(got_i, differ.tolist()),
        "expected_values": summarized(ref_v[row], differ.tolist()),
        "expected_indices": summarized(want_i, differ.tolist()),
    }




def topk_outputs(values: np.ndarray[Any, Any], indices: np.ndarray[Any, Any]) -> Outputs:
    """TopK's two outputs by name, as a backend returns them."""
    return Outputs({"values": values, "indices": indices})
