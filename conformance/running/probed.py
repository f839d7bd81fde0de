"""A backend as a run carries it: its adapter, its record and what its worker answered when
it was probed, once. Selection (which backends run), execution (which graph variants each
takes, its tier, whether it packs), the summary and the report (its description) all read
this answer; no stage asks the backend again."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Any

from conformance.backends.base import Availability, Backend
from conformance.backends.record import BackendRecord, record_of
from conformance.core import machine
from conformance.operator.interfaces import Case, Variant, variant_key
from conformance.ops.registry import all_variants, operator
from conformance.results.records import Result
from conformance.running.unfinished import says, unfinished
from conformance.running.workers import Probe


@dataclass(frozen=True)
class Probed:
    backend: Backend  # the adapter, handed to its workers
    record: BackendRecord
    probe: Probe  # complete: `takes` and `isa` are never None (see carried)

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def availability(self) -> Availability:
        return self.probe.availability

    @property
    def available(self) -> bool:
        return self.probe.availability.available

    @property
    def takes(self) -> tuple[str, ...]:
        return self.probe.takes or ()

    @property
    def isa(self) -> str:
        return self.probe.isa or ""

    @property
    def packs(self) -> bool:
        return self.probe.packs

    def description(self) -> dict[str, Any]:
        """results.json's `backends` entry: what the record says, then the machine and what
        the backend said of itself (when available), then whether it can run and why not."""
        return {**self.record.described(), **self.probe.info, "available": self.available,
                "reason": self.availability.reason}

    def variants(self, case: Case | None = None, op: str | None = None) -> list[Variant]:
        """The graph variants it takes (of the case's operator, or `op`'s, or all); with a case,
        those that run on it."""
        return variants_taken(self.takes, case, op)

    def to_run(self, case: Case, slow: bool = False) -> tuple[list[Variant], list[Result]]:
        """The graph variants of the case to run, and the skips of those its record says it does
        not finish here (record.Unfinishable), unless `slow` asks for them too."""
        variants, left_out = [], []
        for variant in self.variants(case):
            entry = None if slow else unfinished(self.record, case, variant.graph)
            if entry is None:
                variants.append(variant)
                continue
            left_out.append(Result(
                case.id, self.name, variant.graph, variant.k_label, "skip",
                message=f"not run: {self.name} does not finish {says(entry, case)} reliably in the time a graph is "
                f"given here (finding {entry.finding}); run --slow runs it", tags=list(case.tags),
                case_file=str(case.file), x_shape=variant.x_shape,
                isa=self.isa, op=case.op, unfinished=entry.finding))
        return variants, left_out


def variants_taken(takes: Collection[str], case: Case | None = None, op: str | None = None) -> list[Variant]:
    """The graph variants whose keys (variant_key) are in `takes`, in result order; with a case,
    of its operator and running on it (Variant.runs_on)."""
    op = case.op if case is not None else op
    variants = all_variants() if op is None else operator(op).variants()
    return [v for v in variants if variant_key(v) in takes and (case is None or v.runs_on(case))]


def carried(backend: Backend, probe: Probe) -> Probed:
    """The answer completed once: where the worker gave none (it died or hung), the variants of
    the record's kinds and operators, and this machine's tier."""
    record = record_of(backend)
    takes = probe.takes
    if takes is None:
        takes = tuple(variant_key(v) for v in all_variants()
                      if v.kind in record.kinds and v.op in record.operators)
    isa = probe.isa if probe.isa is not None else machine.host_tier()
    return Probed(backend, record, replace(probe, takes=takes, isa=isa))
