"""What the HTML report asks of an operator (Operator.report): its documents and what each
says on the aspects the report sets beside each backend's behaviour, the case's own fields
as an input line, the DirectML feature levels admitting a case, where a discrepancy's
reference answer came from and how its outputs are shown. The report finds these through a
result's `op` and never imports the operator's folder."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from conformance.operator.interfaces import Case, Variant
from conformance.operator.outcome import VERDICTS

C = TypeVar("C", bound=Case)
V = TypeVar("V", bound=Variant)


class ResultView(Protocol):
    """The fields of a result (conformance/results/records.py) an aspect's observation reads;
    a protocol, as results/ sits above this folder."""

    @property
    def case(self) -> str: ...
    @property
    def graph(self) -> str: ...
    @property
    def k_source(self) -> str: ...
    @property
    def verdict(self) -> str: ...
    @property
    def rules(self) -> Sequence[str]: ...
    @property
    def domain(self) -> str: ...
    @property
    def tags(self) -> Sequence[str]: ...


# One backend's results on the operator, and its cases by the id results name (a case whose
# file was not found is absent): a few plain lines on how the backend behaved.
Observe = Callable[[Sequence[ResultView], Mapping[str, C]], list[str]]


@dataclass(frozen=True)
class Aspect(Generic[C]):
    """One row of the report's documents table."""

    name: str
    documents: tuple[str, ...]  # what each document says, in ReportAspects.documents' order
    observed: Observe[C]


@dataclass(frozen=True)
class ReportAspects(Generic[C, V]):
    """The operator's part of the report; the defaults show a case and its discrepancies
    with nothing the operator alone knows."""

    documents: tuple[str, ...] = ()  # the documents the contract reads, as the table heads them
    aspects: tuple[Aspect[C], ...] = ()
    # The case's own fields ("axis 1, k 3, ..."), after its input's type and shape.
    input_line: Callable[[C], str] = field(default=lambda case: "")
    # The DirectML feature levels whose tensor-support tables admit the case, described.
    levels: Callable[[C], str] = field(default=lambda case: "")
    levels_tables: str = ""  # the DirectML operators whose tables those are, for the report's note
    # What a discrepancy's output was compared with, for the case judged through the variant;
    # and what to say where the case file or the variant is not found.
    reference_from: Callable[[C, V], str] = field(default=lambda case, variant: "the case's reference answer")
    reference_unknown: str = "the case's reference answer (case file not found)"
    outputs_shown: tuple[str, ...] = ()  # a discrepancy's outputs in the order shown; () = Operator.outputs
    index_output: str = ""  # the output holding positions in the input: they are marked there
    length_label: str = ""  # what an output sequence's length is called ("K"); "" = not shown


def counts_text(results: Iterable[ResultView]) -> str:
    """'pass 3, fail 1': the verdicts' counts, in VERDICTS' order."""
    counts = Counter(r.verdict for r in results)
    return ", ".join(f"{v} {counts[v]}" for v in VERDICTS if counts[v]) or "no results"


def case_count(results: Iterable[ResultView]) -> str:
    n = len({r.case for r in results})
    return f"{n} case{'s' if n != 1 else ''}"
