"""`ort-cpu`: ONNX Runtime's CPU execution provider."""

from __future__ import annotations

from conformance.backends.ort_session import OrtBackend


class OrtCpu(OrtBackend):
    name = "ort-cpu"
    provider = "CPUExecutionProvider"
    package_hint = "onnxruntime"
