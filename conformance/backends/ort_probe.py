"""Whether an ONNX Runtime execution provider can open a session on this machine.

`get_available_providers()` lists the providers compiled into the wheel, not the devices
present: onnxruntime-gpu lists CUDAExecutionProvider without a GPU or CUDA libraries, and
onnxruntime-directml lists DmlExecutionProvider on a machine whose only adapter is the
software one (which the DirectML provider refuses). A backend that calls itself available
there would turn every result into an `error`; the probe makes it unavailable, with ONNX
Runtime's own words, instead."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from conformance.backends.base import Availability
from conformance.backends.ort_session import OrtBackend, ort_module

_PROBED: dict[tuple[str, tuple[tuple[str, str], ...]], Availability] = {}


def probe_model() -> bytes:
    """TopK-11 on one row of four floats, K constant: the smallest graph the provider must take."""
    node = helper.make_node("TopK", ["X", "K"], ["Values", "Indices"], name="topk", axis=-1)
    graph = helper.make_graph(
        [node], "probe", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("Values", TensorProto.FLOAT, [1, 2]),
         helper.make_tensor_value_info("Indices", TensorProto.INT64, [1, 2])],
        [numpy_helper.from_array(np.array([2], dtype=np.int64), "K")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
    model.ir_version = 6
    return bytes(model.SerializeToString())


def provider_session_works(backend: OrtBackend) -> Availability:
    """Open (once per process and provider options) a session of the probe graph on the
    backend's provider, CPU fall-back disabled, and run it once."""
    options = backend.provider_options()
    key = (backend.provider, tuple(sorted(options.items())))
    if key not in _PROBED:
        _PROBED[key] = _probe(backend, options)
    return _PROBED[key]


def _probe(backend: OrtBackend, options: dict[str, str]) -> Availability:
    try:
        ort = ort_module()
        session: Any = ort.InferenceSession(
            probe_model(), backend.session_options(), providers=backend.session_providers(),
        )
        backend.check_placement(session)
        session.run(None, {"X": np.array([[1.0, 3.0, 2.0, 3.0]], dtype=np.float32)})
    except Exception as exc:
        text = " ".join(str(exc).split())
        shown = f" with provider options {options}" if options else ""
        return Availability(False, f"{backend.provider} cannot open a session here{shown}: {text[:400]}")
    return Availability(True)


def device_id_from_env(variable: str, what: str) -> tuple[str | None, str]:
    """(the `device_id` provider option from the environment variable, or None; an error
    naming what the index counts, or "")."""
    raw = os.environ.get(variable, "").strip()
    if not raw:
        return None, ""
    if not raw.isdigit():
        return None, f"{variable} must be {what} (0, 1, ...), not {raw!r}"
    return str(int(raw)), ""


class DeviceIndexedProvider(OrtBackend):
    """An execution provider on one device of several: the index comes from the environment
    variable `device_env` as the provider option `device_id` (the provider's default where
    it is unset), and the backend is available only where a probe session opens on it."""

    device_env = ""
    device_counts = "a device index"  # what the index counts, for the error message
    probe_hint = ""  # appended to the reason where the probe session fails

    def device_setting(self) -> tuple[str | None, str]:
        """(the `device_id` provider option, or None; an error, or "")."""
        return device_id_from_env(self.device_env, self.device_counts)

    def availability(self) -> Availability:
        status = super().availability()
        if not status.available:
            return status
        _, error = self.device_setting()
        if error:
            return Availability(False, error)
        probed = provider_session_works(self)
        if not probed.available and self.probe_hint:
            return Availability(False, f"{probed.reason} ({self.probe_hint})")
        return probed

    def provider_options(self) -> dict[str, str]:
        device_id, _ = self.device_setting()
        return {"device_id": device_id} if device_id is not None else {}
