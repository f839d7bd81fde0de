"""NonMaxSuppression graphs for a case: one ONNX node (checked by onnx.checker with full shape
inference), or OpenVINO's native NonMaxSuppression-5 or -9.

The optional inputs (the cap, the IoU threshold, the score threshold) are initializers
(`constant`) or graph inputs (`input`), each a one-element tensor as detectors' exports write
them; one the case leaves out is left out of the node (an empty name where a later one is
given). OpenVINO's Python API puts a constant 0 where one is left out, which is the default its
specification gives for each of them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from conformance.core.dtypes import element_type, name_of
from conformance.graphs.errors import RuntimeRefused, built_by
from conformance.operator.attributes import onnx_attributes
from conformance.operator.graph import Graph, checked_onnx_graph
from conformance.operator.onnx_model import onnx_model
from conformance.ops.nms.case import Case
from conformance.ops.nms.variants import Variant

if TYPE_CHECKING:
    import openvino as ov

NAME = "NonMaxSuppression"
BOXES, SCORES = "boxes", "scores"
CAP, IOU, SCORE = "max_output_boxes_per_class", "iou_threshold", "score_threshold"
SELECTED = "selected_indices"
ONNX_OUTPUTS = (SELECTED,)
OPENVINO_OUTPUTS = (SELECTED, "selected_scores", "valid_outputs")
OUTPUTS = OPENVINO_OUTPUTS  # every output the operator's graphs give, ONNX's first


def optional_inputs(case: Case) -> list[tuple[str, np.ndarray[Any, Any] | None]]:
    """The three optional inputs in the node's order, each a one-element array or None (left out)."""
    cap = None if case.max_output is None else np.array([case.max_output], dtype=np.int64)
    iou = None if case.iou_threshold is None else np.array([case.iou_threshold], dtype=np.float32)
    score = None if case.score_threshold is None else np.array([case.score_threshold], dtype=np.float32)
    return [(CAP, cap), (IOU, iou), (SCORE, score)]


def feeds(case: Case, variant: Variant) -> dict[str, np.ndarray[Any, Any]]:
    given = {BOXES: case.boxes, SCORES: case.scores}
    if variant.source == "input":
        given.update({name: value for name, value in optional_inputs(case) if value is not None})
    return given


def build(case: Case, variant: Variant) -> Graph:
    if variant.kind == "onnx":
        return checked_onnx_graph(variant, lambda check: build_onnx(case, variant, check), feeds(case, variant),
                                  ONNX_OUTPUTS, case.expect_error)
    return Graph(variant, build_openvino(case, variant), feeds(case, variant), outputs=OPENVINO_OUTPUTS)


def build_onnx(case: Case, variant: Variant, check: bool = True) -> onnx.ModelProto:
    value_type = element_type(case.boxes.dtype)
    graph_inputs = [helper.make_tensor_value_info(BOXES, value_type, list(case.boxes.shape)),
                    helper.make_tensor_value_info(SCORES, element_type(case.scores.dtype), list(case.scores.shape))]
    initializers = []
    node_inputs = [BOXES, SCORES]
    for name, value in optional_inputs(case):
        node_inputs.append("" if value is None else name)
        if value is None:
            continue
        if variant.source == "constant":
            initializers.append(numpy_helper.from_array(value, name))
        else:
            kind = TensorProto.INT64 if value.dtype == np.int64 else TensorProto.FLOAT
            graph_inputs.append(helper.make_tensor_value_info(name, kind, [1]))
    while node_inputs[-1] == "":
        node_inputs.pop()
    written = onnx_attributes(NAME, variant.version, {"center_point_box": case.center_point_box}, variant.minimal)
    node = helper.make_node(NAME, node_inputs, [SELECTED], name="nms", **written)
    output = helper.make_tensor_value_info(SELECTED, TensorProto.INT64, ["selected", 3])
    graph = helper.make_graph([node], f"nms_{case.id}", graph_inputs, [output], initializers)
    return onnx_model(graph, variant.version, check)


def build_openvino(case: Case, variant: Variant) -> ov.Model:
    # Imported here, not with the module: importing openvino starts its usage reporting (a client
    # id under ~/intel), which a run that builds no OpenVINO graph must not cause.
    import openvino as ov
    from openvino import opset5, opset9

    ops = opset9 if variant.version == 9 else opset5
    api = f"openvino.opset{variant.version}"
    element = {"float16": ov.Type.f16, "bfloat16": ov.Type.bf16, "float32": ov.Type.f32}.get(name_of(case.boxes.dtype))
    if element is None:
        raise RuntimeRefused(f"{api}.parameter", f"no OpenVINO floating-point type for {name_of(case.boxes.dtype)}")
    boxes = built_by(f"{api}.parameter", ops.parameter, list(case.boxes.shape), element, name=BOXES)
    scores = built_by(f"{api}.parameter", ops.parameter, list(case.scores.shape), element, name=SCORES)
    parameters = [boxes, scores]
    optional: dict[str, Any] = {}
    for name, value in optional_inputs(case):
        if value is None:
            continue
        if variant.source == "constant":
            optional[name] = built_by(f"{api}.constant", ops.constant, value)
        else:
            kind = ov.Type.i64 if value.dtype == np.int64 else ov.Type.f32
            optional[name] = built_by(f"{api}.parameter", ops.parameter, [1], kind, name=name)
            parameters.append(optional[name])
    for parameter in parameters:
        parameter.output(0).get_tensor().set_names({parameter.get_friendly_name()})
    node = built_by(f"{api}.non_max_suppression", ops.non_max_suppression, boxes, scores, optional.get(CAP),
                 optional.get(IOU), optional.get(SCORE),
                 box_encoding="center" if case.center_point_box == 1 else "corner",
                 sort_result_descending=bool(variant.sort_descending), output_type="i64")
    model: ov.Model = built_by("openvino.Model", ov.Model, node.outputs(), parameters, f"nms_{case.id}")
    return model
