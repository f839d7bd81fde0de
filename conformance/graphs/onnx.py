"""ONNX TopK graphs for a case, each checked by onnx.checker with full shape inference."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from conformance.case import Case
from conformance.graphs.variants import Variant
from conformance.sequences import output_shape

X, K, VALUES, INDICES = "X", "K", "Values", "Indices"


class GraphBuildError(Exception):
    """The graph could not be built or did not pass its checks."""


def element_type(dtype: np.dtype[Any]) -> int:
    return int(helper.np_dtype_to_tensor_dtype(dtype))


def build_onnx(case: Case, variant: Variant) -> onnx.ModelProto:
    """One TopK node; X always a graph input, K an attribute (opset 1), an initializer
    ('constant') or a graph input ('input')."""
    opset = variant.version
    attributes: dict[str, Any] = {"axis": case.axis}
    inputs = [X]
    graph_inputs = [helper.make_tensor_value_info(X, element_type(case.x.dtype), list(case.x.shape))]
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
    node = helper.make_node("TopK", inputs, [VALUES, INDICES], name="topk", **attributes)

    shape: list[int | str] = list(output_shape(case.x.shape, case.axis_index, case.k))
    if variant.k_source == "input":
        shape[case.axis_index] = "k"  # unknown until K arrives
    outputs = [
        helper.make_tensor_value_info(VALUES, element_type(case.x.dtype), shape),
        helper.make_tensor_value_info(INDICES, TensorProto.INT64, shape),
    ]
    graph = helper.make_graph([node], f"topk_{case.id}", graph_inputs, outputs, initializers)
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", opset)],
        producer_name="topk-conformance",
    )
    # The IR version the opset needs, not the newest onnx knows: older runtimes refuse newer IR.
    model.ir_version = helper.find_min_ir_version_for(list(model.opset_import))
    try:
        onnx.checker.check_model(model, full_check=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as exc:
        raise GraphBuildError(f"onnx.checker rejects the graph: {' '.join(str(exc).split())}") from exc
    return model


def onnx_feeds(case: Case, variant: Variant) -> dict[str, np.ndarray[Any, Any]]:
    feeds = {X: case.x}
    if variant.k_source == "input":
        feeds[K] = np.array([case.k], dtype=np.int64)
    return feeds
