"""The one small interface every backend adapter implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np

from conformance.case import Case
from conformance.graphs.variants import GraphKind, Variant


@dataclass(frozen=True)
class Availability:
    available: bool
    reason: str = ""  # why not, when not


@dataclass(frozen=True)
class Graph:
    """A built graph and the inputs to feed it; `model` is an onnx.ModelProto for ONNX
    graphs and an openvino.Model for native ones."""

    variant: Variant
    model: Any
    feeds: dict[str, np.ndarray[Any, Any]]


@dataclass(frozen=True)
class Execution:
    values: np.ndarray[Any, Any]
    indices: np.ndarray[Any, Any]
    placement: str  # what ran the TopK node, as the runtime reports it
    wrapping: str = ""  # how the node was handed to the provider, if not as built


class PlacementError(RuntimeError):
    """The run cannot prove that the TopK node ran where the backend says it runs."""


class BackendCrash(RuntimeError):
    """A process the backend drives (not the worker itself) died or hung during the run:
    judged `crash`, like a dead worker."""


class Backend(ABC):
    name: str
    kinds: tuple[GraphKind, ...]  # the graph dialects it runs

    @abstractmethod
    def availability(self) -> Availability:
        """Whether it can run here, and if not, why not. Cheap, and never raises."""

    @abstractmethod
    def describe(self) -> dict[str, str]:
        """Device/provider and versions, for results and reports."""

    @abstractmethod
    def run(self, graph: Graph) -> Execution:
        """Run one graph; raise on any runtime error (the judge makes it a verdict)."""

    def runs(self, variant: Variant) -> bool:
        return variant.kind in self.kinds

    def warm_up(self) -> None:
        """Start what the runs need (a worker calls this before its first request, so the
        first result's time is its own). Never raises; the runs report any failure."""
        return None

    def close(self) -> None:
        """Stop what warm_up or the runs started (the worker calls this as it ends)."""
        return None

    def cannot_run(self, case: Case, variant: Variant) -> str | None:
        """Why this device cannot take a case that the dialect expresses (a skip, for
        example a data type the device reports unsupported), or None."""
        return None
