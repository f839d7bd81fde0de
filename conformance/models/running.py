"""A model run on each backend: the captured copy (its selection nodes' tensors as outputs)
and the untouched model, each once, each in the backend's worker."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import onnx

from conformance.backends.base import Graph
from conformance.running.workers import ModelAnswer, ModelRequest

RunModel = Callable[[ModelRequest], ModelAnswer]
DEFAULT_TIMEOUT = 300.0  # a model's run, compilation included (a detector on a compiler takes minutes)


@dataclass(frozen=True)
class ModelVariant:
    """What a backend's run() reads of a graph's variant, for a user's model: an ONNX graph."""

    op: ClassVar[str] = "model"
    kind: ClassVar[str] = "onnx"
    version: int  # the model's opset
    graph: ClassVar[str] = "model"
    k_label: ClassVar[str] = ""
    x_shape: ClassVar[str] = "static"
    label: ClassVar[str] = "model"

    def runs_on(self, case: Any) -> bool:
        return True

    def cannot_express(self, case: Any) -> str | None:
        return None

    def profile(self, case: Any) -> Any:
        return None


@dataclass(frozen=True)
class BackendRun:
    captured: ModelAnswer  # the copy whose outputs hold the selection nodes' tensors
    untouched: ModelAnswer  # the user's model as it is


def model_graph(model: onnx.ModelProto, opset: int, feeds: Mapping[str, np.ndarray[Any, Any]],
                outputs: tuple[str, ...], time_limit: float = DEFAULT_TIMEOUT) -> Graph:
    return Graph(ModelVariant(opset), model, dict(feeds), outputs=outputs, time_limit=time_limit)


def run_on(run: RunModel, captured: Graph, untouched: Graph, stopping: Callable[[], bool]) -> BackendRun:
    """Both graphs on one backend's worker; the untouched model is run even where the copy
    failed, so that a backend that cannot run the copy is told apart from one that cannot
    run the model. Where the copy got no answer in time, the untouched model is not tried: it
    would most likely cost the whole time limit again; nor where the command is `stopping`."""
    copy = run(ModelRequest(captured))
    if stopping():
        return BackendRun(copy, ModelAnswer(None, "skip", "not run: the command was stopped"))
    if copy.timed_out:
        return BackendRun(copy, ModelAnswer(None, "skip", f"not run: the copy got {copy.message.split(';')[0]}"))
    return BackendRun(copy, run(ModelRequest(untouched)))
