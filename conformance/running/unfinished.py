"""What a run says of the graphs a backend's record says it does not finish here
(record.Unfinishable): how many it left out and why, or, with `run --slow`, which of them
finished in under half the time a graph is given (the record is stale: the runtime was fixed,
or this machine is faster). A graph that finishes nearer the limit is what the record says: it
does not finish reliably."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from conformance.operator.interfaces import Case
from conformance.results.records import Result
from conformance.running.probed import Probed

FINISHED = ("pass", "divergent", "fail", "error")  # an answer, or a refusal, within the time limit


def left_out_lines(results: Sequence[Result]) -> list[str]:
    """Per backend and finding, the graphs left out."""
    counts = Counter((result.backend, result.unfinished) for result in results if result.unfinished)
    return [f"left out {count} graph{'' if count == 1 else 's'} {backend} does not finish here (finding {finding}): "
            "run --slow runs them" for (backend, finding), count in counts.items()]


def stale_lines(results: Sequence[Result], probed: Sequence[Probed], cases: Sequence[Case],
                timeout: float) -> list[str]:
    """Per backend and finding, the graphs its record names that finished in this run in under
    half of `timeout`, the time a graph is given."""
    records = {each.name: each.record for each in probed}
    by_id = {case.id: case for case in cases}
    named: Counter[tuple[str, str]] = Counter()
    finished: Counter[tuple[str, str]] = Counter()
    for result in results:
        record, case = records.get(result.backend), by_id.get(result.case)
        entry = record.unfinished(case, result.graph) if record is not None and case is not None else None
        if entry is None:
            continue
        named[(result.backend, entry.finding)] += 1
        finished[(result.backend, entry.finding)] += result.verdict in FINISHED and (result.seconds or 0) < timeout / 2
    return [f"{backend} finished {finished[key]} of the {count} graphs its record says it does not finish here "
            f"in under half the time a graph is given (finding {finding}): the record is stale"
            for key, count in named.items() if finished[key] for backend, finding in [key]]
