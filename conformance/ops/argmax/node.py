"""An ArgMax or ArgMin node of a user's model as a case (the `model` command)."""

from __future__ import annotations

from typing import Any

from conformance.operator.node import NodeCall, tensor_field


def from_node(node: NodeCall) -> dict[str, Any]:
    fields: dict[str, Any] = {"input": tensor_field(node.required(0, "data"), "data"),
                              "axis": int(node.attributes.get("axis", 0)),
                              "keepdims": bool(node.attributes.get("keepdims", 1))}
    if node.opset >= 12:
        fields["select_last_index"] = bool(node.attributes.get("select_last_index", 0))
    return fields
