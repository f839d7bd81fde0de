"""Live progress on a terminal (rich), plain lines otherwise; the closing summary table."""

from __future__ import annotations

import sys
from collections import Counter
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from conformance.results import VERDICTS, Result
from conformance.summary import pass_rate, verdict_counts
from conformance.text import printable

CLIFF_RATIO = 20.0  # conformance.suite.CLIFF_RATIO (not imported: the summary loads no runtime)


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
    table = Table(title="TopK conformance: verdicts per backend")
    table.add_column("backend")
    for verdict in VERDICTS:
        table.add_column(verdict, justify="right")
    table.add_column("pass rate", justify="right")
    for backend, counts in verdict_counts(results).items():
        rate = pass_rate(counts)
        table.add_row(backend, *(str(counts[v]) for v in VERDICTS), "-" if rate is None else f"{rate:.0%}")
    return table


def timing_table(results: list[Result]) -> Table:
    """Per backend: the time its results took (`seconds`), how much of it opening sessions /
    compiling models and how much inside the runtime's execution calls, as the backend
    timed itself ("-" where it does not), and compilations per graph run (graphs that
    reached the backend; a repeated case's runs each count)."""
    table = Table(title="Time per backend (seconds)")
    for column in ("backend", "total", "compile", "execution", "graph runs", "compiled", "per run"):
        table.add_column(column, justify="left" if column == "backend" else "right")
    rows: dict[str, list[Result]] = {}
    for result in results:
        rows.setdefault(result.backend, []).append(result)
    for backend, own in rows.items():
        ran = [r for r in own if r.verdict != "skip"]
        timed = [r for r in ran if r.compile_seconds is not None]  # reached a backend that times itself
        runs = sum(max(1, len(r.runs)) for r in timed)
        compilations = sum(r.compilations or 0 for r in timed)
        table.add_row(
            backend, f"{sum(r.seconds for r in ran):.2f}",
            f"{sum(r.compile_seconds or 0.0 for r in timed):.2f}" if timed else "-",
            f"{sum(r.run_seconds or 0.0 for r in timed):.2f}" if timed else "-",
            str(runs) if timed else "-", str(compilations) if timed else "-",
            f"{compilations / runs:.2f}" if timed and runs else "-",
        )
    return table


def cliff_lines(results: list[Result], limit: int = 20) -> list[str]:
    """The results flagged as performance cliffs (`cliff`), worst first."""
    cliffs = sorted((r for r in results if r.cliff), key=lambda r: -float((r.cliff or {}).get("ratio") or 0))
    if not cliffs:
        return []
    pairs = len({(r.case, r.backend) for r in cliffs})
    lines = [f"performance cliffs: {pairs} case(s) where a backend's median execution took more than "
             f"{CLIFF_RATIO:g}x the median of the other backends' ({len(cliffs)} result(s)):"]
    for result in cliffs[:limit]:
        cliff = result.cliff or {}
        lines.append(
            f"  {printable(result.case)} on {result.backend} ({result.graph}, K {result.k_source}): "
            f"{cliff.get('run_seconds', 0):.4f} s, {cliff.get('ratio')}x the median of "
            f"{', '.join(cliff.get('others', []))} ({cliff.get('others_median', 0):.6f} s)"
        )
    if len(cliffs) > limit:
        lines.append(f"  ... and {len(cliffs) - limit} more (field `cliff` in results.json)")
    return lines
