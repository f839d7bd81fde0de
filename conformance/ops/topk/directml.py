"""DirectML operator descriptions for a case: DML_OPERATOR_TOP_K1 or DML_OPERATOR_TOP_K,
as the Wine bridge creates them (the tensor descriptions follow from the input)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from conformance.ops.topk.case import Case
from conformance.ops.topk.variants import Variant, directml_index_type

X = "X"
DML_OPERATOR_TOP_K = 71
DML_OPERATOR_TOP_K1 = 112
DML_AXIS_DIRECTION_INCREASING = 0
DML_AXIS_DIRECTION_DECREASING = 1


@dataclass(frozen=True)
class DirectMLOperator:
    operator: int  # DML_OPERATOR_TOP_K1 or DML_OPERATOR_TOP_K
    axis: int  # DirectML's Axis is a UINT: counted from the front
    k: int
    direction: int  # DML_AXIS_DIRECTION (TOP_K1 only; TOP_K is decreasing)
    index_type: str  # numpy name of the OutputIndexTensor's type

    @property
    def name(self) -> str:
        return "DML_OPERATOR_TOP_K1" if self.operator == DML_OPERATOR_TOP_K1 else "DML_OPERATOR_TOP_K"


def build_directml(case: Case, variant: Variant) -> DirectMLOperator:
    top_k1 = variant.version == 1
    direction = DML_AXIS_DIRECTION_DECREASING if case.largest else DML_AXIS_DIRECTION_INCREASING
    return DirectMLOperator(
        DML_OPERATOR_TOP_K1 if top_k1 else DML_OPERATOR_TOP_K, case.axis_index, case.k,
        direction, directml_index_type(case),
    )


def directml_feeds(case: Case, variant: Variant) -> dict[str, np.ndarray[Any, Any]]:
    return {X: case.x}
