"""`openvino-cpu` (and `-gpu`, `-npu` where OpenVINO reports them): OpenVINO itself, on
native TopK graphs and on ONNX graphs read by its ONNX frontend."""

from __future__ import annotations

from functools import cache
from typing import Any

import ml_dtypes
import numpy as np

from backends.base import Availability, Backend, Execution, Graph


@cache
def _core() -> Any:
    import openvino as ov

    return ov.Core()


class OpenVINO(Backend):
    kinds = ("openvino", "onnx")

    def __init__(self, device: str) -> None:
        self.device = device  # OpenVINO's device name: CPU, GPU, NPU
        self.name = f"openvino-{device.lower()}"

    def availability(self) -> Availability:
        try:
            devices = _core().available_devices
        except Exception as exc:  # an import or plugin failure is a reason, not a crash
            return Availability(False, f"OpenVINO cannot start: {exc}")
        if not any(d.split(".")[0] == self.device for d in devices):
            return Availability(False, f"OpenVINO reports no {self.device} device (has {', '.join(devices)})")
        return Availability(True)

    def describe(self) -> dict[str, str]:
        import openvino as ov

        full_name = _core().get_property(self.device, "FULL_DEVICE_NAME")
        return {"device": f"OpenVINO {self.device}: {full_name}", "openvino": ov.__version__}

    def run(self, graph: Graph) -> Execution:
        import openvino as ov

        core = _core()
        # ONNX graphs go through OpenVINO's ONNX frontend, from the serialized model in memory.
        onnx_graph = graph.variant.kind == "onnx"
        model = core.read_model(graph.model.SerializeToString()) if onnx_graph else graph.model
        # f32 inference precision: no silent bf16/f16 down-conversion on capable CPUs.
        compiled = core.compile_model(model, self.device, {"INFERENCE_PRECISION_HINT": "f32"})
        request = compiled.create_infer_request()
        request.infer({name: _tensor(value) for name, value in graph.feeds.items()})
        values_tensor = request.get_output_tensor(0)
        if values_tensor.get_element_type().get_type_name() == "bf16":
            # `.data` shows a bf16 tensor as float16 numbers: copy its bits out instead.
            shape = tuple(values_tensor.get_shape())
            bits = np.empty(shape, dtype=np.uint16)
            values_tensor.copy_to(ov.Tensor(bits, list(shape), ov.Type.bf16))
            values = bits.view(ml_dtypes.bfloat16)
        else:
            values = values_tensor.data.copy()
        indices = request.get_output_tensor(1).data.copy()
        return Execution(values, indices, placement=f"OpenVINO {self.device}")


def _tensor(array: np.ndarray[Any, Any]) -> Any:
    """A feed for OpenVINO. A bfloat16 array goes in as its bits: given the array itself,
    OpenVINO converts the numbers to float16 and stores those bits as bf16."""
    import openvino as ov

    if array.dtype == ml_dtypes.bfloat16:
        bits = np.ascontiguousarray(array).view(np.uint16)
        return ov.Tensor(bits, list(array.shape), ov.Type.bf16)
    return array
