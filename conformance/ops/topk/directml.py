"""DirectML's TopK operators for a case: DML_OPERATOR_TOP_K1 (variant version 1) or
DML_OPERATOR_TOP_K (version 0), as generic descriptions (conformance/graphs/directml.py):
the members of DML_TOP_K1_OPERATOR_DESC / DML_TOP_K_OPERATOR_DESC in declaration order."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.core.dtypes import name_of
from conformance.graphs.directml import DirectMLDescription, InputTensor, OutputTensor, UInt
from conformance.ops.topk.case import Case
from conformance.ops.topk.variants import Variant, directml_index_type

X = "X"
VALUES, INDICES = "values", "indices"
DML_OPERATOR_TOP_K = 71
DML_OPERATOR_TOP_K1 = 112
DML_AXIS_DIRECTION_INCREASING = 0
DML_AXIS_DIRECTION_DECREASING = 1


def build_directml(case: Case, variant: Variant) -> DirectMLDescription:
    """TOP_K1: InputTensor, OutputValueTensor, OutputIndexTensor, Axis, K, AxisDirection;
    TOP_K the same without AxisDirection (it selects the largest). DirectML's Axis is a UINT,
    counted from the front; both outputs have the input's sizes with the axis's replaced by K
    (an axis out of range keeps the input's sizes, for DirectML to judge)."""
    axis = case.axis_index
    shape = list(case.x.shape)
    if 0 <= axis < len(shape):
        shape[axis] = case.k
    members: list[Any] = [
        InputTensor("InputTensor", X),
        OutputTensor("OutputValueTensor", VALUES, name_of(case.x.dtype), tuple(shape)),
        OutputTensor("OutputIndexTensor", INDICES, directml_index_type(case), tuple(shape)),
        UInt("Axis", axis),
        UInt("K", case.k),
    ]
    if variant.version == 1:
        direction = DML_AXIS_DIRECTION_DECREASING if case.largest else DML_AXIS_DIRECTION_INCREASING
        members.append(UInt("AxisDirection", direction))
        return DirectMLDescription("DML_OPERATOR_TOP_K1", DML_OPERATOR_TOP_K1, tuple(members))
    return DirectMLDescription("DML_OPERATOR_TOP_K", DML_OPERATOR_TOP_K, tuple(members))


def directml_feeds(case: Case, variant: Variant) -> dict[str, np.ndarray[Any, Any]]:
    return {X: case.x}
