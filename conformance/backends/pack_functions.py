"""A pack as the functions of one compiled module (the compilers' backends: IREE, TVM): one
function per distinct graph, graphs the same up to their name (equal Graph.signature) sharing
one, so that a pack compiles each distinct graph once."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from conformance.backends.base import Graph


def fed_inputs(graph: Graph) -> list[str]:
    """A function's arguments, in order: the graph's inputs that no initializer gives."""
    initialized = {tensor.name for tensor in graph.model.graph.initializer}
    return [value.name for value in graph.model.graph.input if value.name not in initialized]


@dataclass(frozen=True)
class Functions:
    distinct: tuple[Graph, ...]  # the graphs that become functions, function i from distinct[i]
    function_of: tuple[int, ...]  # per graph of the pack, in order: its function

    def graphs_of(self, functions: Collection[int]) -> list[int]:
        """The positions in the pack of the graphs the functions run."""
        return [at for at, function in enumerate(self.function_of) if function in functions]


def functions_of(graphs: Sequence[Graph]) -> Functions:
    distinct: list[Graph] = []
    first: dict[str, int] = {}
    function_of = []
    for at, graph in enumerate(graphs):
        key = graph.signature or f"graph {at}"  # no signature: a function of its own
        if key not in first:
            first[key] = len(distinct)
            distinct.append(graph)
        function_of.append(first[key])
    return Functions(tuple(distinct), tuple(function_of))
