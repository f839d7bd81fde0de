"""The suite's finding records a node's fail is like: a model's author told that OpenVINO breaks
ONNX's tie order is told too that it is a known bug, with its upstream issue and its standalone
repro (contract section 9)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from conformance.core.machine import Scope
from conformance.findings.records import Finding
from conformance.models.outcome import ModelOutcome


def like(op: str, backend: str, rules: Sequence[str], tier: str, findings: Mapping[str, Finding]) -> list[Finding]:
    """The records of the same operator failing on the same backend by the same rules (each rule
    the node broke is one the record names), where the record's instruction-set condition, if it
    has one, holds for the backend's tier. Alike, not proven the same: the record's repro is the
    proof of its own case."""
    if not rules:
        return []
    found = []
    for finding in findings.values():
        scope = finding.conditions.get("isa", "")
        if (backend in finding.backends and op in finding.operators and set(rules) <= set(finding.rules)
                and (not scope or not tier or Scope(scope).holds(tier))):
            found.append(finding)
    return found


def known_fails(outcome: ModelOutcome, findings: Mapping[str, Finding]) -> dict[tuple[str, str], list[Finding]]:
    """Each (node, backend) that fails, and the records its fail is like (only those with one)."""
    found = {}
    for node in outcome.nodes:
        for backend, verdict in node.verdicts.items():
            if verdict.verdict != "fail":
                continue
            tier = str((outcome.runs_info.get(backend) or {}).get("isa", ""))
            records = like(node.node.op, backend, verdict.rules, tier, findings)
            if records:
                found[(node.key, backend)] = records
    return found
