"""Backends by their contract names, honest about what is missing here, and ONNX Runtime
backends that prove where the TopK node ran: a provider that is listed but cannot take
TopK is an error, never a pass through a silent fall-back to the CPU provider."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime
import pytest
from harness import CONTRACT_BACKENDS, ISA_LIMITED_BACKENDS, MORE_RUNTIMES, cases_from_yaml, documented, run_cli

from conformance.backends.base import Graph, PlacementError
from conformance.backends.openvino_native import OpenVINO
from conformance.backends.ort_cpu import OrtCpu
from conformance.backends.ort_session import OrtBackend, ort_module, with_identity_before_topk
from conformance.backends.registry import all_backends, backend_names, by_name
from conformance.ops.topk.case import Case
from conformance.ops.topk.onnx import build_onnx, onnx_feeds
from conformance.ops.topk.openvino import K_NUMPY_TYPES
from conformance.ops.topk.variants import OPENVINO_K_TYPES, Variant
from conformance.running.probed import variants_taken
from conformance.running.runner import GraphCache, execute
from conformance.running.suite import Executors
from conformance.running.workers import takes_here

PROVIDERS = onnxruntime.get_available_providers()
OPENVINO_DEVICES = __import__("openvino").Core().available_devices


class AzureBackend(OrtBackend):
    """A real provider of this onnxruntime build that has no TopK kernel: ONNX Runtime
    would run the node on the CPU provider if the backend let it fall back."""

    name = "ort-azure-test"
    kinds = ("onnx",)  # a backend of its own: it says what it takes (the suite's take it from their records)
    provider = "AzureExecutionProvider"
    package_hint = "onnxruntime"


class UnrecordedCpu(OrtCpu):
    """ort-cpu with a session that does not record node placement (a subclass that forgot
    the base class's session options)."""

    name = "ort-cpu-unrecorded"

    def session_options(self) -> Any:
        options = ort_module().SessionOptions()
        options.log_severity_level = 3
        return options


def onnx_graph(case: Case, variant: Variant) -> Graph:
    return Graph(variant, build_onnx(case, variant), onnx_feeds(case, variant))


def cpu_session(model: onnx.ModelProto) -> Any:
    return onnxruntime.InferenceSession(
        model.SerializeToString(), OrtCpu().session_options(), providers=["CPUExecutionProvider"]
    )


# --- registry and availability -------------------------------------------------------

def test_registry_lists_exactly_the_contract_names() -> None:
    names = backend_names()
    assert len(names) == len(set(names)), f"duplicate backend names: {names}"
    assert set(names) == {*CONTRACT_BACKENDS, *ISA_LIMITED_BACKENDS, *MORE_RUNTIMES}


def test_by_name_keeps_order_and_rejects_unknown_names() -> None:
    assert [b.name for b in by_name(["openvino-cpu", "ort-cpu"])] == ["openvino-cpu", "ort-cpu"]
    with pytest.raises(KeyError) as raised:
        by_name(["ort-cpu", "ort-nope"])
    message = str(raised.value.args[0])
    assert "ort-nope" in message and all(name in message for name in CONTRACT_BACKENDS)


def test_backends_available_everywhere_are_available() -> None:
    status = {b.name: b.availability() for b in all_backends()}
    for name in ("onnx-reference", "ort-cpu", "openvino-cpu"):
        assert status[name].available, status[name].reason


@pytest.mark.parametrize(
    ("name", "present", "missing"),
    [
        ("ort-cuda", "CUDAExecutionProvider" in PROVIDERS, "onnxruntime-gpu"),
        ("ort-openvino", "OpenVINOExecutionProvider" in PROVIDERS, "onnxruntime-openvino"),
        ("ort-dml", sys.platform == "win32" and "DmlExecutionProvider" in PROVIDERS, "Windows"),
        ("openvino-gpu", any(d.startswith("GPU") for d in OPENVINO_DEVICES), "GPU"),
        ("openvino-npu", any(d.startswith("NPU") for d in OPENVINO_DEVICES), "NPU"),
    ],
)
def test_unavailable_backend_names_what_is_missing(name: str, present: bool, missing: str) -> None:
    (backend,) = by_name([name])
    status = backend.availability()
    assert status.available == present
    if not present:
        assert missing in status.reason, status.reason


def test_list_backends_shows_every_backend_and_why_not() -> None:
    completed = run_cli("run", "--list-backends")
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    everything = all_backends()
    probed = Executors.probe_once(everything, timeout=60)  # as --list-backends asks (a limited one starts held)
    for backend in probed:
        status = backend.availability
        # By the first column: a reason may name another backend ("see ort-dml-wine").
        row = next((line for line in lines if [c.strip() for c in line.split("│")][1:2] == [backend.name]), None)
        assert row is not None, f"{backend.name} missing from:\n{completed.stdout}"
        assert ("yes" if status.available else "no") in [word.strip(",") for word in row.split()]
        if not status.available:
            assert status.reason in row, row


# --- placement ----------------------------------------------------------------------

@pytest.mark.skipif("AzureExecutionProvider" not in PROVIDERS, reason="needs onnxruntime's AzureExecutionProvider")
def test_provider_without_topk_kernel_is_an_error_not_a_cpu_fallback() -> None:
    backend = AzureBackend()
    assert backend.availability().available
    case = documented("dml-top-k1-example-3")
    graphs = GraphCache()
    results = [execute(case, backend, variant, graphs) for variant in variants_taken(takes_here(backend), op="topk")]
    assert results
    for result in results:
        assert result.verdict == "error", result
        assert result.message.startswith("placement:")
        assert "AzureExecutionProvider declined the TopK node" in result.message
        assert result.placement == ""


class AzureWithFallback(AzureBackend):
    """The Azure backend with CPU fall-back allowed: ONNX Runtime quietly runs TopK on the
    CPU provider, and only the placement record can tell."""

    name = "ort-azure-fallback-test"

    def session_options(self) -> Any:
        options = super().session_options()
        options.add_session_config_entry("session.disable_cpu_ep_fallback", "0")
        return options


def test_non_cpu_backends_refuse_cpu_fallback() -> None:
    for backend in all_backends():
        if isinstance(backend, OrtBackend) and backend.provider != "CPUExecutionProvider":
            options = backend.session_options()
            assert options.get_session_config_entry("session.disable_cpu_ep_fallback") == "1", backend.name
            assert options.get_session_config_entry("session.record_ep_graph_assignment_info") == "1"


@pytest.mark.skipif("AzureExecutionProvider" not in PROVIDERS, reason="needs onnxruntime's AzureExecutionProvider")
def test_placement_record_catches_a_silent_cpu_fallback() -> None:
    case = documented("dml-top-k1-example-3")
    result = execute(case, AzureWithFallback(), Variant("onnx", 11, "constant"), GraphCache())
    assert result.verdict == "error", result
    assert result.message == (
        "placement: TopK was assigned to ['CPUExecutionProvider'], not AzureExecutionProvider"
    )


@pytest.fixture(scope="module")
def expect_error_case(tmp_path_factory: pytest.TempPathFactory) -> Case:
    text = """
cases:
  - id: k-too-large
    source: test_backends
    input: {dtype: float32, shape: [2, 3], data: [[1, 2, 3], [6, 5, 4]]}
    axis: 1
    k: 4
    expect_error: true
"""
    (case,) = cases_from_yaml(tmp_path_factory.mktemp("backends") / "error.yaml", text)
    return case


@pytest.mark.skipif("AzureExecutionProvider" not in PROVIDERS, reason="needs onnxruntime's AzureExecutionProvider")
def test_unproven_placement_never_passes_an_expect_error_case(expect_error_case: Case) -> None:
    """The provider refusing the graph is not the clean error the case expects."""
    variant = Variant("onnx", 11, "input")
    cpu = execute(expect_error_case, OrtCpu(), variant, GraphCache())
    assert cpu.verdict == "pass" and "raised as expected" in cpu.message
    azure = execute(expect_error_case, AzureBackend(), variant, GraphCache())
    assert azure.verdict == "error" and azure.message.startswith("placement:")


def test_session_that_cannot_report_placement_never_passes(expect_error_case: Case) -> None:
    variant = Variant("onnx", 11, "input")
    result = execute(expect_error_case, UnrecordedCpu(), variant, GraphCache())
    assert result.verdict == "error", result
    assert result.message.startswith("placement:") and "did not report node placement" in result.message


def test_check_placement_rejects_topk_on_another_provider() -> None:
    model = build_onnx(documented("dml-top-k1-example-1"), Variant("onnx", 11, "constant"))
    session = cpu_session(model)
    OrtCpu().check_placement(session)  # the node did run on CPU: proven

    class ClaimsCuda(OrtCpu):
        name = "claims-cuda"
        provider = "CUDAExecutionProvider"

    wrong = r"TopK was assigned to \['CPUExecutionProvider'\], not CUDAExecutionProvider"
    with pytest.raises(PlacementError, match=wrong):
        ClaimsCuda().check_placement(session)


def test_check_placement_needs_the_runtime_record() -> None:
    model = build_onnx(documented("dml-top-k1-example-1"), Variant("onnx", 11, "constant"))
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    with pytest.raises(PlacementError, match="did not report node placement"):
        OrtCpu().check_placement(session)


def test_ort_cpu_reports_its_provider_as_placement() -> None:
    case = documented("dml-top-k1-example-3")
    variant = Variant("onnx", 11, "constant")
    execution = OrtCpu().run(onnx_graph(case, variant))
    assert execution.placement == "CPUExecutionProvider"
    assert execution.wrapping == ""
    assert execution.outputs_named(("values", "indices"))["indices"].tolist() == case.expected.indices.tolist()  # type: ignore[union-attr]
    result = execute(case, OrtCpu(), variant, GraphCache())
    assert (result.verdict, result.placement) == ("pass", "CPUExecutionProvider")


def test_openvino_cpu_reports_its_device_as_placement() -> None:
    case = documented("dml-top-k1-example-1")
    result = execute(case, OpenVINO("CPU"), Variant("openvino", 11, "constant", True), GraphCache())
    assert (result.verdict, result.placement) == ("pass", "OpenVINO CPU")


def test_identity_wrapping_keeps_the_bits(tmp_path: Path) -> None:
    """The Identity a declining provider gets in front of TopK changes no value: the wrapped
    graph gives the same bits as the plain one, -0.0 and NaN included."""
    text = """
cases:
  - id: wrap-bits
    source: test_backends
    input: {dtype: float16, shape: [2, 5], data: [["-0.0", 0.0, "nan", 2, -3], [1, "inf", "-inf", "-0.0", 1]]}
    axis: -1
    k: 4
"""
    (case,) = cases_from_yaml(tmp_path / "wrap.yaml", text)
    variant = Variant("onnx", 11, "input")
    model = build_onnx(case, variant)
    wrapped = with_identity_before_topk(model)
    assert [n.op_type for n in wrapped.graph.node] == ["Identity", "TopK"]
    assert [n.op_type for n in model.graph.node] == ["TopK"], "the original graph is untouched"
    feeds = onnx_feeds(case, variant)
    plain = cpu_session(model).run(None, feeds)
    session = onnxruntime.InferenceSession(
        wrapped.SerializeToString(), OrtCpu().session_options(),
        providers=["CPUExecutionProvider"], disabled_optimizers=["EliminateIdentity"],
    )
    assert any(n.op_type == "Identity" for sub in session.get_provider_graph_assignment_info()
               for n in sub.get_nodes())
    OrtCpu().check_placement(session)
    again = session.run(None, feeds)
    for a, b in zip(plain, again, strict=True):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    assert np.isnan(plain[0]).any()


# --- K in every integer type OpenVINO has ------------------------------------------------

@pytest.mark.parametrize("k_source", ["constant", "input"])
@pytest.mark.parametrize("k_type", list(OPENVINO_K_TYPES))
def test_k_of_every_integer_type_reaches_openvino_as_its_number(k_type: str, k_source: str) -> None:
    """K = 1, 2, 3 in each type, each run three times: OpenVINO either computes exactly K
    elements per sequence, the DirectML answer, on every run (the number arrived intact,
    sub-byte inputs packed as OpenVINO packs them), or refuses the type; never a wrong K."""
    x = np.array([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]], dtype=np.float32)
    variant = Variant("openvino", 11, k_source, True, k_type)
    bits = OPENVINO_K_TYPES[k_type][0]
    verdicts = set()
    for k in (1, 2, 3):
        if (bits == 1 and k > 1) or (bits == 2 and k > 3):
            continue
        case = Case(id=f"k-{k}", source="test", file=Path("<test>"), x=x, axis=1, k=k, repeat=3)
        result = execute(case, OpenVINO("CPU"), variant, GraphCache())
        assert result.verdict in ("pass", "error"), result
        if result.verdict == "pass":
            assert result.message == "3 runs: identical"
        verdicts.add(result.verdict)
    # What OpenVINO 2026.4 does: every byte-wide type and i4/u4 work; u2 works as an
    # input only; u1, u3, u6 inputs are refused by the CPU plugin, and u1/u2/u3/u6
    # constants by shape inference.
    works = k_type in K_NUMPY_TYPES or k_type in ("i4", "u4") or (k_type, k_source) == ("u2", "input")
    assert verdicts == ({"pass"} if works else {"error"})
