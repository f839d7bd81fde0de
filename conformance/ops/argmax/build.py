"""ArgMax / ArgMin graphs for a case: one ONNX node (checked by onnx.checker with full shape
inference), or DirectML's DML_OPERATOR_ARGMAX / ARGMIN / REDUCE as a generic description
(conformance/graphs/directml.py: the desc's members in declaration order)."""

from __future__ import annotations

from typing import Any

import onnx
from onnx import TensorProto, helper

from conformance.core.dtypes import element_type
from conformance.graphs.directml import DirectMLDescription, InputTensor, OutputTensor, UInt, UIntArray
from conformance.operator.attributes import onnx_attributes
from conformance.operator.graph import Graph, checked_onnx_graph
from conformance.operator.onnx_model import onnx_model
from conformance.ops.argmax.case import Case
from conformance.ops.argmax.variants import NAMES, OWN, Variant, directml_index_type

X, INDICES = "X", "indices"
OUTPUTS = (INDICES,)
DML_OPERATOR_REDUCE = 55
DML_OPERATOR_ARGMIN = 137
DML_OPERATOR_ARGMAX = 138
DML_REDUCE_FUNCTION = {"argmax": 0, "argmin": 1}
DML_AXIS_DIRECTION_INCREASING, DML_AXIS_DIRECTION_DECREASING = 0, 1


def build(case: Case, variant: Variant) -> Graph:
    if variant.kind == "onnx":
        return checked_onnx_graph(variant, lambda check: build_onnx(case, variant, check=check), {X: case.x},
                                  OUTPUTS, case.expect_error)
    return Graph(variant, build_directml(case, variant), {X: case.x}, outputs=OUTPUTS)


def build_onnx(case: Case, variant: Variant, check: bool = True) -> onnx.ModelProto:
    (axis,) = case.axes
    attributes: dict[str, Any] = {"axis": axis, "keepdims": int(case.keepdims)}
    if variant.version >= 12:
        attributes["select_last_index"] = int(case.select_last_index)
    written = onnx_attributes(NAMES[variant.op], variant.version, attributes, variant.minimal)
    node = helper.make_node(NAMES[variant.op], [X], ["Indices"], name=variant.op, **written)
    graph = helper.make_graph(
        [node], f"{variant.op}_{case.id}",
        [helper.make_tensor_value_info(X, element_type(case.x.dtype), list(case.x.shape))],
        [helper.make_tensor_value_info("Indices", TensorProto.INT64, list(case.output_shape(case.keepdims)))],
    )
    return onnx_model(graph, variant.version, check)


def build_directml(case: Case, variant: Variant) -> DirectMLDescription:
    """DML_ARGMAX/ARGMIN_OPERATOR_DESC: InputTensor, OutputTensor, AxisCount + Axes,
    AxisDirection; DML_REDUCE_OPERATOR_DESC: Function, InputTensor, OutputTensor, AxisCount +
    Axes. The output keeps the reduced axes as size 1."""
    output = OutputTensor("OutputTensor", INDICES, directml_index_type(case), case.output_shape(keepdims=True))
    axes = UIntArray("Axes", "AxisCount", case.reduced)
    if variant.version == OWN:
        direction = DML_AXIS_DIRECTION_DECREASING if case.select_last_index else DML_AXIS_DIRECTION_INCREASING
        operator, number = (("DML_OPERATOR_ARGMAX", DML_OPERATOR_ARGMAX) if variant.op == "argmax"
                            else ("DML_OPERATOR_ARGMIN", DML_OPERATOR_ARGMIN))
        members: tuple[Any, ...] = (InputTensor("InputTensor", X), output, axes, UInt("AxisDirection", direction))
        return DirectMLDescription(operator, number, members)
    members = (UInt("Function", DML_REDUCE_FUNCTION[variant.op]), InputTensor("InputTensor", X), output, axes)
    return DirectMLDescription("DML_OPERATOR_REDUCE", DML_OPERATOR_REDUCE, members)
