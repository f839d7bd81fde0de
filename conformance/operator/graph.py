"""A built graph, as every backend receives it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from conformance.graphs.errors import CheckerRejected
from conformance.operator.interfaces import Case, Variant


@dataclass(frozen=True)
class Graph:
    """A built graph and the inputs to feed it; `model` is an onnx.ModelProto for ONNX
    graphs, an openvino.Model for native ones and a DirectML operator description for
    DirectML's own operators."""

    variant: Variant
    model: Any
    feeds: dict[str, np.ndarray[Any, Any]]
    # OpenVINO element type of a feed numpy cannot carry (a sub-byte K): the array holds
    # the number, and the OpenVINO backends pack it into that type.
    feed_types: dict[str, str] = field(default_factory=dict)
    # onnx.checker's word on an ONNX graph: "" (accepted, or not an ONNX graph), or
    # "rejected: ..." for the graph of a case that expects an error, built unchecked.
    checker: str = ""
    # Graph reuse: equal signatures, the same graph up to its name (`topk_<case id>`), so a
    # backend may run this graph on the session or compiled model it opened for another
    # graph with the same signature. "" (reuse off, or a graph nobody vouches for): only the
    # same Graph object may share one (a repeated case's runs). Optional for backends.
    signature: str = ""
    # The names of the graph's outputs as the operator names them, in the graph's own
    # output order (TopK: values, indices): a backend returns its outputs by these names.
    outputs: tuple[str, ...] = ("values", "indices")
    # Seconds one run of this graph is given where that is not the run's per-graph limit (a
    # user's model: the model command's --timeout); 0 for a case's graphs. A backend whose
    # host keeps its own per-request limit under the worker's (a web host's, the Wine
    # bridge's) stretches that limit to fit this one.
    time_limit: float = 0.0


def checked_onnx_graph(variant: Variant, make: Callable[[bool], Any], feeds: dict[str, np.ndarray[Any, Any]],
                       outputs: tuple[str, ...], expect_error: bool) -> Graph:
    """An ONNX graph `make(check)` builds, onnx.checker run on it. Where the checker rejects the
    model of a case that wants the runtime's own refusal, the runtime gets the graph regardless,
    and the checker's word is kept beside the runtime's verdict."""
    try:
        return Graph(variant, make(True), feeds, outputs=outputs)
    except CheckerRejected as rejected:
        if not expect_error:
            raise
        return dataclasses.replace(Graph(variant, make(False), feeds, outputs=outputs),
                                   checker=f"rejected: {rejected.reason}")


def graph_matches(entry: str, graph: str) -> bool:
    """A `graphs` entry selects a graph by its whole name or by a prefix ending at a dash:
    `openvino-topk11` selects `openvino-topk11-stable` and `-unstable`, `onnx` every ONNX
    graph, and `onnx-opset1` only `onnx-opset1` (not `onnx-opset10` or `onnx-opset11`)."""
    return graph == entry or graph.startswith(f"{entry}-")


def unknown_graph_entries(entries: Iterable[str], names: Iterable[str]) -> list[str]:
    """The entries of a case's `graphs` that select none of the graph names (a case error)."""
    known = tuple(names)
    return [entry for entry in entries if not any(graph_matches(entry, name) for name in known)]


def outside_graphs(case: Case, variant: Variant) -> str | None:
    """Why a case limited to some graphs skips this variant, or None."""
    if not case.graphs or any(graph_matches(entry, variant.graph) for entry in case.graphs):
        return None
    return f"the case is limited to graphs {', '.join(case.graphs)}"
