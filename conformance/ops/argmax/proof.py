"""The known-answer proof for ArgMax / ArgMin on a backend that must give one (the Wine
bridge): DirectML's documented examples (one axis, two axes) and ties both ways."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from conformance.ops.argmax.case import Case
from conformance.ops.argmax.variants import Variant, variants

_EXAMPLE = np.array([[1, 2, 3], [3, 0, 4], [2, 5, 2]], dtype=np.float32)
_TIES = np.array([3, 2, 1, 2, 3], dtype=np.float32)


def proof(op: str, kind: str) -> list[tuple[Case, Variant]]:
    ties = _TIES if op == "argmax" else -_TIES
    cases = [Case(id=f"proof-{op}-example-axes-{'-'.join(map(str, axes))}", source="known-answer proof",
                  file=Path("<proof>"), x=_EXAMPLE, axes=axes, op=op, tags=("proof",))
             for axes in ((0,), (1,), (0, 1))]
    cases += [Case(id=f"proof-{op}-ties-{'last' if last else 'first'}", source="known-answer proof",
                   file=Path("<proof>"), x=ties, axes=(0,), op=op, select_last_index=last, tags=("proof",))
              for last in (False, True)]
    return [(case, variant) for case in cases for variant in variants(op)
            if variant.kind == kind and not variant.cannot_express(case)]
