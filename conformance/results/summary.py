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


def pass_rate(counts: Counter[str]) -> float | None:
    """Passed among those judged (skips left out); None when nothing was judged."""
    judged = sum(counts[v] for v in VERDICTS if v != "skip")
    return counts["pass"] / judged if judged else None
