"""`ort-openvino`: ONNX Runtime's OpenVINO execution provider (wheel onnxruntime-openvino)."""

from __future__ import annotations

from conformance.backends.base import EVERY_OPERATOR
from conformance.backends.ort_session import OrtBackend
from conformance.backends.record import BackendRecord


class OrtOpenVINO(OrtBackend):
    provider = "OpenVINOExecutionProvider"
    package_hint = "onnxruntime-openvino"

    def provider_options(self) -> dict[str, str]:
        # Full precision on the CPU device: no silent down-conversion.
        return {"device_type": "CPU", "precision": "FP32"}


RECORD = BackendRecord(
    name="ort-openvino", runtime="ONNX Runtime (OpenVINO execution provider)", packages=("onnxruntime-openvino",),
    kernels="CPU, OpenVINO's CPU plugin behind ONNX Runtime", kinds=("onnx",), operators=EVERY_OPERATOR,
    isolation="worker", extra=None, setup=None, adapter=OrtOpenVINO,
)
