"""`ort-dml` (ONNX Runtime's DirectML provider, natively on Windows) and `ort-cuda`: their
provider options, the TopK opsets the DirectML provider registers, and the probe that makes
a provider listed by the wheel but unable to open a session here unavailable.

The first part runs everywhere (no DirectML needed). The second needs Windows with
onnxruntime-directml and a hardware adapter (ONNX Runtime's DirectML provider refuses the
WARP software adapter); elsewhere, Linux CI included, it is skipped, saying which of those
is missing."""

from __future__ import annotations

import sys

import onnxruntime
import pytest
from harness import CASES, documented

from conformance.backends.base import Availability
from conformance.backends.ort_cuda import OrtCuda
from conformance.backends.ort_dml import DEVICE_ENV, OrtDml
from conformance.backends.ort_probe import provider_session_works
from conformance.backends.ort_session import OrtBackend
from conformance.cases.loader import load_cases
from conformance.ops.topk.variants import Variant, onnx_topk_versions
from conformance.running.probed import variants_taken
from conformance.running.runner import GraphCache, execute
from conformance.running.workers import takes_here

PROVIDERS = onnxruntime.get_available_providers()


# --- everywhere --------------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "options", "error"), [
    (None, {}, ""), ("", {}, ""), ("0", {"device_id": "0"}, ""), (" 2 ", {"device_id": "2"}, ""),
    ("gpu", {}, "TOPK_DML_DEVICE_ID must be an adapter index (0, 1, ...), not 'gpu'"),
    ("-1", {}, "TOPK_DML_DEVICE_ID must be an adapter index (0, 1, ...), not '-1'"),
])
def test_device_id_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, value: str | None, options: dict[str, str], error: str,
) -> None:
    if value is None:
        monkeypatch.delenv(DEVICE_ENV, raising=False)
    else:
        monkeypatch.setenv(DEVICE_ENV, value)
    assert OrtDml().provider_options() == options
    assert OrtDml().device_setting()[1] == error


def test_cuda_device_id_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOPK_CUDA_DEVICE_ID", raising=False)
    assert OrtCuda().provider_options() == {}
    monkeypatch.setenv("TOPK_CUDA_DEVICE_ID", "1")
    assert OrtCuda().provider_options() == {"device_id": "1"}


def test_topk_opsets_the_provider_does_not_register_are_skips_not_errors() -> None:
    backend = OrtDml()
    case = documented("dml-top-k1-example-3")
    assert max(onnx_topk_versions()) > backend.max_topk_opset  # opset 24 is built for the others
    for variant in variants_taken(takes_here(backend), op="topk"):
        reason = backend.cannot_run(case, variant)
        if variant.version > 11:
            assert reason == (f"ONNX Runtime's DirectML provider registers TopK up to opset 11 (7, 10, 11): "
                              f"a TopK-{variant.version} graph would be declined")
            # The runner asks before it builds or runs anything: a skip, on any machine.
            result = execute(case, backend, variant, GraphCache())
            assert (result.verdict, result.message) == ("skip", reason)
        else:
            assert reason is None, variant


def test_provider_requirements_and_no_identity_retry() -> None:
    backend = OrtDml()
    options = backend.session_options()
    assert options.enable_mem_pattern is False
    assert options.execution_mode == onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    assert options.get_session_config_entry("session.disable_cpu_ep_fallback") == "1"
    assert backend.retry_behind_identity is False


@pytest.mark.skipif(sys.platform == "win32", reason="the platform message is the one of every other platform")
def test_off_windows_ort_dml_says_where_it_runs() -> None:
    status = OrtDml().availability()
    assert not status.available
    assert status.reason == (f"DirectML runs natively on Windows only (this is {sys.platform}); "
                             "on Linux see ort-dml-wine")


class _Probed(OrtBackend):
    name = "probe-test"
    package_hint = "onnxruntime"

    def __init__(self, provider: str) -> None:
        self.provider = provider


def test_probe_accepts_a_provider_that_takes_topk() -> None:
    assert provider_session_works(_Probed("CPUExecutionProvider")) == Availability(True)


@pytest.mark.skipif("AzureExecutionProvider" not in PROVIDERS, reason="needs onnxruntime's AzureExecutionProvider")
def test_probe_refuses_a_listed_provider_that_cannot_take_topk() -> None:
    # Listed by this wheel, like CUDA without a GPU or DirectML without a hardware adapter.
    status = provider_session_works(_Probed("AzureExecutionProvider"))
    assert not status.available
    assert status.reason.startswith("AzureExecutionProvider cannot open a session here: "), status.reason


# --- on Windows with onnxruntime-directml ------------------------------------------------------

def _windows_dml() -> OrtDml:
    if sys.platform != "win32":
        pytest.skip(f"ort-dml needs Windows with onnxruntime-directml; this platform is {sys.platform}, not Windows")
    if "DmlExecutionProvider" not in PROVIDERS:
        pytest.skip(f"onnxruntime {onnxruntime.__version__} here has no DmlExecutionProvider "
                    f"(has {', '.join(PROVIDERS)}): install onnxruntime-directml")
    backend = OrtDml()
    status = backend.availability()
    if not status.available:
        pytest.skip(f"ort-dml is unavailable on this Windows machine: {status.reason}")
    return backend


@pytest.mark.parametrize("variant", [Variant("onnx", 1, "attribute"), Variant("onnx", 10, "constant"),
                                     Variant("onnx", 11, "constant"), Variant("onnx", 11, "input")],
                         ids=lambda v: v.label)
def test_documented_ties_on_directml(variant: Variant) -> None:
    backend = _windows_dml()
    result = execute(documented("dml-top-k1-example-3"), backend, variant, GraphCache())
    assert result.verdict == "pass", result
    assert result.placement == "DmlExecutionProvider"


def test_a_declined_type_is_a_placement_error_not_a_cpu_fallback() -> None:
    backend = _windows_dml()
    cases = [c for c in load_cases([CASES / "edge"]).cases if c.x.dtype.name == "float64" and not c.expect_error]
    assert cases
    result = execute(cases[0], backend, Variant("onnx", 11, "constant"), GraphCache())
    # DirectML has no float64 TopK: never a pass through ONNX Runtime's CPU provider.
    assert result.verdict in ("error", "pass"), result
    if result.verdict == "error":
        assert result.message.startswith("placement:"), result.message
    else:
        assert result.placement == "DmlExecutionProvider"


def test_an_adapter_that_does_not_exist_makes_it_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    _windows_dml()
    monkeypatch.setenv(DEVICE_ENV, "97")
    status = OrtDml().availability()
    assert not status.available
    assert "DmlExecutionProvider cannot open a session here with provider options {'device_id': '97'}" in status.reason
