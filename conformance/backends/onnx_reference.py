"""`onnx-reference`: the ONNX reference evaluator (onnx.reference), pure numpy."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx.reference import ReferenceEvaluator

from conformance.backends.base import EVERY_OPERATOR, Availability, Backend, Execution, Graph
from conformance.backends.compiled import Compiled
from conformance.backends.record import BackendRecord


class OnnxReference(Backend):
    # Evaluators kept between runs (conformance/backends/compiled.py): per graph signature with graph
    # reuse, else the last graph's only.
    _evaluators: Compiled[ReferenceEvaluator] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_evaluators": None}

    def availability(self) -> Availability:
        return Availability(True)

    def describe(self) -> dict[str, str]:
        return {"device": "onnx.reference (numpy)", "onnx": onnx.__version__}

    def close(self) -> None:
        self._evaluators = None

    def run(self, graph: Graph) -> Execution:
        if self._evaluators is None:
            self._evaluators = Compiled()
        evaluator = self._evaluators.get(graph)
        if evaluator is None:
            with self.compiling():
                evaluator = self._evaluators.put(graph, ReferenceEvaluator(graph.model))
        try:
            with self.executing():
                arrays = evaluator.run(None, graph.feeds)
        except Exception:
            self._evaluators.isolate(graph, evaluator)
            raise
        return Execution.named(graph.outputs, [np.asarray(array) for array in arrays], placement="onnx.reference")


RECORD = BackendRecord(
    name="onnx-reference", runtime="the ONNX reference evaluator (onnx.reference)", packages=("onnx",),
    kernels="the specification in Python and numpy (no device kernels)", kinds=("onnx",), operators=EVERY_OPERATOR,
    isolation="worker", extra=None, setup=None, family="reference", adapter=OnnxReference,
)
