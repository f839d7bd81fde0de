"""A Hardmax node of a user's model as a case (the `model` command)."""

from __future__ import annotations

from typing import Any

from conformance.operator.node import NodeCall, tensor_field


def from_node(node: NodeCall) -> dict[str, Any]:
    fields: dict[str, Any] = {"input": tensor_field(node.required(0, "input"), "input")}
    if "axis" in node.attributes:  # else its opset's default, as the case's graph gives it
        fields["axis"] = int(node.attributes["axis"])
    return fields
