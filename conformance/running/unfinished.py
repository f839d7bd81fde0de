"""What a run makes of the graphs a backend's record says it does not finish here
(record.Unfinishable): which graphs of a case an entry covers and what their skip says, how
many it left out and why, or, with `run --slow`, which of them
finished in under half the time a graph is given (the record is stale: the runtime was fixed,
or this machine is faster). A graph that finishes nearer the limit is what the record says: it
does not finish reliably."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from conformance.backends.record import BackendRecord, Unfinishable
from conformance.operator.interfaces import Case
from conformance.results.records import Result

FINISHED = ("pass", "divergent", "fail", "error")  # an answer, or a refusal, within the time limit


def unfinished(record: BackendRecord, case: Case, graph: str) -> Unfinishable | None:
    """The record's entry that says the runtime does not finish this graph of the case here, or None."""
    return next((entry for entry in record.unfinishable if covers(entry, case, graph)), None)


def covers(entry: Unfinishable, case: Case, graph: str) -> bool:
    """Whether the entry names this graph of the case: its operator, one of its graphs (any where
    it names none), one of its element types (any where it names none), and a row (or the input
    it names) at least the size it gives."""
    if case.op != entry.op or (entry.graphs and graph not in entry.graphs):
        return False
    if entry.dtypes and case.dtype_name not in entry.dtypes:
        return False
    if entry.input:
        shape = tuple(getattr(case, entry.input).shape)
        return len(shape) == len(entry.at_least) and all(
            low <= n and (high is None or n <= high) for n, (low, high) in zip(shape, _bounds(entry), strict=True))
    if not case.x.ndim:
        return False
    return _row(case) >= entry.elements


def says(entry: Unfinishable, case: Case) -> str:
    """What the runtime does not finish, and this case's size: for a skip's message."""
    if entry.input:
        sizes = [f"{low:,}" if low == high else f"{low:,} to {high:,}" if high is not None else f"{low:,} or more"
                 for low, high in _bounds(entry)]
        shape = list(getattr(case, entry.input).shape)
        return f"{case.op} with {entry.input} of shape [{', '.join(sizes)}] (this one: {shape})"
    return f"{case.op} over rows of {entry.elements:,} elements or more (this row: {_row(case):,})"


def _bounds(entry: Unfinishable) -> list[tuple[int, int | None]]:
    """Each dimension's least and greatest size (None: no bound)."""
    return [(low, entry.at_most[i] if i < len(entry.at_most) else None) for i, low in enumerate(entry.at_least)]


def _row(case: Case) -> int:
    return int(case.x.shape[getattr(case, "axis", -1)])


def left_out_lines(results: Sequence[Result]) -> list[str]:
    """Per backend and finding, the graphs left out."""
    counts = Counter((result.backend, result.unfinished) for result in results if result.unfinished)
    return [f"left out {count} graph{'' if count == 1 else 's'} {backend} does not finish here (finding {finding}): "
            "run --slow runs them" for (backend, finding), count in counts.items()]


def stale_lines(results: Sequence[Result], records: Sequence[BackendRecord], cases: Sequence[Case],
                timeout: float) -> list[str]:
    """Per backend and finding, the graphs its record names that finished in this run in under
    half of `timeout`, the time a graph is given."""
    by_name = {record.name: record for record in records}
    by_id = {case.id: case for case in cases}
    named: Counter[tuple[str, str]] = Counter()
    finished: Counter[tuple[str, str]] = Counter()
    for result in results:
        record, case = by_name.get(result.backend), by_id.get(result.case)
        entry = unfinished(record, case, result.graph) if record is not None and case is not None else None
        if entry is None:
            continue
        named[(result.backend, entry.finding)] += 1
        finished[(result.backend, entry.finding)] += result.verdict in FINISHED and (result.seconds or 0) < timeout / 2
    return [f"{backend} finished {finished[key]} of the {count} graphs its record says it does not finish here "
            f"in under half the time a graph is given (finding {finding}): the record is stale"
            for key, count in named.items() if finished[key] for backend, finding in [key]]
