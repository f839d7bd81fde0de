"""`ort-openvino`: ONNX Runtime's OpenVINO execution provider (wheel onnxruntime-openvino)."""

from __future__ import annotations

from conformance.backends.ort_session import OrtBackend


class OrtOpenVINO(OrtBackend):
    name = "ort-openvino"
    provider = "OpenVINOExecutionProvider"
    package_hint = "onnxruntime-openvino"

    def provider_options(self) -> dict[str, str]:
        # Full precision on the CPU device: no silent down-conversion.
        return {"device_type": "CPU", "precision": "FP32"}
