"""`ort-dml`: ONNX Runtime's DirectML execution provider (wheel onnxruntime-directml,
Windows only; under Wine on Linux it is `ort-dml-wine`).

- Adapter: the provider's default (DXCore's high-performance hardware adapter) unless
  `TOPK_DML_DEVICE_ID` names one, passed as the provider option `device_id` (an index in
  DXGI's adapter enumeration order, `IDXGIFactory::EnumAdapters1`).
- ONNX Runtime's DirectML provider takes hardware adapters only: with `device_id` it refuses
  a software adapter (WARP, the "Microsoft Basic Render Driver"), and without it it lists
  hardware adapters only; the Python API has no option to lift that check. A machine without
  a GPU (a hosted Windows CI runner) therefore cannot run ort-dml: availability opens a
  probe session and says so, with ONNX Runtime's message, instead of every result becoming
  an `error`.
- TopK opsets: the provider registers TopK for opsets 7, 10 and 11 only (its operator
  registration table; measured under Wine with onnxruntime-directml 1.24.4: every TopK-24
  graph is declined), so opset-24 graphs are a `skip` saying so, not an `error`.
- Placement is proven as for every provider (ONNX Runtime's assignment record, CPU fall-back
  disabled); a declined node is not offered again behind an Identity (the DirectML provider
  takes one-node graphs)."""

from __future__ import annotations

import sys
from typing import Any

from conformance.backends.base import EVERY_OPERATOR, Availability
from conformance.backends.ort_probe import DeviceIndexedProvider
from conformance.backends.ort_session import ort_module
from conformance.backends.record import BackendRecord
from conformance.operator.interfaces import Case, Variant

DEVICE_ENV = "TOPK_DML_DEVICE_ID"
NO_SOFTWARE_ADAPTER = (
    "ONNX Runtime's DirectML provider runs on hardware adapters only (it refuses WARP, the "
    "Microsoft Basic Render Driver); on a machine with several adapters, "
    f"{DEVICE_ENV}=N picks the N-th in DXGI's order"
)


class OrtDml(DeviceIndexedProvider):
    provider = "DmlExecutionProvider"
    package_hint = "onnxruntime-directml (Windows only)"
    device_env = DEVICE_ENV
    device_counts = "an adapter index"
    probe_hint = NO_SOFTWARE_ADAPTER  # why the probe fails on a machine without a GPU
    # The DirectML provider takes one-node graphs: a declined node is a placement error at once.
    retry_behind_identity = False
    # The newest TopK opset the provider registers (7, 10 and 11 in its registration table).
    max_topk_opset = 11

    def availability(self) -> Availability:
        if sys.platform != "win32":
            return Availability(
                False, f"DirectML runs natively on Windows only (this is {sys.platform}); "
                "on Linux see ort-dml-wine",
            )
        return super().availability()

    def describe(self) -> dict[str, str]:
        device_id, _ = self.device_setting()
        adapter = f"device_id {device_id} ({DEVICE_ENV})" if device_id is not None else "the provider's default"
        return {**super().describe(), "adapter": adapter}

    def session_options(self, cpu_fallback: bool = False) -> Any:
        # The provider's documented requirements: no memory pattern, sequential execution.
        options = super().session_options(cpu_fallback)
        options.enable_mem_pattern = False
        options.execution_mode = ort_module().ExecutionMode.ORT_SEQUENTIAL
        return options

    def cannot_run(self, case: Case, variant: Variant) -> str | None:
        # Its registration table is about TopK; other operators' opsets are the provider's to judge.
        if variant.op == "topk" and variant.kind == "onnx" and variant.version > self.max_topk_opset:
            return (f"ONNX Runtime's DirectML provider registers TopK up to opset {self.max_topk_opset} "
                    f"(7, 10, 11): a TopK-{variant.version} graph would be declined")
        return None


RECORD = BackendRecord(
    name="ort-dml", runtime="ONNX Runtime (DirectML execution provider)", packages=("onnxruntime-directml",),
    kernels="Windows GPU, DirectML's Direct3D 12 shaders", kinds=("onnx",), operators=EVERY_OPERATOR,
    isolation="worker", extra=None, setup=None, family="shaders", adapter=OrtDml,
    no_kernel=("nms",),  # DirectML has no NonMaxSuppression: ONNX Runtime hands it to its CPU provider
)
