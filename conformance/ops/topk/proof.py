"""The known-answer proof a backend gives before any TopK result (the Wine bridge's: under Wine
a broken translation layer returns success and untouched outputs): the documented DML_TOP_K1
examples 3 and 4 (ties, both directions, two axes) and a tie-heavy 64x1000 input (values
0..3) with K=16, small enough to run in about a second."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from conformance.ops.topk.case import Case
from conformance.ops.topk.variants import Variant, directml_variants

_DOCUMENTED_TIES = np.array([[[[1, 2, 2, 3], [3, 4, 5, 5], [6, 6, 6, 6]]]], dtype=np.float32)
_TIE_HEAVY = np.random.default_rng(20261121).integers(0, 4, size=(64, 1000)).astype(np.float32)


def proof_cases() -> list[Case]:
    cases = []
    for name, x, axis, k in (("documented-ties", _DOCUMENTED_TIES, 3, 3),
                             ("documented-ties-axis2", _DOCUMENTED_TIES, 2, 2),
                             ("tie-heavy-64x1000", _TIE_HEAVY, 1, 16)):
        for largest in (True, False):
            cases.append(Case(
                id=f"proof-{name}-{'largest' if largest else 'smallest'}", source="known-answer proof",
                file=Path("<proof>"), x=x, axis=axis, k=k, largest=largest, tags=("proof",),
            ))
    return cases


def proof_variants(kind: str) -> list[Variant]:
    """The variants of a dialect the proof runs through: DirectML's TOP_K1 and TOP_K; ONNX
    opset 11 with K constant and as an input."""
    if kind == "directml":
        return directml_variants()
    if kind == "onnx":
        return [Variant("onnx", 11, "constant"), Variant("onnx", 11, "input")]
    return []


def proof(kind: str) -> list[tuple[Case, Variant]]:
    """Each proof input through each variant of the dialect that can express it (DML_TOP_K
    has no increasing direction)."""
    return [(case, variant) for case in proof_cases() for variant in proof_variants(kind)
            if not variant.cannot_express(case)]
