"""The report's links to the finding records: a discrepancy group names the findings whose
minimal cases it holds on that backend, with their upstream status; the Findings section lists
the records of the report's backends and the release table of findings/history.yaml."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from conformance.findings.history import describe, read_history, span
from conformance.findings.records import Finding, default_root, load_findings
from conformance.results.records import Result

Records = tuple[dict[str, Finding], dict[str, Any]]  # the finding records by id, and their history


def load() -> Records:
    """The records and their history; none where the records cannot be found."""
    root = default_root()
    if not root.is_dir():
        return {}, {}
    return load_findings(root).findings, read_history(root)


def matching(members: Iterable[Result], findings: Mapping[str, Finding]) -> list[dict[str, str]]:
    """The findings a group of discrepancies shows: one of its results is a minimal case of the
    finding on a backend the finding names."""
    keys = {(m.backend, m.case) for m in members}
    return [_row(f) for f in findings.values() if any((b, c) in keys for b in f.backends for c in f.cases)]


def section(findings: Mapping[str, Finding], history: Mapping[str, Any], backends: Iterable[str]) -> dict[str, Any]:
    shown = set(backends)
    rows = [_row(f) for f in findings.values() if shown & set(f.backends)]
    tables = []
    for distribution, measured in sorted((history.get("runtimes") or {}).items()):
        releases = [v for v in measured.get("releases", []) if v not in (measured.get("refused") or {})]
        lines = [{"id": finding_id, "cells": [outcomes.get(v, "") for v in releases],
                  "span": describe(span(outcomes, releases), releases)}
                 for finding_id, outcomes in (measured.get("findings") or {}).items() if finding_id in findings]
        if lines:
            tables.append({"runtime": distribution, "measured": measured.get("measured", ""),
                           "releases": releases, "rows": lines})
    return {"rows": rows, "history": tables}


def _row(finding: Finding) -> dict[str, str]:
    same = next(iter(finding.upstream.leading), None)
    return {"id": finding.id, "runtime": finding.runtime, "title": finding.title,
            "upstream": finding.upstream.summary, "url": same.url if same else "",
            "backends": ", ".join(finding.backends)}
