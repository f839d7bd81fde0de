"""What a run prints: live progress on a terminal (rich), a plain line now and then
otherwise, and the closing tables (time per backend, performance cliffs, verdicts)."""

from __future__ import annotations

import math
import sys
import time
from collections import Counter
from types import TracebackType
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from conformance.core.text import printable
from conformance.results.records import VERDICTS, Result
from conformance.results.summary import pass_rate, verdict_counts, verdict_counts_by_operator
from conformance.results.timing import CLIFF_MIN_SECONDS, CLIFF_RATIO, backend_times, cliffs


class RunProgress:
    """Counts results as they come; `total` is the number expected. On a terminal one live
    line (a bar, counts, elapsed time and the time left); elsewhere (CI, a pipe) a plain line
    at most every `plain_seconds` or every `plain_share` of the total, whichever comes first,
    so that a long run's log stays a few dozen lines."""

    def __init__(self, total: int, console: Console, plain_seconds: float = 30.0, plain_share: float = 0.1) -> None:
        self.total = total
        self.console = console
        self.done = 0
        self.verdicts: Counter[str] = Counter()
        self.plain_seconds = plain_seconds
        self.plain_step = max(1, math.ceil(total * plain_share))
        self.live = console.is_terminal
        self.started = time.monotonic()
        self._said_at = (0, self.started)  # results done, and when, at the last plain line
        self._bar = Progress(
            TextColumn("[bold]running"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
            TimeElapsedColumn(), TextColumn("elapsed,"), TimeRemainingColumn(), TextColumn("left"), console=console,
        )
        self._task = self._bar.add_task("", total=total)

    def __enter__(self) -> RunProgress:
        self.started = time.monotonic()
        self._said_at = (0, self.started)
        if self.live:
            self._bar.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self.live:
            self._bar.stop()
        elif self.done != self._said_at[0]:
            self._plain_line()

    def add(self, result: Result) -> None:
        self.done += 1
        self.verdicts[result.verdict] += 1
        if self.live:
            self._bar.update(self._task, advance=1, description=self._counts())
            return
        said, when = self._said_at
        if self.done - said >= self.plain_step or time.monotonic() - when >= self.plain_seconds:
            self._plain_line()

    def _counts(self) -> str:
        return " ".join(f"{v} {self.verdicts[v]}" for v in VERDICTS if self.verdicts[v])

    def _plain_line(self) -> None:
        now = time.monotonic()
        self._said_at = (self.done, now)
        elapsed = now - self.started
        share = self.done / self.total if self.total else 1.0
        left = "time left unknown"
        if self.done:  # the pace so far, for what is left
            left = f"about {_duration(elapsed / self.done * (self.total - self.done))} left"
        print(f"progress: {self.done}/{self.total} done ({share:.0%}), {_duration(elapsed)} elapsed, {left}; "
              f"{self._counts()}", file=sys.stdout, flush=True)


def _duration(seconds: float) -> str:
    """`1h02m`, `3m05s` or `12s`: what a person reads at a glance in a log."""
    whole = round(seconds)
    if whole >= 3600:
        return f"{whole // 3600}h{whole % 3600 // 60:02d}m"
    if whole >= 60:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole}s"


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


# Wider than any table the suite prints: where stdout is not a terminal there is no width to
# fit, and rich would fold tables to 80 columns (`onnx-re…`, `diverge…`).
UNFOLDED_WIDTH = 10_000


def output_console() -> Console:
    """The commands' console: a terminal's width on a terminal; elsewhere (a pipe, a CI log)
    wide enough that every table keeps its columns whole and every line stays one line."""
    console = Console(highlight=False)
    if not console.is_terminal:
        console.width = UNFOLDED_WIDTH
    return console


def timing_table(results: list[Result], backends: dict[str, dict[str, Any]] | None = None) -> Table:
    """Per backend: the time its results took (`seconds`), how much of it opening sessions /
    compiling models and how much inside the runtime's execution calls, as the backend
    timed itself ("-" where it does not, the caption saying why: its description's
    `timing`, from `backends`), and compilations per graph run (graphs that reached the
    backend; a repeated case's runs each count)."""
    table = Table(title="Time per backend")
    untimed: dict[str, str] = {}
    # Seconds, then counts: compilations per graph run is a ratio, not seconds.
    for column in ("backend", "total s", "compile s", "execution s", "graph runs", "compiled",
                   "compiled per run"):
        table.add_column(column, justify="left" if column == "backend" else "right")
    for spent in backend_times(results):
        timed = spent.compile is not None
        if not timed:
            why = str((backends or {}).get(spent.backend, {}).get("timing", "")) or (
                "the backend does not time its compilation and execution apart" if spent.total
                else "no graph reached it (every result a skip)")
            untimed[spent.backend] = printable(why)
        table.add_row(
            spent.backend, f"{spent.total:.2f}",
            f"{spent.compile:.2f}" if spent.compile is not None else "-",
            f"{spent.execution:.2f}" if spent.execution is not None else "-",
            str(spent.runs) if timed else "-", str(spent.compilations) if timed else "-",
            f"{spent.per_run:.2f}" if spent.per_run is not None else "-",
        )
    if untimed:
        # Text, not markup: a plugin's description is printed as it is.
        table.caption = Text("\n".join(f"-: {name}: {why}"
                                       for name, why in untimed.items()), justify="left")
    return table


def cliff_lines(results: list[Result], limit: int = 10) -> list[str]:
    """The results flagged as performance cliffs (`cliff`), the `limit` worst and a count of
    the others (every one is in the report's Time section)."""
    flagged = cliffs(results)
    if not flagged:
        return []
    pairs = len({(r.case, r.backend) for r in flagged})
    lines = [f"performance cliffs: {pairs} case(s) where a backend's median execution took more than "
             f"{CLIFF_RATIO:g}x the median of the other backends' and at least {CLIFF_MIN_SECONDS * 1000:g} ms "
             f"({len(flagged)} result(s)):"]
    for result in flagged[:limit]:
        cliff = result.cliff or {}
        lines.append(
            f"  {printable(result.case)} on {result.backend} ({result.graph}, K {result.k_source}): "
            f"{cliff.get('run_seconds', 0):.4f} s, {cliff.get('ratio')}x the median of "
            f"{', '.join(cliff.get('others', []))} ({cliff.get('others_median', 0):.6f} s)"
        )
    if len(flagged) > limit:
        lines.append(f"  ... and {len(flagged) - limit} more: every one in report.html's Time section "
                     "(and field `cliff` in results.json)")
    return lines
