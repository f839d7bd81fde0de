"""`ort-dml`: ONNX Runtime's DirectML execution provider (wheel onnxruntime-directml,
Windows only; under Wine on Linux it will be `ort-dml-wine`)."""

from __future__ import annotations

import sys
from typing import Any

from backends.base import Availability
from backends.ort_session import OrtBackend, ort_module


class OrtDml(OrtBackend):
    name = "ort-dml"
    provider = "DmlExecutionProvider"
    package_hint = "onnxruntime-directml (Windows only)"

    def availability(self) -> Availability:
        if sys.platform != "win32":
            return Availability(
                False, f"DirectML runs natively on Windows only (this is {sys.platform}); "
                "on Linux see ort-dml-wine",
            )
        return super().availability()

    def session_options(self) -> Any:
        # The provider's documented requirements: no memory pattern, sequential execution.
        options = super().session_options()
        options.enable_mem_pattern = False
        options.execution_mode = ort_module().ExecutionMode.ORT_SEQUENTIAL
        return options
