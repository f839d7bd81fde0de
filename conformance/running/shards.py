"""Shards (`run --shard I/N`): the selected cases cut into N parts, deterministically, so
that N machines (a CI matrix) run one each and `merge` of their N results files is the
run of all of them.

The unit of work is the case: every backend and graph variant of a case runs in the same
shard. A shard's results are then exactly the unsharded run's results of its cases (a
case's graphs are built once for every backend; its performance cliffs compare its
backends with each other, which needs them all in one run).

The split: each case weighs what it costs, either its graph variants (those of its
operator that run on it, whatever backends run: the same on every machine) or, given a
previous run's results file, the `seconds` of its results there (a case that file does not
have weighs the mean of those it has). Longest processing time first: the cases by weight,
heaviest first (ties by id), each to the shard with the least weight so far (ties: fewer
cases, then the lower number). Nothing depends on the order the files were found in, on
hashing or on the machine, so every shard computes the same split."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from conformance.operator.interfaces import Case
from conformance.ops.registry import operator
from conformance.results.records import Result


@dataclass(frozen=True)
class ShardPlan:
    index: int  # 1-based
    count: int
    by: str  # "graph variants" or "timings from FILE"
    cases: list[Case]  # this shard's, in the selection's order
    assignment: dict[str, int]  # every selected case id -> its shard (1-based)
    backends: list[str]  # the backends named (--backend), sorted; [] for the default ones
    plan: str  # a digest of the assignment: equal for the shards of one split

    def elsewhere(self) -> set[str]:
        """The selected cases another shard runs."""
        return {case_id for case_id, shard in self.assignment.items() if shard != self.index}

    def record(self, ran: Iterable[str]) -> dict[str, Any]:
        """What results.json says of the shard (environment.shard); `ran`: the backends that
        ran here (the default ones differ between machines: merge checks every shard had each)."""
        return {"index": self.index, "count": self.count, "cases": len(self.cases), "of": len(self.assignment),
                "by": self.by, "backends": self.backends, "ran": sorted(ran), "plan": self.plan}


def variant_weight(case: Case) -> int:
    """The graph variants of the case's operator that run on the case (at least 1)."""
    return max(1, sum(1 for variant in operator(case.op).variants() if variant.runs_on(case)))


def case_seconds(results: Iterable[Result]) -> dict[str, float]:
    """Per case id, the seconds of its results (every backend's) in a previous run."""
    seconds: dict[str, float] = {}
    for result in results:
        seconds[result.case] = seconds.get(result.case, 0.0) + result.seconds
    return seconds


def plan(cases: Sequence[Case], index: int, count: int, backends: Iterable[str] = (),
         timings: dict[str, float] | None = None, timings_from: str = "") -> ShardPlan:
    """Shard `index` of `count` of these cases (see the module's description). `backends`:
    those named, recorded so that merge tells one backend's shards from another's."""
    weights: dict[str, float]
    known = {case.id: timings[case.id] for case in cases if timings and case.id in timings}
    if known:
        mean = sum(known[case_id] for case_id in sorted(known)) / len(known)
        weights = {case.id: known.get(case.id, mean) for case in cases}
        by = f"timings from {timings_from}" if timings_from else "timings"
    else:
        weights = {case.id: float(variant_weight(case)) for case in cases}
        by = "graph variants"
        if timings is not None:
            by += f" ({timings_from or 'the timings'} has none of these cases)"
    loads = [0.0] * count
    sizes = [0] * count
    assignment: dict[str, int] = {}
    for case_id in sorted(weights, key=lambda name: (-weights[name], name)):
        lightest = min(range(count), key=lambda shard: (loads[shard], sizes[shard], shard))
        loads[lightest] += weights[case_id]
        sizes[lightest] += 1
        assignment[case_id] = lightest + 1
    digest = hashlib.sha256(json.dumps(sorted(assignment.items())).encode()).hexdigest()[:16]
    mine = [case for case in cases if assignment[case.id] == index]
    return ShardPlan(index, count, by, mine, dict(sorted(assignment.items())), sorted(set(backends)), digest)
