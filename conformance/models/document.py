"""A model's outcome written out: its entry of results.json's `models`, and the case files of
its nodes that fail or flip (contract section 9), which `run --cases` reruns alone."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from conformance.core.atomic_files import atomic_write_text
from conformance.core.dtypes import to_jsonable
from conformance.findings.records import Finding
from conformance.models.alone import Alone
from conformance.models.outcome import ModelOutcome, NodeOutcome


def _jsonable(fields: Any) -> Any:
    if isinstance(fields, np.ndarray):
        return to_jsonable(fields)
    if isinstance(fields, dict):
        return {key: _jsonable(value) for key, value in fields.items()}
    if isinstance(fields, list | tuple):
        return [_jsonable(value) for value in fields]
    return fields


def to_write(node: NodeOutcome) -> list[str]:
    """The backends whose input to this node becomes a case: each that fails there, and both of
    each pair whose inputs flipped the node's choice."""
    wanted = [backend for backend, verdict in node.verdicts.items() if verdict.verdict == "fail"]
    wanted += [backend for a, b, kind, _ in node.pairs if kind == "flipped" for backend in (a, b)]
    return list(dict.fromkeys(wanted))


def write_cases(outcome: ModelOutcome, out: Path) -> dict[tuple[str, str], Path]:
    written = {}
    for node in outcome.nodes:
        for backend in to_write(node):
            verdict = node.verdicts[backend]
            if verdict.case_fields is None:
                continue
            fields = _jsonable(dict(verdict.case_fields))
            fields["tags"] = ["model", backend.replace("-", "_")]
            why = (f"{verdict.verdict} [{', '.join(verdict.rules)}]" if verdict.verdict == "fail"
                   else "its input differs from another backend's, and its choice with it")
            header = [f"# Node {node.label} ({node.node.op_type}) of {outcome.source.path.name} "
                      f"(sha256 {outcome.source.sha256[:16]}), as {backend} ran it: {why}.",
                      "# Written by `topk-conformance model`; `topk-conformance run --cases FILE` reruns it alone."]
            path = out / "cases" / f"{fields['id']}.yaml"
            atomic_write_text(path, "\n".join([*header, *_case_lines(fields)]) + "\n")
            written[(node.key, backend)] = path
    return written


def _case_lines(fields: dict[str, Any]) -> list[str]:
    """The case as a case file writes one: a field a line, each value in JSON's flow style
    (JSON is YAML), tensors on one line each."""
    lines = ["cases:"]
    for position, (key, value) in enumerate(fields.items()):
        lines.append(f"{'  - ' if position == 0 else '    '}{key}: {json.dumps(value, separators=(', ', ': '))}")
    return lines


def model_entry(outcome: ModelOutcome, cases: dict[tuple[str, str], Path], out: Path,
                alone: Mapping[tuple[str, str], Alone],
                known: Mapping[tuple[str, str], Sequence[Finding]] | None = None) -> dict[str, Any]:
    """results.json's `models` entry; `known`: the finding records each fail is like."""
    known = known or {}
    parting = outcome.parting
    return {
        "file": str(outcome.source.path),
        "sha256": outcome.source.sha256,
        "opset": outcome.source.opset,
        **({"interrupted": outcome.interrupted} if outcome.interrupted else {}),
        "inputs": outcome.inputs,
        "backends": {name: {"verdict": run.untouched.verdict if run.untouched.outputs is None else "pass",
                            "message": run.untouched.message, "stage": run.untouched.stage,
                            "captured": {"verdict": run.captured.verdict, "message": run.captured.message,
                                         "stage": run.captured.stage},
                            "capture_changed": outcome.captured_changed.get(name, "")}
                     for name, run in outcome.runs.items()},
        "nodes": [{
            "position": node.node.position, "name": node.node.name, "op": node.node.op,
            "op_type": node.node.op_type, "where": node.node.where, "not_captured": node.node.not_captured,
            **({"iteration": node.iteration} if node.iteration is not None else {}),
            "results": {backend: {"verdict": verdict.verdict, "rules": list(verdict.rules),
                                  "message": verdict.message,
                                  "case_file": str(cases[(node.key, backend)].relative_to(out))
                                  if (node.key, backend) in cases else "",
                                  **({"alone": alone[(node.key, backend)].entry()}
                                     if (node.key, backend) in alone else {}),
                                  **({"like": [finding.id for finding in known[(node.key, backend)]]}
                                     if (node.key, backend) in known else {})}
                        for backend, verdict in node.verdicts.items()},
            "pairs": [{"backends": [a, b], "class": kind, "message": message} for a, b, kind, message in node.pairs],
        } for node in outcome.nodes],
        "outputs": [{"name": name, "backends": [a, b], "compared": how} for name, a, b, how in outcome.outputs],
        "parting": None if parting is None else {
            "node": parting.node.name, "position": parting.node.position,
            **({"iteration": parting.iteration} if parting.iteration is not None else {}),
            "pairs": [{"backends": [a, b], "class": kind} for a, b, kind, _ in parting.pairs if kind != "same"]},
    }
