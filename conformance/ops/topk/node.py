"""A TopK node of a user's model as a TopK case (the `model` command)."""

from __future__ import annotations

from typing import Any

from conformance.operator.node import NodeCall, scalar_int, tensor_field


def from_node(node: NodeCall) -> dict[str, Any]:
    x = node.required(0, "X")
    # K: an attribute before opset 10, a one-element input from it.
    k = int(node.attributes["k"]) if node.opset < 10 else scalar_int(node.required(1, "K"), "K")
    fields: dict[str, Any] = {"input": tensor_field(x, "X"), "k": k, "axis": int(node.attributes.get("axis", -1))}
    if node.opset >= 11:
        fields["largest"] = bool(node.attributes.get("largest", 1))
        if not node.attributes.get("sorted", 1):
            fields["sort"] = "none"
    return fields
