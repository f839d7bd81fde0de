"""The known-answer proof for Hardmax on a backend that must give one (the Wine bridge):
DirectML HARDMAX1's documented example with Axes {0, 2}, and a row of ties for both
operators (the first of equal maxima)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from conformance.ops.hardmax.case import Case
from conformance.ops.hardmax.variants import Variant, variants

# DML_ACTIVATION_HARDMAX1_OPERATOR_DESC's examples' input.
_EXAMPLE = np.array([[[12, 0], [-101, 11]], [[3, 234], [0, -101]]], dtype=np.float32)
_TIES = np.array([[1, 5, 2, 5, 5], [7, 7, 7, 7, 7]], dtype=np.float32)


def proof(kind: str) -> list[tuple[Case, Variant]]:
    cases = [Case(id="proof-hardmax1-example-3", source="known-answer proof", file=Path("<proof>"), x=_EXAMPLE,
                  axis_written=[0, 2], tags=("proof",)),
             Case(id="proof-hardmax-ties", source="known-answer proof", file=Path("<proof>"), x=_TIES,
                  axis_written=1, tags=("proof",))]
    return [(case, variant) for case in cases for variant in variants()
            if variant.kind == kind and not variant.cannot_express(case)]
