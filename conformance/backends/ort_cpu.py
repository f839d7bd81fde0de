"""`ort-cpu`: ONNX Runtime's CPU execution provider."""

from __future__ import annotations

from conformance.backends.base import EVERY_OPERATOR
from conformance.backends.ort_session import OrtBackend
from conformance.backends.record import BackendRecord


class OrtCpu(OrtBackend):
    provider = "CPUExecutionProvider"
    package_hint = "onnxruntime"


RECORD = BackendRecord(
    name="ort-cpu", runtime="ONNX Runtime (CPU execution provider)", packages=("onnxruntime",),
    kernels="CPU, hand-written kernels (MLAS)", kinds=("onnx",), operators=EVERY_OPERATOR,
    isolation="worker", extra="ort", setup=None, adapter=OrtCpu,
)
