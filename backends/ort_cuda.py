"""`ort-cuda`: ONNX Runtime's CUDA execution provider (wheel onnxruntime-gpu; `tox -e ort-gpu`
writes reports/ort-gpu/results.json, which merges with every other results file).

- Device: CUDA device 0 unless `TOPK_CUDA_DEVICE_ID` names another, passed as the provider
  option `device_id`.
- onnxruntime-gpu lists CUDAExecutionProvider whether or not a GPU and the CUDA and cuDNN
  libraries it needs are here; availability opens a probe session (CPU fall-back disabled)
  and reports ONNX Runtime's own message when the provider cannot take it.
- Placement is proven as for every provider (ONNX Runtime's assignment record)."""

from __future__ import annotations

from backends.base import Availability
from backends.ort_probe import device_id_from_env, provider_session_works
from backends.ort_session import OrtBackend

DEVICE_ENV = "TOPK_CUDA_DEVICE_ID"


def device_id_setting() -> tuple[str | None, str]:
    """(the `device_id` provider option from {DEVICE_ENV}, or None; an error, or "")."""
    return device_id_from_env(DEVICE_ENV, "a CUDA device index")


class OrtCuda(OrtBackend):
    name = "ort-cuda"
    provider = "CUDAExecutionProvider"
    package_hint = "onnxruntime-gpu"

    def availability(self) -> Availability:
        status = super().availability()
        if not status.available:
            return status
        _, error = device_id_setting()
        if error:
            return Availability(False, error)
        return provider_session_works(self)

    def provider_options(self) -> dict[str, str]:
        device_id, _ = device_id_setting()
        return {"device_id": device_id} if device_id is not None else {}

    def describe(self) -> dict[str, str]:
        device_id, _ = device_id_setting()
        return {**super().describe(), "cuda_device": device_id if device_id is not None else "0 (default)"}
