"""An ONNX model around one operator's graph, as every operator's builder makes it."""

from __future__ import annotations

import onnx
from onnx import helper

from conformance.graphs.errors import CheckerRejected


def onnx_model(graph: onnx.GraphProto, opset: int, check: bool = True) -> onnx.ModelProto:
    """The model of `graph` at `opset`, with the IR version the opset needs (not the newest onnx
    knows: older runtimes refuse newer IR), checked by onnx.checker with full shape inference
    unless `check` is off (for a case that expects an error: the runtime must still see it).
    Raises CheckerRejected where the checker rejects it."""
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="topk-conformance")
    model.ir_version = helper.find_min_ir_version_for(list(model.opset_import))
    if check:
        try:
            onnx.checker.check_model(model, full_check=True)
        except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as exc:
            raise CheckerRejected(" ".join(str(exc).split())) from exc
    return model
