"""Small ONNX models with the selection patterns of real ones (issue 48), built here so that
the test command needs no exporter: each is a few nodes around the TopK, ArgMax or
NonMaxSuppression nodes that torchvision's detectors, YOLOv10, a mixture-of-experts router,
a segmentation head and a greedy decoder have, with the inputs on which the backends here
part (exact ties, or near-ties that the backends' own arithmetic upstream orders differently)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR_VERSION = 8  # what every ONNX Runtime here reads (Wine's DirectML build stops at 13; ONNX Runtime Web's too)
INT64_MAX = 2**63 - 1


def _saved(graph: onnx.GraphProto, path: Path) -> Path:
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=IR_VERSION,
                              producer_name="topk-conformance tests")
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, str(path))
    return path


def _value(name: str, elem_type: int, shape: list[int | str | None] | None) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem_type, shape)


def rpn(path: Path, proposals: int = 1200, keep: int = 1000) -> Path:
    """A region proposal network's tail, as torchvision exports it: K = min(1000, n) computed in
    the graph (Shape, Gather, Concat, ReduceMin), TopK of the objectness, the boxes gathered,
    then NonMaxSuppression inside an If (its then branch for no proposals), its cap the
    constant 2^63 - 1 and no score threshold, and the first 100 kept."""
    rng = np.random.default_rng(7)
    anchors = (rng.integers(0, 40, (1, proposals, 2)) * 8).astype(np.float32)
    anchors = np.concatenate([anchors, anchors + 32], axis=-1)  # x1, y1, x2, y2: 32-pixel boxes on an 8-pixel grid
    empty = helper.make_graph(
        [helper.make_node("Constant", [], ["none"], value=numpy_helper.from_array(np.zeros((0, 3), np.int64)))],
        "no_proposals", [], [_value("none", TensorProto.INT64, [0, 3])])
    nms = helper.make_graph(
        [helper.make_node("NonMaxSuppression", ["top_boxes", "nms_scores", "cap", "iou"], ["kept"],
                          name="rpn_nms")],
        "proposals", [], [_value("kept", TensorProto.INT64, ["kept_count", 3])])
    nodes = [
        helper.make_node("Sigmoid", ["objectness"], ["scores"]),
        helper.make_node("Add", ["anchors", "deltas"], ["boxes"]),
        helper.make_node("Shape", ["scores"], ["scores_shape"]),
        helper.make_node("Gather", ["scores_shape", "one"], ["count"], axis=0),
        helper.make_node("Concat", ["limit", "count"], ["candidates"], axis=0),
        helper.make_node("ReduceMin", ["candidates"], ["k"], keepdims=1),
        helper.make_node("TopK", ["scores", "k"], ["top_scores", "top_indices"], axis=1, name="rpn_topk"),
        helper.make_node("Squeeze", ["top_indices", "zero"], ["flat_indices"]),
        helper.make_node("Gather", ["boxes", "flat_indices"], ["top_boxes"], axis=1),
        helper.make_node("Unsqueeze", ["top_scores", "one"], ["nms_scores"]),
        helper.make_node("Size", ["top_scores"], ["size"]),
        helper.make_node("Equal", ["size", "zero_scalar"], ["no_proposals"]),
        helper.make_node("If", ["no_proposals"], ["selected"], then_branch=empty, else_branch=nms),
        helper.make_node("Slice", ["selected", "zero", "hundred", "zero"], ["first_selected"]),
    ]
    initializers = [numpy_helper.from_array(array, name) for name, array in {
        "anchors": anchors, "one": np.array([1], np.int64), "zero": np.array([0], np.int64),
        "limit": np.array([keep], np.int64), "hundred": np.array([100], np.int64),
        "zero_scalar": np.array(0, np.int64), "cap": np.array([INT64_MAX], np.int64),
        "iou": np.array([0.5], np.float32)}.items()]
    graph = helper.make_graph(nodes, "rpn", [_value("objectness", TensorProto.FLOAT, [1, proposals]),
                                             _value("deltas", TensorProto.FLOAT, [1, proposals, 4])],
                              [_value("first_selected", TensorProto.INT64, [None, 3])], initializers)
    return _saved(graph, path)


def yolov10(path: Path, boxes: int = 8400, classes: int = 80, keep: int = 300) -> Path:
    """YOLOv10's post-processing: TopK of each box's best class score over 8,400 boxes, their
    rows gathered (GatherElements), then TopK over the 300 x 80 scores, the flat index split
    into box and class with Div and Mod."""
    nodes = [
        helper.make_node("Sigmoid", ["logits"], ["scores"]),
        helper.make_node("ReduceMax", ["scores"], ["best"], axes=[-1], keepdims=0),
        helper.make_node("TopK", ["best", "keep"], ["best_top", "box_indices"], axis=-1, name="box_topk"),
        helper.make_node("Unsqueeze", ["box_indices", "minus_one"], ["box_column"]),
        helper.make_node("Expand", ["box_column", "row_shape"], ["rows"]),
        helper.make_node("GatherElements", ["scores", "rows"], ["kept_scores"], axis=1),
        helper.make_node("Reshape", ["kept_scores", "flat_shape"], ["flat_scores"]),
        helper.make_node("TopK", ["flat_scores", "keep"], ["final_scores", "flat_indices"], axis=-1,
                         name="class_topk"),
        helper.make_node("Div", ["flat_indices", "classes"], ["which_box"]),
        helper.make_node("Mod", ["flat_indices", "classes"], ["labels"]),
        helper.make_node("GatherElements", ["box_indices", "which_box"], ["final_boxes"], axis=1),
    ]
    initializers = [numpy_helper.from_array(array, name) for name, array in {
        "keep": np.array([keep], np.int64), "minus_one": np.array([-1], np.int64),
        "row_shape": np.array([1, keep, classes], np.int64), "flat_shape": np.array([1, keep * classes], np.int64),
        "classes": np.array(classes, np.int64)}.items()]
    graph = helper.make_graph(nodes, "yolov10", [_value("logits", TensorProto.FLOAT, [1, boxes, classes])],
                              [_value("final_scores", TensorProto.FLOAT, [1, keep]),
                               _value("final_boxes", TensorProto.INT64, [1, keep]),
                               _value("labels", TensorProto.INT64, [1, keep])], initializers)
    return _saved(graph, path)


def _near_tie_weights(rows: int, columns: int, seed: int) -> np.ndarray:
    """Weights whose columns come in pairs holding the same values in another order: each pair's
    outputs are equal in exact arithmetic, and a runtime's summation order decides which of the
    two rounds higher (the near-ties of real logits)."""
    rng = np.random.default_rng(seed)
    weights = rng.standard_normal((rows, columns)).astype(np.float32)
    for column in range(1, columns, 2):
        weights[:, column] = weights[rng.permutation(rows), column - 1]
    return weights


def moe_router(path: Path, tokens: int = 64, hidden: int = 256, experts: int = 128, chosen: int = 8) -> Path:
    """A mixture-of-experts router: the tokens' logits over 128 experts (MatMul), softmax, and
    TopK of 8, whose choice decides which experts run. Its experts come in identical pairs (a
    model upcycled from a dense one starts so): their logits tie exactly."""
    nodes = [
        helper.make_node("MatMul", ["hidden", "gate"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["weights"], axis=-1),
        helper.make_node("TopK", ["weights", "chosen"], ["expert_weights", "experts"], axis=-1, name="router_topk"),
    ]
    gate = np.random.default_rng(11).standard_normal((hidden, experts // 2)).astype(np.float32)
    initializers = [numpy_helper.from_array(np.repeat(gate, 2, axis=1), "gate"),
                    numpy_helper.from_array(np.array([chosen], np.int64), "chosen")]
    graph = helper.make_graph(nodes, "moe_router", [_value("hidden", TensorProto.FLOAT, [tokens, hidden])],
                              [_value("expert_weights", TensorProto.FLOAT, [tokens, chosen]),
                               _value("experts", TensorProto.INT64, [tokens, chosen])], initializers)
    return _saved(graph, path)


def segmentation(path: Path, classes: int = 21, side: int = 32, features: int = 64) -> Path:
    """A segmentation head in half precision: a 1x1 convolution to 21 classes, then ArgMax over
    the classes (float16 logits tie often, and runtimes accumulate them differently)."""
    weights = _near_tie_weights(features, classes + 1, 13)[:, :classes].T.reshape(classes, features, 1, 1)
    nodes = [
        helper.make_node("Conv", ["features", "head"], ["logits"]),
        helper.make_node("ArgMax", ["logits"], ["labels"], axis=1, keepdims=0, name="segment_argmax"),
    ]
    graph = helper.make_graph(nodes, "segmentation",
                              [_value("features", TensorProto.FLOAT16, [1, features, side, side])],
                              [_value("labels", TensorProto.INT64, [1, side, side])],
                              [numpy_helper.from_array(np.ascontiguousarray(weights.astype(np.float16)), "head")])
    return _saved(graph, path)


def greedy_step(path: Path, hidden: int = 512, vocabulary: int = 8000) -> Path:
    """One greedy decoding step in half precision: the last hidden state times the output
    embedding, ArgMax over the vocabulary."""
    nodes = [
        helper.make_node("MatMul", ["state", "embedding"], ["logits"]),
        helper.make_node("ArgMax", ["logits"], ["token"], axis=-1, keepdims=0, name="next_token"),
    ]
    graph = helper.make_graph(nodes, "greedy_step", [_value("state", TensorProto.FLOAT16, [8, hidden])],
                              [_value("token", TensorProto.INT64, [8])],
                              [numpy_helper.from_array(_near_tie_weights(hidden, vocabulary, 17).astype(np.float16),
                                                       "embedding")])
    return _saved(graph, path)


def beam_loop(path: Path, width: int = 1200, beams: int = 50, steps: int = 3) -> Path:
    """A decoder's top-k filter as a scripted export writes it: a Loop of `steps` iterations
    whose body takes the TopK (K 50) of the carried scores over 1,200 tokens (its indices
    stacked per step as a scan output) and scales the scores for the next step; the TopK runs
    once per iteration."""
    body = helper.make_graph(
        [helper.make_node("TopK", ["scores_in", "beams"], ["beam_scores", "beam_tokens"], axis=-1, name="beam_topk"),
         helper.make_node("Mul", ["scores_in", "decay"], ["scores_out"]),
         helper.make_node("Identity", ["go_in"], ["go_out"]),
         helper.make_node("Identity", ["beam_tokens"], ["tokens_each"])],
        "step",
        [_value("step", TensorProto.INT64, []), _value("go_in", TensorProto.BOOL, []),
         _value("scores_in", TensorProto.FLOAT, [1, width])],
        [_value("go_out", TensorProto.BOOL, []), _value("scores_out", TensorProto.FLOAT, [1, width]),
         _value("tokens_each", TensorProto.INT64, [1, beams])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["steps", "go", "scores"], ["final_scores", "tokens"], body=body, name="decode")],
        "beam_loop", [_value("scores", TensorProto.FLOAT, [1, width])],
        [_value("final_scores", TensorProto.FLOAT, [1, width]), _value("tokens", TensorProto.INT64, [steps, 1, beams])],
        [numpy_helper.from_array(np.array(steps, np.int64), "steps"), numpy_helper.from_array(np.array(True), "go"),
         numpy_helper.from_array(np.array([beams], np.int64), "beams"),
         numpy_helper.from_array(np.array(0.5, np.float32), "decay")])
    return _saved(graph, path)


PATTERNS = {"rpn": rpn, "yolov10": yolov10, "moe_router": moe_router, "segmentation": segmentation,
            "greedy_step": greedy_step, "beam_loop": beam_loop}
