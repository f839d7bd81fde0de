"""A discrepancy record's sequences: kept whole, or summarized around where they differ, and
shown as text; the same for every operator's records."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.core.dtypes import to_jsonable

# A sequence longer than this is summarized in a discrepancy record: its first and last
# EDGE elements and AROUND on either side of its first MARKED differing positions.
LONG_SEQUENCE = 1000
EDGE = 20
AROUND = 20
MARKED = 5


def summarized(sequence: np.ndarray[Any, Any], marks: list[int]) -> Any:
    """One sequence for a discrepancy record, written as case files write values: the whole
    list when it has at most LONG_SEQUENCE elements; else {"summarized": true, "length": n,
    "segments": [[start, [values...]], ...]}, the segments in ascending order and apart:
    the first and last EDGE elements and AROUND either side of each of `marks`."""
    length = len(sequence)
    if length <= LONG_SEQUENCE:
        return to_jsonable(sequence)
    spans = [(0, EDGE), (length - EDGE, length)]
    spans += [(max(0, m - AROUND), min(length, m + AROUND + 1)) for m in sorted(set(marks))]
    merged: list[list[int]] = []
    for start, stop in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], stop)
        else:
            merged.append([start, stop])
    return {
        "summarized": True, "length": length,
        "segments": [[start, to_jsonable(sequence[start:stop])] for start, stop in merged],
    }


def kept_elements(field: Any) -> tuple[int, dict[int, Any]]:
    """A discrepancy record's sequence, whole (a list) or summarized, as (its length, its
    kept elements by position)."""
    if isinstance(field, dict) and field.get("summarized"):
        kept: dict[int, Any] = {}
        for start, values in field["segments"]:
            kept.update(enumerate(values, start))
        return int(field["length"]), kept
    return len(field), dict(enumerate(field))


def shown(field: Any) -> str:
    """A discrepancy record's sequence as text: the list, or a summary's kept elements with
    '...' where elements were cut and the length."""
    if not (isinstance(field, dict) and field.get("summarized")):
        return str(field)
    parts: list[str] = []
    previous = 0
    for start, values in field["segments"]:
        if start > previous:
            parts.append("...")
        parts += [str(v) if not isinstance(v, str) else repr(v) for v in values]
        previous = start + len(values)
    if previous < field["length"]:
        parts.append("...")
    return f"[{', '.join(parts)}] ({field['length']} in all)"


def located(kind: str, position: list[int]) -> str:
    """Where a discrepancy is, for a message: `sequence [0, 2]`, or, where the input has one
    sequence (a 1-D input, or every axis reduced), `the only sequence` (not `sequence []`)."""
    return f"{kind} {position}" if position else f"the only {kind}"
