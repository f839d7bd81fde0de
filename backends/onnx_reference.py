"""`onnx-reference`: the ONNX reference evaluator (onnx.reference), pure numpy."""

from __future__ import annotations

import numpy as np
import onnx
from onnx.reference import ReferenceEvaluator

from backends.base import Availability, Backend, Execution, Graph


class OnnxReference(Backend):
    name = "onnx-reference"
    kinds = ("onnx",)

    def availability(self) -> Availability:
        return Availability(True)

    def describe(self) -> dict[str, str]:
        return {"device": "onnx.reference (numpy)", "onnx": onnx.__version__}

    def run(self, graph: Graph) -> Execution:
        values, indices = ReferenceEvaluator(graph.model).run(None, graph.feeds)
        return Execution(np.asarray(values), np.asarray(indices), placement="onnx.reference")
