"""`ort-cuda`: ONNX Runtime's CUDA execution provider (wheel onnxruntime-gpu; `tox -e ort-gpu`
writes reports/ort-gpu/results.json, which merges with every other results file).

- Device: CUDA device 0 unless `TOPK_CUDA_DEVICE_ID` names another, passed as the provider
  option `device_id`.
- onnxruntime-gpu lists CUDAExecutionProvider whether or not a GPU and the CUDA and cuDNN
  libraries it needs are here; availability opens a probe session (CPU fall-back disabled)
  and reports ONNX Runtime's own message when the provider cannot take it.
- Placement is proven as for every provider (ONNX Runtime's assignment record)."""

from __future__ import annotations

from conformance.backends.base import EVERY_OPERATOR
from conformance.backends.ort_probe import DeviceIndexedProvider
from conformance.backends.record import BackendRecord


class OrtCuda(DeviceIndexedProvider):
    provider = "CUDAExecutionProvider"
    package_hint = "onnxruntime-gpu"
    device_env = "TOPK_CUDA_DEVICE_ID"
    device_counts = "a CUDA device index"

    def isa(self) -> str:
        return ""  # the GPU's kernels: the CPU's instruction sets do not choose them

    def describe(self) -> dict[str, str]:
        device_id, _ = self.device_setting()
        return {**super().describe(), "cuda_device": device_id if device_id is not None else "0 (default)"}


RECORD = BackendRecord(
    name="ort-cuda", runtime="ONNX Runtime (CUDA execution provider)", packages=("onnxruntime-gpu",),
    kernels="NVIDIA GPU, CUDA kernels", kinds=("onnx",), operators=EVERY_OPERATOR,
    isolation="worker", extra=None, setup=None, adapter=OrtCuda,
)
