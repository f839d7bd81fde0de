"""Which of a fuzz run's discrepancy signatures a baseline already records the class of.

A signature is (backend, graph, rule, element type) (conformance/fuzz.py). A baseline entry
of the same backend and operator is of the same class where its graph and element type (its
case's input) are the signature's and its verdict breaks the same rule: a fuzz run that finds
only such signatures found nothing the baseline lacks, and its case files need not be kept. The
entry named is the first of its class in the baseline's order, with its note: what to read
before deciding."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from conformance.gate import Baseline, Entry
from conformance.operator.interfaces import Case

Signature = tuple[str, str, str, str]  # backend, graph, rule, element type


def rules_broken(verdict: str, rules: Iterable[str]) -> list[str]:
    """The rules a discrepancy's signatures name: the judge's for a `fail` (`fail` where it
    named none), `raised` for an `error`, the verdict itself for `crash` and `divergent`;
    none for pass and skip."""
    if verdict in ("pass", "skip"):
        return []
    if verdict == "fail":
        return list(rules) or ["fail"]
    return ["raised" if verdict == "error" else verdict]


@dataclass(frozen=True)
class KnownClasses:
    """The baseline's entries of one backend and operator, by the signature each shows."""

    source: str  # the baseline file
    by_signature: Mapping[Signature, Entry]

    def like(self, signature: Signature) -> Entry | None:
        """The first baseline entry of the signature's class (None: a class it lacks)."""
        return self.by_signature.get(signature)

    def describe(self, signature: Signature) -> str:
        """A line's end for a person: the entry it is like, or that its class is new."""
        entry = self.like(signature)
        if entry is None:
            return "a class the baseline lacks"
        note = f", note {entry.note}" if entry.note else ""
        return f"known class, like {entry.case} {entry.graph} {entry.k_source}{note}"


def known_classes(baseline: Baseline, source: str, backend: str, op: str, cases: Mapping[str, Case]) -> KnownClasses:
    """The classes of `backend`'s entries for operator `op`; an entry whose case is not among
    `cases` (the corpus the baseline was recorded on) gives none, since its element type is
    unknown."""
    by_signature: dict[Signature, Entry] = {}
    for entry in baseline.entries.values():
        case = cases.get(entry.case)
        if entry.backend != backend or entry.op != op or case is None:
            continue
        for rule in rules_broken(entry.verdict, entry.rules):
            by_signature.setdefault((backend, entry.graph, rule, case.dtype_name), entry)
    return KnownClasses(source, by_signature)
