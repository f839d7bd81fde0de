"""ONNX TopK graphs for a case, each checked by onnx.checker with full shape inference (a
case that expects an error gets its rejected graph unchecked: see `build_onnx`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from conformance.core.dtypes import element_type as element_type  # where it used to be
from conformance.graphs.errors import GraphBuildError as GraphBuildError  # where it used to be
from conformance.operator.attributes import onnx_attributes
from conformance.operator.onnx_model import onnx_model
from conformance.ops.topk.case import Case
from conformance.ops.topk.variants import Variant

X, K, VALUES, INDICES = "X", "K", "Values", "Indices"


def build_onnx(case: Case, variant: Variant, check: bool = True) -> onnx.ModelProto:
    """One TopK node; X always a graph input (every dimension a symbol for a dynamic
    variant), K an attribute (opset 1), an initializer ('constant') or a graph input
    ('input'); every attribute, or for a minimal variant those that are not the opset's
    defaults (contract section 7). Raises CheckerRejected where onnx.checker rejects the model, unless `check`
    is off (for a case that expects an error: the runtime must still see the graph)."""
    opset = variant.version
    attributes: dict[str, Any] = {"axis": case.axis}
    inputs = [X]
    x_shape: list[int | str] = list(case.x.shape)
    if variant.dynamic:
        x_shape = [f"X_dim{i}" for i in range(case.x.ndim)]
    graph_inputs = [helper.make_tensor_value_info(X, element_type(case.x.dtype), x_shape)]
    initializers = []
    if variant.k_source == "attribute":
        attributes["k"] = case.k
    else:
        inputs.append(K)
        if variant.k_source == "constant":
            initializers.append(numpy_helper.from_array(np.array([case.k], dtype=np.int64), K))
        else:
            graph_inputs.append(helper.make_tensor_value_info(K, TensorProto.INT64, [1]))
    if opset >= 11:
        attributes["largest"] = int(case.largest)
        attributes["sorted"] = int(case.sort != "none")
    written = onnx_attributes("TopK", opset, attributes, variant.minimal)
    node = helper.make_node("TopK", inputs, [VALUES, INDICES], name="topk", **written)

    shape: list[int | str] = list(x_shape)
    shape[case.axis_index] = case.k
    if variant.k_source == "input" or case.k < 0:
        # Unknown until K arrives; and no shape has a negative dimension (an unchecked
        # graph of a case expecting an error may have K = -1).
        shape[case.axis_index] = "k"
    outputs = [
        helper.make_tensor_value_info(VALUES, element_type(case.x.dtype), shape),
        helper.make_tensor_value_info(INDICES, TensorProto.INT64, shape),
    ]
    graph = helper.make_graph([node], f"topk_{case.id}", graph_inputs, outputs, initializers)
    return onnx_model(graph, opset, check)


def onnx_feeds(case: Case, variant: Variant) -> dict[str, np.ndarray[Any, Any]]:
    feeds = {X: case.x}
    if variant.k_source == "input":
        feeds[K] = np.array([case.k], dtype=np.int64)
    return feeds
