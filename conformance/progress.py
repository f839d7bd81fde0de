"""Live progress on a terminal (rich), plain lines otherwise; the closing summary table."""

from __future__ import annotations

import sys
from collections import Counter
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from conformance.core.text import printable
from conformance.results.records import VERDICTS, Result
from conformance.results.summary import pass_rate, verdict_counts, verdict_counts_by_operator
from conformance.results.timing import CLIFF_RATIO, backend_times, cliffs


class RunProgress:
    """Counts results as they come; `total` is the number expected."""

    def __init__(self, total: int, console: Console, plain_every: int = 50) -> None:
        self.total = total
        self.console = console
        self.done = 0
        self.verdicts: Counter[str] = Counter()
        self.plain_every = plain_every
        self.live = console.is_terminal
        self._bar = Progress(
            TextColumn("[bold]running"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.description}"), TimeElapsedColumn(), console=console,
        )
        self._task = self._bar.add_task("", total=total)

    def __enter__(self) -> RunProgress:
        if self.live:
            self._bar.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self.live:
            self._bar.stop()
        elif self.done % self.plain_every:
            self._plain_line()

    def add(self, result: Result) -> None:
        self.done += 1
        self.verdicts[result.verdict] += 1
        if self.live:
            self._bar.update(self._task, advance=1, description=self._counts())
        elif self.done % self.plain_every == 0:
            self._plain_line()

    def _counts(self) -> str:
        return " ".join(f"{v} {self.verdicts[v]}" for v in VERDICTS if self.verdicts[v])

    def _plain_line(self) -> None:
        print(f"progress: {self.done}/{self.total} done; {self._counts()}", file=sys.stdout, flush=True)


def summary_table(results: list[Result]) -> Table:
    """Verdicts and the pass rate per backend; per operator and backend where the results
    hold more than one operator."""
    by_operator = verdict_counts_by_operator(results)
    operators = sorted({op for op, _ in by_operator})
    several = len(operators) > 1
    # Named by the operators the results hold: a run of ArgMax alone is not TopK's.
    table = Table(title=f"{', '.join(operators) or 'no'} conformance: verdicts per "
                  + ("operator and backend" if several else "backend"))
    if several:
        table.add_column("op")
    table.add_column("backend")
    for verdict in VERDICTS:
        table.add_column(verdict, justify="right")
    table.add_column("pass rate", justify="right")
    rows = by_operator.items() if several else ((("", b), c) for b, c in verdict_counts(results).items())
    for (op, backend), counts in rows:
        rate = pass_rate(counts)
        cells = (*((op,) if several else ()), backend, *(str(counts[v]) for v in VERDICTS))
        table.add_row(*cells, "-" if rate is None else f"{rate:.0%}")
    return table


def timing_table(results: list[Result]) -> Table:
    """Per backend: the time its results took (`seconds`), how much of it opening sessions /
    compiling models and how much inside the runtime's execution calls, as the backend
    timed itself ("-" where it does not), and compilations per graph run (graphs that
    reached the backend; a repeated case's runs each count)."""
    table = Table(title="Time per backend (seconds)")
    for column in ("backend", "total", "compile", "execution", "graph runs", "compiled", "per run"):
        table.add_column(column, justify="left" if column == "backend" else "right")
    for time in backend_times(results):
        timed = time.compile is not None
        table.add_row(
            time.backend, f"{time.total:.2f}",
            f"{time.compile:.2f}" if time.compile is not None else "-",
            f"{time.execution:.2f}" if time.execution is not None else "-",
            str(time.runs) if timed else "-", str(time.compilations) if timed else "-",
            f"{time.per_run:.2f}" if time.per_run is not None else "-",
        )
    return table


def cliff_lines(results: list[Result], limit: int = 20) -> list[str]:
    """The results flagged as performance cliffs (`cliff`), worst first."""
    flagged = cliffs(results)
    if not flagged:
        return []
    pairs = len({(r.case, r.backend) for r in flagged})
    lines = [f"performance cliffs: {pairs} case(s) where a backend's median execution took more than "
             f"{CLIFF_RATIO:g}x the median of the other backends' ({len(flagged)} result(s)):"]
    for result in flagged[:limit]:
        cliff = result.cliff or {}
        lines.append(
            f"  {printable(result.case)} on {result.backend} ({result.graph}, K {result.k_source}): "
            f"{cliff.get('run_seconds', 0):.4f} s, {cliff.get('ratio')}x the median of "
            f"{', '.join(cliff.get('others', []))} ({cliff.get('others_median', 0):.6f} s)"
        )
    if len(flagged) > limit:
        lines.append(f"  ... and {len(flagged) - limit} more (field `cliff` in results.json)")
    return lines
