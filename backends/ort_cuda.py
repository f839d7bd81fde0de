"""`ort-cuda`: ONNX Runtime's CUDA execution provider (wheel onnxruntime-gpu)."""

from __future__ import annotations

from backends.ort_session import OrtBackend


class OrtCuda(OrtBackend):
    name = "ort-cuda"
    provider = "CUDAExecutionProvider"
    package_hint = "onnxruntime-gpu"
