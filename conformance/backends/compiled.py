"""Sessions and compiled models kept by a backend between runs (graph reuse).

Keyed by the Graph's `signature` where it has one: graphs equal up to their name share an
entry (least recently used dropped beyond `size`). A graph without one is keyed by its own
model object, and only the last such graph is kept: a repeated case's runs share it, as
before graph reuse. An entry whose run raised is never handed to another graph
(`isolate`): a runtime may leave it in a state a fresh one is not in (OpenVINO's CPU
plugin segfaults on the next infer of a request whose infer with K = 0 raised)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Generic, TypeVar

from conformance.backends.base import Graph

T = TypeVar("T")
DEFAULT_SIZE = 64


class Compiled(Generic[T]):
    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self.size = size
        # key -> (the graph model it belongs to, kept alive so an identity key stays valid; value)
        self._entries: OrderedDict[tuple[str, Any], tuple[Any, T]] = OrderedDict()

    def get(self, graph: Graph) -> T | None:
        """The entry of this very graph, else (with a signature) of an equal one."""
        own = self._entries.get(("model", id(graph.model)))
        if own is not None and own[0] is graph.model:
            return own[1]
        return self.get_signed(graph.signature) if graph.signature else None

    def put(self, graph: Graph, value: T) -> T:
        if graph.signature:
            return self.put_signed(graph.signature, value)
        return self._put_own(graph, value)

    def get_signed(self, signature: str) -> T | None:
        """By a signature (the graph's, or one of the backend's own, such as the signature of
        the model a frontend made of the graph)."""
        key = ("signature", signature)
        entry = self._entries.get(key)
        if entry is None:
            return None
        self._entries.move_to_end(key)
        return entry[1]

    def put_signed(self, signature: str, value: T) -> T:
        return self._put(("signature", signature), None, value)

    def isolate(self, graph: Graph, value: T) -> None:
        """A run on `value` raised: no other graph gets it from now on; it stays for this
        same graph (the next run of a repeated case goes on with it, as without reuse)."""
        for key in [k for k, (_, v) in self._entries.items() if v is value]:
            del self._entries[key]
        self._put_own(graph, value)

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def _put_own(self, graph: Graph, value: T) -> T:
        for key in [k for k in self._entries if k[0] == "model"]:
            del self._entries[key]  # the last graph's only
        return self._put(("model", id(graph.model)), graph.model, value)

    def _put(self, key: tuple[str, Any], model: Any, value: T) -> T:
        self._entries[key] = (model, value)
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)
        return value
