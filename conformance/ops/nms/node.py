"""A NonMaxSuppression node of a user's model as a case (the `model` command): the cap and
the thresholds as the node was given them, left out where it was given none."""

from __future__ import annotations

from typing import Any

from conformance.operator.node import NodeCall, scalar_float, scalar_int, tensor_field


def from_node(node: NodeCall) -> dict[str, Any]:
    fields: dict[str, Any] = {"boxes": tensor_field(node.required(0, "boxes"), "boxes"),
                              "scores": tensor_field(node.required(1, "scores"), "scores")}
    cap, iou, score = node.input(2), node.input(3), node.input(4)
    if cap is not None:
        fields["max_output_boxes_per_class"] = scalar_int(cap, "max_output_boxes_per_class")
    if iou is not None:
        fields["iou_threshold"] = scalar_float(iou, "iou_threshold")
    if score is not None:
        fields["score_threshold"] = scalar_float(score, "score_threshold")
    if node.attributes.get("center_point_box", 0):
        fields["center_point_box"] = int(node.attributes["center_point_box"])
    return fields
