"""The note attached to every failing result: what broke, and how to see it again."""

from __future__ import annotations

import shlex

from conformance.ops.topk.case import Case
from conformance.ops.topk.judge import shown
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
        f"  case: {case.source}; input {case.dtype_name} {list(case.x.shape)}, axis {case.axis}, "
        f"k {case.k}, largest {case.largest}, sort {case.sort}, stable {case.stable}",
    ]
    note = result.discrepancy
    if note:
        lines += [
            f"First discrepancy at sequence {note['sequence']}:",
            f"  input:    {shown(note['input'])}",
            f"  got:      values {shown(note['values'])} indices {shown(note['indices'])}",
            f"  {note.get('reference', 'the DirectML answer')}: values {shown(note['expected_values'])} "
            f"indices {shown(note['expected_indices'])}",
        ]
    return "\n".join(lines)
