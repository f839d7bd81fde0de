"""Hardmax graphs for a case: one ONNX node (checked by onnx.checker with full shape
inference), or DirectML's DML_OPERATOR_ACTIVATION_HARDMAX / HARDMAX1 as a generic description
(conformance/graphs/directml.py: the desc's members in declaration order).

Checked against DirectML.h (the redistributable's, DML_TARGET_VERSION 0x6400): in
DML_OPERATOR_TYPE, ACTIVATION_HARDMAX is the 37th entry (value 36, among the first release's
operators) and ACTIVATION_HARDMAX1 value 160, under `#if DML_TARGET_VERSION >= 0x5100`
(DML_FEATURE_LEVEL_5_1, DirectML 1.9), after GELU 157, SOFTMAX1 158, LOG_SOFTMAX1 159; the
same count gives REDUCE 55, TOP_K 71, TOP_K1 112, ARGMIN 137, ARGMAX 138, as the other
operators' builders have them. DML_ACTIVATION_HARDMAX_OPERATOR_DESC is { const
DML_TENSOR_DESC* InputTensor; const DML_TENSOR_DESC* OutputTensor; }; DML_ACTIVATION_HARDMAX1_
OPERATOR_DESC adds { UINT AxisCount; const UINT* Axes; }."""

from __future__ import annotations

from typing import Any

import onnx
from onnx import helper

from conformance.core.dtypes import element_type, name_of
from conformance.graphs.directml import DirectMLDescription, InputTensor, OutputTensor, UIntArray
from conformance.graphs.errors import GraphBuildError
from conformance.operator.attributes import onnx_attributes
from conformance.operator.graph import Graph, checked_onnx_graph
from conformance.operator.onnx_model import onnx_model
from conformance.ops.hardmax.case import Case
from conformance.ops.hardmax.variants import HARDMAX, NAME, Variant

X, OUTPUT = "X", "output"
OUTPUTS = (OUTPUT,)
DML_OPERATOR_ACTIVATION_HARDMAX = 36
DML_OPERATOR_ACTIVATION_HARDMAX1 = 160


def build(case: Case, variant: Variant) -> Graph:
    if variant.kind == "onnx":
        return checked_onnx_graph(variant, lambda check: build_onnx(case, variant, check=check), {X: case.x},
                                  OUTPUTS, case.expect_error)
    return Graph(variant, build_directml(case, variant), {X: case.x}, outputs=OUTPUTS)


def build_onnx(case: Case, variant: Variant, check: bool = True) -> onnx.ModelProto:
    axis = variant.onnx_axis(case)
    if axis is None:
        raise GraphBuildError(f"{variant.graph} cannot express the rows of case {case.id}")
    written = onnx_attributes(NAME, variant.version, {"axis": axis}, variant.minimal)
    node = helper.make_node(NAME, [X], ["Y"], name="hardmax", **written)
    value_type = element_type(case.x.dtype)
    graph = helper.make_graph(
        [node], f"hardmax_{case.id}",
        [helper.make_tensor_value_info(X, value_type, list(case.x.shape))],
        [helper.make_tensor_value_info("Y", value_type, list(case.x.shape))],
    )
    return onnx_model(graph, variant.version, check)


def build_directml(case: Case, variant: Variant) -> DirectMLDescription:
    """HARDMAX: InputTensor, OutputTensor; HARDMAX1: the same, then AxisCount + Axes (the
    case's axes as written, counted from the front). The output has the input's type and sizes."""
    output = OutputTensor("OutputTensor", OUTPUT, name_of(case.x.dtype), tuple(case.x.shape))
    members: tuple[Any, ...] = (InputTensor("InputTensor", X), output)
    if variant.version == HARDMAX:
        return DirectMLDescription("DML_OPERATOR_ACTIVATION_HARDMAX", DML_OPERATOR_ACTIVATION_HARDMAX, members)
    members += (UIntArray("Axes", "AxisCount", case.own_axes),)
    return DirectMLDescription("DML_OPERATOR_ACTIVATION_HARDMAX1", DML_OPERATOR_ACTIVATION_HARDMAX1, members)
