"""`numpy-topk`: ONNX TopK graphs computed by numpy, an example of a third-party backend.

The suite builds every graph (each ONNX TopK opset, K as an attribute, a constant or an
input) and judges every output; a backend only runs what it is handed. Replace `_topk` with
a call into your runtime and keep the rest."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper

from conformance.backends.base import Availability, Backend, Execution, Graph


class NumpyTopK(Backend):
    # The backend interface this class was written for (conformance/backends/base.py, INTERFACE_VERSION).
    # The suite refuses a plugin that declares another version, or none, by name.
    interface_version = 2
    name = "numpy-topk"  # as given to --backend and written in results
    kinds = ("onnx",)  # the graph dialects it runs: "onnx", "openvino" (native), "directml"

    def availability(self) -> Availability:
        # Cheap and never raises: say why not when the runtime is missing.
        return Availability(True)

    def describe(self) -> dict[str, str]:
        # Goes into results.json (`backends`) and the report: device and versions.
        return {"device": "numpy (CPU)", "numpy": np.__version__}

    def run(self, graph: Graph) -> Execution:
        # Raise on anything the runtime refuses: the suite judges the exception (an `error`,
        # or a `pass` where the case expects an error, e.g. K larger than the axis).
        model: onnx.ModelProto = graph.model
        node = next(n for n in model.graph.node if n.op_type == "TopK")
        attributes = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        x = graph.feeds[node.input[0]]
        if len(node.input) > 1:  # opset 10 and later: K is an initializer or a graph input
            initializers = {i.name: i for i in model.graph.initializer}
            source = node.input[1]
            k_tensor = graph.feeds[source] if source in graph.feeds else numpy_helper.to_array(initializers[source])
            k = int(np.asarray(k_tensor).reshape(-1)[0])
        else:  # opset 1: K is the attribute k
            k = int(attributes["k"])
        values, indices = _topk(x, k, int(attributes.get("axis", -1)), bool(attributes.get("largest", 1)))
        # `placement` says what ran the node; an execution-provider backend proves it instead.
        return Execution(values, indices, placement="numpy")


def _topk(x: np.ndarray[Any, Any], k: int, axis: int, largest: bool) -> tuple[np.ndarray[Any, Any], ...]:
    """The K largest (or smallest) along `axis`, sorted by value, ties by ascending index
    (ONNX's tie rule); NaN above every number, as numpy sorts it."""
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis {axis} is outside [-{x.ndim}, {x.ndim - 1}]")
    n = x.shape[axis]
    if not 0 <= k <= n:
        raise ValueError(f"K = {k} is outside [0, {n}]")
    moved = np.moveaxis(x, axis, -1)
    if largest:
        # Stable ascending sort of the reversed rows, read backwards: descending by value, and
        # equal values in ascending index order.
        order = n - 1 - np.argsort(moved[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    else:
        order = np.argsort(moved, axis=-1, kind="stable")
    chosen = order[..., :k]
    values = np.take_along_axis(moved, chosen, axis=-1)  # copies bits: -0.0 and NaN payloads kept
    return np.moveaxis(values, -1, axis), np.moveaxis(chosen.astype(np.int64), -1, axis)


def backends() -> list[Backend]:
    """The entry point: every backend this package adds."""
    return [NumpyTopK()]
