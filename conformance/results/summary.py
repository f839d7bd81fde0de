"""Counting results: verdicts per backend, for the terminal summary and the report."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from conformance.results.records import VERDICTS, Result


def verdict_counts(results: Iterable[Result]) -> dict[str, Counter[str]]:
    counts: dict[str, Counter[str]] = {}
    for result in results:
        counts.setdefault(result.backend, Counter())[result.verdict] += 1
    return counts


def verdict_counts_by_operator(results: Iterable[Result]) -> dict[tuple[str, str], Counter[str]]:
    """Verdicts per (operator, backend), operators in the order first seen."""
    counts: dict[tuple[str, str], Counter[str]] = {}
    for result in results:
        counts.setdefault((result.op, result.backend), Counter())[result.verdict] += 1
    operators = list(dict.fromkeys(op for op, _ in counts))
    return dict(sorted(counts.items(), key=lambda item: operators.index(item[0][0])))


def pass_rate(counts: Counter[str]) -> float | None:
    """Passed among those judged (skips left out); None when nothing was judged."""
    judged = sum(counts[v] for v in VERDICTS if v != "skip")
    return counts["pass"] / judged if judged else None
