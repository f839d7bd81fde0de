"""The vendor gate: a baseline of known discrepancies, and the comparison of a run with it.

A baseline is a YAML file, sorted and diff-friendly: the backends it covers, notes (why a
group of discrepancies is known), and one entry per result that is neither pass nor skip.
A run is held to it: a result worse than recorded, or a new discrepancy, is a regression
(exit status 1); a recorded discrepancy that now passes is listed as fixed, and fails the
gate only with `strict`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from conformance.results.records import Result

# Worse is higher. Among the discrepancies that break something, a change of kind (an
# error that becomes a fail) or new broken rules count as worse too.
_RANK = {"pass": 0, "skip": 0, "divergent": 1, "error": 2, "fail": 2, "crash": 3}
Key = tuple[str, str, str, str]  # backend, case, graph, k_source


@dataclass(frozen=True)
class Entry:
    backend: str
    case: str
    graph: str
    k_source: str
    verdict: str
    rules: tuple[str, ...] = ()
    note: str = ""  # a key of Baseline.notes

    @property
    def key(self) -> Key:
        return (self.backend, self.case, self.graph, self.k_source)

    @staticmethod
    def of(result: Result, note: str = "") -> Entry:
        return Entry(result.backend, result.case, result.graph, result.k_source, result.verdict,
                     tuple(result.rules), note)


@dataclass
class Baseline:
    backends: list[str]
    entries: dict[Key, Entry]
    notes: dict[str, str] = field(default_factory=dict)
    recorded_with: dict[str, Any] = field(default_factory=dict)


class BaselineError(ValueError):
    """A baseline file that cannot be read; the message names the file and the entry."""


def is_discrepancy(result: Result) -> bool:
    return result.verdict not in ("pass", "skip")


def record(results: Iterable[Result], recorded_with: dict[str, Any], previous: Baseline | None = None) -> Baseline:
    """A baseline of these results; notes of a previous baseline carry over to the entries
    that are still there."""
    results = list(results)
    old_notes = previous.entries if previous else {}
    entries = {}
    for result in results:
        if is_discrepancy(result):
            kept = old_notes.get((result.backend, result.case, result.graph, result.k_source))
            entry = Entry.of(result, kept.note if kept else "")
            entries[entry.key] = entry
    used = {entry.note for entry in entries.values()}
    notes = {key: text for key, text in (previous.notes if previous else {}).items() if key in used}
    return Baseline(sorted({r.backend for r in results}), entries, notes, recorded_with)


def write_baseline(path: Path, baseline: Baseline) -> None:
    lines = [
        "# topk-conformance baseline: every known discrepancy (a result neither pass nor skip)",
        "# of the backends below. `topk-conformance run --baseline FILE` fails on anything worse.",
        "# Regenerate with `topk-conformance baseline RESULTS.json -o FILE` after reading the",
        "# results; notes (why a discrepancy is known) carry over to entries still present.",
        yaml.safe_dump({"recorded_with": baseline.recorded_with}, sort_keys=True, width=100).rstrip(),
        yaml.safe_dump({"backends": baseline.backends}, default_flow_style=None, width=100).rstrip(),
        yaml.safe_dump({"notes": baseline.notes}, sort_keys=True, width=100).rstrip()
        if baseline.notes else "notes: {}",
        "results:",
    ]
    for key in sorted(baseline.entries):
        entry = baseline.entries[key]
        fields: dict[str, Any] = {
            "backend": entry.backend, "case": entry.case, "graph": entry.graph,
            "k_source": entry.k_source, "verdict": entry.verdict, "rules": list(entry.rules),
        }
        if entry.note:
            fields["note"] = entry.note
        flow = yaml.safe_dump(fields, default_flow_style=True, sort_keys=False, width=10_000).strip()
        lines.append(f"- {flow}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_baseline(path: Path) -> Baseline:
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise BaselineError(f"{path}: cannot read the baseline: {' '.join(str(exc).split())}") from None
    if not isinstance(document, dict) or not isinstance(document.get("backends"), list):
        raise BaselineError(f"{path}: a baseline is a mapping with 'backends' and 'results'")
    notes = document.get("notes") or {}
    entries: dict[Key, Entry] = {}
    for position, raw in enumerate(document.get("results") or []):
        try:
            entry = Entry(
                str(raw["backend"]), str(raw["case"]), str(raw["graph"]), str(raw["k_source"]),
                str(raw["verdict"]), tuple(str(rule) for rule in raw.get("rules") or ()), str(raw.get("note", "")),
            )
        except (KeyError, TypeError) as exc:
            raise BaselineError(f"{path}: results[{position}]: missing or malformed field {exc}") from None
        if entry.verdict not in _RANK or entry.verdict in ("pass", "skip"):
            raise BaselineError(f"{path}: results[{position}]: verdict {entry.verdict!r} is not a discrepancy")
        if entry.note and entry.note not in notes:
            raise BaselineError(f"{path}: results[{position}]: note {entry.note!r} is not under 'notes'")
        entries[entry.key] = entry
    return Baseline([str(b) for b in document["backends"]], entries, dict(notes), document.get("recorded_with") or {})


@dataclass
class Comparison:
    regressions: list[str] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)
    not_run: list[str] = field(default_factory=list)  # recorded, but skipped or absent now
    ungated: list[str] = field(default_factory=list)  # backends the baseline does not cover

    def failed(self, strict: bool) -> bool:
        return bool(self.regressions or (strict and (self.fixed or self.not_run)))


def _describe(entry: Entry | Result) -> str:
    rules = f" [{', '.join(entry.rules)}]" if entry.rules else ""
    return f"{entry.case} on {entry.backend} ({entry.graph}, K {entry.k_source}): {entry.verdict}{rules}"


def compare(results: Iterable[Result], baseline: Baseline) -> Comparison:
    comparison = Comparison()
    covered = set(baseline.backends)
    seen: set[Key] = set()
    for result in results:
        if result.backend not in covered:
            if result.backend not in comparison.ungated:
                comparison.ungated.append(result.backend)
            continue
        key = (result.backend, result.case, result.graph, result.k_source)
        seen.add(key)
        recorded = baseline.entries.get(key)
        if recorded is None:
            if is_discrepancy(result):
                comparison.regressions.append(f"new: {_describe(result)}")
            continue
        if result.verdict == "skip":
            comparison.not_run.append(f"{_describe(recorded)}, now skipped: {result.message}")
            continue
        old, new = _RANK[recorded.verdict], _RANK[result.verdict]
        worse = new > old or (new == old >= 2 and (
            result.verdict != recorded.verdict or not set(result.rules) <= set(recorded.rules)))
        if worse:
            comparison.regressions.append(f"worse: {_describe(result)}; recorded {recorded.verdict}")
        elif new < old:
            comparison.fixed.append(f"better: {_describe(result)}; recorded {recorded.verdict}")
    for key, entry in baseline.entries.items():
        if key not in seen and entry.backend in covered:
            comparison.not_run.append(f"{_describe(entry)}, not in this run")
    return comparison
