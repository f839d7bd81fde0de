"""The note attached to every failing result: what broke, and how to see it again."""

from __future__ import annotations

import shlex

from conformance.operator.discrepancy import shown
from conformance.operator.interfaces import Case
from conformance.ops.registry import operator
from conformance.results.records import Result


def repro_note(case: Case, result: Result) -> str:
    lines = [
        f"{case.id} on {result.backend} through {result.graph} (K {result.k_source}): "
        f"{result.verdict}" + (f" [{', '.join(result.rules)}]" if result.rules else ""),
        f"judged as {result.profile}; domain {result.domain}",
        result.message,
        "Reproduce:",
        # --case=ID: an id may begin with a dash (`-rf`), which argparse would take for an option.
        "  " + shlex.join(["topk-conformance", "run", f"--cases={case.file}", f"--case={case.id}",
                           f"--backend={result.backend}"]),
        f"  case: {case.source}; input {case.dtype_name} {list(case.x.shape)}, {operator(case.op).describe(case)}",
    ]
    outputs = operator(case.op).outputs
    note = result.discrepancy
    if note:
        lines += [
            f"First discrepancy at sequence {note['sequence']}:",
            f"  input:    {shown(note['input'])}",
            "  got:      " + " ".join(f"{name} {shown(note[name])}" for name in outputs),
            f"  {note.get('reference', 'the DirectML answer')}: "
            + " ".join(f"{name} {shown(note['expected_' + name])}" for name in outputs),
        ]
    return "\n".join(lines)
