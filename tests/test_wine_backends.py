"""The two DirectML backends under Wine (`ort-dml-wine`, `directml-wine`), for real: the
bridge, the known-answer proof (and its refusal on Wine's stock wined3d.dll, which returns
untouched outputs while every call succeeds), the documented examples, placement, the
device's answers, crash isolation and the setup's idempotence. They need
`topk-conformance setup directml`; under CI=true a missing setup fails instead of skipping,
so a CI job that lost its runtime cannot stay green."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import onnx
import pytest
from harness import DOCUMENTED, documented_cases, require_available, run_cli
from onnx import TensorProto, helper, numpy_helper

from conformance.backends.base import Graph, PlacementError
from conformance.backends.wine import provision
from conformance.backends.wine.bridge import MEMBER_UINT, MEMBER_UINT_ARRAY, OP_DML_RUN, Payload
from conformance.backends.wine.bridged import BridgedBackend
from conformance.backends.wine.directml import DirectMLWine, dml_run_payload
from conformance.backends.wine.environment import WHEEL_VERSION, WineSetup, default_setup
from conformance.backends.wine.ort_dml import OrtDmlWine
from conformance.graphs.directml import DirectMLDescription, InputTensor, OutputTensor, UInt, UIntArray
from conformance.ops.topk.case import Case
from conformance.ops.topk.directml import build_directml
from conformance.ops.topk.variants import Variant, directml_variants
from conformance.report.render import render_report
from conformance.results.records import Result, ResultsFile, merge
from conformance.running.probed import variants_taken
from conformance.running.runner import GraphCache, execute
from conformance.running.workers import takes_here

SETUP = default_setup()


@pytest.fixture(scope="module")
def directml() -> Iterator[DirectMLWine]:
    backend = require_available(DirectMLWine(SETUP))
    assert isinstance(backend, DirectMLWine)
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def ort_dml() -> Iterator[OrtDmlWine]:
    backend = require_available(OrtDmlWine(SETUP))
    assert isinstance(backend, OrtDmlWine)
    yield backend
    backend.close()


def _case(x: np.ndarray, k: int, largest: bool = True, axis: int = -1) -> Case:
    return Case(id="wine-test", source="test", file=Path("<test>"), x=x, axis=axis, k=k, largest=largest)


# --- the documented examples, on both backends --------------------------------------

@pytest.mark.parametrize("case", [c for c in documented_cases() if c.id.startswith("dml-")], ids=lambda c: c.id)
def test_documented_directml_examples_pass_on_directml_operators(directml: DirectMLWine, case: Case) -> None:
    graphs = GraphCache()
    ran = 0
    for variant in variants_taken(takes_here(directml), op="topk"):
        result = execute(case, directml, variant, graphs)
        if variant.cannot_express(case):
            assert result.verdict == "skip"
            continue
        ran += 1
        assert result.verdict == "pass", result.message
        assert "DirectML.dll" in result.placement
    assert ran >= 1


@pytest.mark.parametrize("case", [c for c in documented_cases() if c.id.startswith("dml-")], ids=lambda c: c.id)
def test_documented_directml_examples_pass_on_the_dml_provider(ort_dml: OrtDmlWine, case: Case) -> None:
    graphs = GraphCache()
    for opset in (11,):
        for k_source in ("constant", "input"):
            result = execute(case, ort_dml, Variant("onnx", opset, k_source), graphs)
            assert result.verdict == "pass", result.message
            # ONNX Runtime's own assignment record, as the bridge read it.
            assert "TopK:topk=DmlExecutionProvider" in result.placement


def test_the_bridge_serves_both_backends_from_one_process(ort_dml: OrtDmlWine) -> None:
    """The same bridge runs DirectML's operator beside ONNX Runtime's sessions."""
    case = _case(np.array([[1, 2, 2, 3], [3, 4, 5, 5]], dtype=np.float32), 3)
    operator = build_directml(case, directml_variants()[0])
    execution = DirectMLWine(SETUP).run_on(ort_dml.bridge(), Graph(directml_variants()[0], operator, {"X": case.x}))
    assert execution.outputs_named(("values", "indices"))["indices"].tolist() == [[3, 1, 2], [2, 3, 1]]


# --- the generic operator request: any DirectML operator, described by its members ---------

_TIES = np.array([[[[1, 2, 2, 3], [3, 4, 5, 5], [6, 6, 6, 6]]]], dtype=np.float32)


def _top_k1(direction: int) -> DirectMLDescription:
    """DML_TOP_K1_OPERATOR_DESC's examples 3 and 4, written out member by member."""
    return DirectMLDescription("DML_OPERATOR_TOP_K1", 112, (
        InputTensor("InputTensor", "X"),
        OutputTensor("OutputValueTensor", "values", "float32", (1, 1, 3, 3)),
        OutputTensor("OutputIndexTensor", "indices", "uint32", (1, 1, 3, 3)),
        UInt("Axis", 3), UInt("K", 3), UInt("AxisDirection", direction),
    ))


def _dml_run(directml: DirectMLWine, description: DirectMLDescription, x: np.ndarray) -> dict[str, np.ndarray]:
    return directml.bridge().call(OP_DML_RUN, dml_run_payload(description, {"X": x})).named_tensors()


def test_top_k1_described_member_by_member_gives_the_documented_answers(directml: DirectMLWine) -> None:
    decreasing = _dml_run(directml, _top_k1(1), _TIES)
    assert list(decreasing) == ["values", "indices"]
    assert decreasing["values"].tolist() == [[[[3, 2, 2], [5, 5, 4], [6, 6, 6]]]]
    assert decreasing["indices"].tolist() == [[[[3, 1, 2], [2, 3, 1], [0, 1, 2]]]]
    assert decreasing["indices"].dtype == np.uint32
    increasing = _dml_run(directml, _top_k1(0), _TIES)
    assert increasing["values"].tolist() == [[[[1, 2, 2], [3, 4, 5], [6, 6, 6]]]]
    assert increasing["indices"].tolist() == [[[[0, 1, 2], [0, 1, 2], [0, 1, 2]]]]


def test_the_bridge_refuses_a_malformed_operator_request_and_serves_the_next(directml: DirectMLWine) -> None:
    bridge = directml.bridge()
    good = dml_run_payload(_top_k1(1), {"X": _TIES})
    too_big = Payload().u32(112).u32(17)
    for i in range(17):  # 16 bytes each: a UINT count and an 8-aligned pointer
        too_big.u32(MEMBER_UINT_ARRAY).string(f"Axes{i}").u32(1).u32(0)
    malformed = {
        "unknown kind 99": Payload().u32(112).u32(1).u32(99).string("Bogus").u32(0).bytes(),
        "truncated": good[:-7],
        "trailing bytes": good + b"\0\0\0\0",
        "at most 32": Payload().u32(112).u32(1000).bytes(),
        "at most 64": Payload().u32(112).u32(1).u32(MEMBER_UINT_ARRAY).string("Axes").u32(10**9).bytes(),
        "truncated DML_RUN request (member 0, Axes)":
            Payload().u32(112).u32(1).u32(MEMBER_UINT_ARRAY).string("Axes").u32(3).u32(0).bytes(),
        "no output tensor": Payload().u32(112).u32(1).u32(MEMBER_UINT).string("K").u32(3).bytes(),
        "passes 256 bytes": too_big.bytes(),
        "input has 4 bytes": good.replace(_TIES.tobytes(), _TIES.tobytes()[:4]).replace(
            (len(_TIES.tobytes())).to_bytes(8, "little"), (4).to_bytes(8, "little"), 1),
    }
    for expected, payload in malformed.items():
        with pytest.raises(RuntimeError, match="the bridge could not read the request") as refused:
            bridge.call(OP_DML_RUN, payload)
        assert expected in str(refused.value), (expected, str(refused.value))
        assert bridge.alive
    assert bridge.call(OP_DML_RUN, good).named_tensors()["indices"].tolist() == [[[[3, 1, 2], [2, 3, 1], [0, 1, 2]]]]
    assert directml.bridge() is bridge


# DML_ARGMAX_OPERATOR_DESC's input, and argmax({3,2,1,2,3}) from its AxisDirection text.
_ARGMAX_INPUT = np.array([[1, 2, 3], [3, 0, 4], [2, 5, 2]], dtype=np.float32)
_ARGMAX_TIES = np.array([[3, 2, 1, 2, 3]], dtype=np.float32)


def _argmax(axis: int, shape: tuple[int, ...], direction: int = 0) -> DirectMLDescription:
    return DirectMLDescription("DML_OPERATOR_ARGMAX", 138, (
        InputTensor("InputTensor", "X"),
        OutputTensor("OutputTensor", "indices", "uint32", shape),
        UIntArray("Axes", "AxisCount", (axis,)),
        UInt("AxisDirection", direction),
    ))


def test_an_operator_the_bridge_was_never_told_of_runs_from_its_description(directml: DirectMLWine) -> None:
    """DML_OPERATOR_ARGMAX (a UINT array among the members): no C code knows it."""
    columns = _dml_run(directml, _argmax(0, (1, 3)), _ARGMAX_INPUT)
    assert list(columns) == ["indices"]
    assert columns["indices"].tolist() == [[1, 2, 1]]  # the documents' example 1
    assert _dml_run(directml, _argmax(1, (3, 1)), _ARGMAX_INPUT)["indices"].tolist() == [[2], [2], [1]]
    assert _dml_run(directml, _argmax(1, (1, 1), 0), _ARGMAX_TIES)["indices"].tolist() == [[0]]  # the first
    assert _dml_run(directml, _argmax(1, (1, 1), 1), _ARGMAX_TIES)["indices"].tolist() == [[4]]  # the last


def test_a_uint_before_a_pointer_is_padded_as_x64_c_pads_it(directml: DirectMLWine) -> None:
    """DML_REDUCE_OPERATOR_DESC starts with Function (a UINT), then InputTensor (8-aligned)."""
    description = DirectMLDescription("DML_OPERATOR_REDUCE", 55, (
        UInt("Function", 0),  # DML_REDUCE_FUNCTION_ARGMAX
        InputTensor("InputTensor", "X"),
        OutputTensor("OutputTensor", "indices", "uint32", (1, 3)),
        UIntArray("Axes", "AxisCount", (0,)),
    ))
    assert _dml_run(directml, description, _ARGMAX_INPUT)["indices"].tolist() == [[1, 2, 1]]


# --- proof before results -------------------------------------------------------------

@pytest.mark.parametrize("backend_class", [DirectMLWine, OrtDmlWine])
def test_stock_wined3d_fails_the_proof_and_the_backend_refuses(backend_class: type[BridgedBackend]) -> None:
    """Wine's own wined3d.dll (vkd3d 1.6 on lavapipe) returns success and writes nothing:
    the backend must call itself unavailable, never return those rows."""
    require_available(backend_class(SETUP))
    stock = backend_class(WineSetup(SETUP.root, patched_wined3d=False))
    status = stock.availability()
    assert not status.available
    assert "known-answer proof" in status.reason, status.reason


def test_an_unverified_wine_build_is_not_patched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "wined3d.dll"
    other.write_bytes(b"MZ not the verified build")
    monkeypatch.setattr(provision, "STOCK_WINED3D", other)
    setup = WineSetup(tmp_path / "directml")
    messages: list[str] = []
    provision.patch_wined3d(setup, messages.append)
    assert not (setup.bin / "wined3d.dll").exists()
    status = DirectMLWine(setup).availability()
    assert not status.available
    assert provision.sha256(other) in status.reason and "not patched blind" in status.reason


# --- placement, device answers, versions ----------------------------------------------

def test_placement_is_read_from_onnx_runtime_s_record() -> None:
    backend = OrtDmlWine(SETUP)
    backend.check_record("TopK:topk=DmlExecutionProvider;")
    with pytest.raises(PlacementError, match="CPUExecutionProvider"):
        backend.check_record("TopK:topk=CPUExecutionProvider;")
    with pytest.raises(PlacementError, match="no provider"):
        backend.check_record("")


def test_describe_names_the_translation_layer_and_the_device(directml: DirectMLWine, ort_dml: OrtDmlWine) -> None:
    for backend in (directml, ort_dml):
        info = backend.describe()
        for key in ("wine", "vkd3d", "mesa_lavapipe", "directml_dll", "adapter", "semantics"):
            assert info.get(key), (backend.name, key, info)
        assert "software Vulkan" in info["semantics"]
    assert ort_dml.describe()["onnxruntime"] == WHEEL_VERSION
    info = directml.describe()
    assert int(info["feature_level"], 16) >= 0x5000
    assert "FLOAT32" in info["data_types_supported"].split(",")


def test_a_type_the_table_lists_but_the_device_refuses_is_a_skip(directml: DirectMLWine) -> None:
    unsupported = directml.describe()["data_types_unsupported"].split(",")
    if "FLOAT16" not in unsupported:
        pytest.skip("this device supports FLOAT16")
    case = _case(np.array([3, 1, 2], dtype=np.float16), 2)
    result = execute(case, directml, directml_variants()[0], GraphCache())
    assert result.verdict == "skip"
    assert "FLOAT16 unsupported" in result.message


def test_what_directml_refuses_is_an_error_with_its_hresult(directml: DirectMLWine) -> None:
    """FLOAT64: the device reports it supported, TOP_K1's table omits it, CreateOperator
    refuses it. Outside the documented domain, so not a broken promise."""
    case = _case(np.array([3.0, 1.0, 2.0]), 2)
    result = execute(case, directml, directml_variants()[0], GraphCache())
    assert result.verdict == "error"
    assert result.domain == "undefined"
    assert "CreateOperator" in result.message and "0x80070057" in result.message


# --- isolation and reuse --------------------------------------------------------------

def test_a_hung_bridge_costs_one_crash_result_and_a_fresh_bridge_takes_the_next(directml: DirectMLWine) -> None:
    backend = DirectMLWine(SETUP)
    bridge = backend.bridge()
    assert bridge._process is not None
    bridge.timeout = 3.0
    os.kill(bridge._process.pid, signal.SIGSTOP)
    case = _case(np.array([[1, 2, 2, 3]], dtype=np.float32), 2)
    variant = directml_variants()[0]
    hung = execute(case, backend, variant, GraphCache())
    assert hung.verdict == "crash"
    assert "no answer from the bridge" in hung.message
    after = execute(case, backend, variant, GraphCache())
    backend.close()
    assert after.verdict == "pass", after.message
    assert not bridge.alive, "the hung bridge was killed"


def test_a_worker_reuses_one_bridge_for_every_run(directml: DirectMLWine) -> None:
    bridge = directml.bridge()
    graphs = GraphCache()
    for case in documented_cases()[:3]:
        execute(case, directml, directml_variants()[0], graphs)
    assert directml.bridge() is bridge and bridge.alive


# --- setup ----------------------------------------------------------------------------

def test_setup_a_second_time_does_nothing_again(directml: DirectMLWine) -> None:
    said: list[str] = []
    provision.provision(SETUP, said.append)
    assert all(("present" in line) or ("up to date" in line) for line in said), said
    assert json.loads(SETUP.state_file.read_text())["complete"] is True


def test_the_pinned_wheel_is_the_one_constraints_txt_names() -> None:
    constraints = (DOCUMENTED.parent.parent / "constraints.txt").read_text().split()
    assert f"onnxruntime-directml=={WHEEL_VERSION}" in constraints


def test_the_bridge_builds_warning_free_from_source(tmp_path: Path) -> None:
    compiler = "x86_64-w64-mingw32-gcc"
    if subprocess.run(["which", compiler], capture_output=True).returncode != 0:
        if os.environ.get("CI"):
            pytest.fail("mingw is missing in CI")
        pytest.skip("mingw is not installed")
    sources = sorted(str(p) for p in provision.BRIDGE_SOURCES.glob("*.c"))
    completed = subprocess.run(
        [compiler, "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(tmp_path / "bridge.exe"), *sources,
         *provision.BRIDGE_LIBRARIES], capture_output=True, text=True,
    )
    assert completed.returncode == 0, completed.stderr


def test_a_native_windows_results_file_merges_beside_the_wine_columns() -> None:
    windows = ResultsFile(
        {"platform": "Windows-11", "machine": "win-runner"},
        {"ort-dml": {"available": True, "device": "DmlExecutionProvider on Microsoft Basic Render Driver"}},
        [], [Result("dml-top-k1-example-3", "ort-dml", "onnx-opset11", "constant", "pass")],
    )
    wine_info = {"available": True, "device": "DirectML on NVIDIA GeForce GTX 470 (Wine)",
                 "semantics": "DirectML's own shaders on a software Vulkan adapter"}
    linux = ResultsFile(
        {"platform": "Linux", "machine": "ci"}, {"directml-wine": wine_info}, [],
        [Result("dml-top-k1-example-3", "directml-wine", "directml-topk1", "attribute", "pass")],
    )
    merged = merge([windows, linux]).data
    assert {r.backend for r in merged.results} == {"ort-dml", "directml-wine"}
    html = render_report(merged)
    assert "ort-dml" in html and "directml-wine" in html
    assert html.count("software Vulkan under Wine, not a GPU driver") == 1


def test_no_x_server_or_wine_process_outlives_a_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each bridge has its own Xvfb: a run must stop both when its workers end. The run's
    processes are told apart from other tests' by a variable they all inherit."""
    require_available(DirectMLWine(SETUP))
    mark = f"TOPK_TEST_RUN={uuid.uuid4()}"
    monkeypatch.setenv(*mark.split("="))

    def marked() -> list[str]:
        found = []
        for environ in Path("/proc").glob("[0-9]*/environ"):
            try:
                if mark.encode() in environ.read_bytes().split(b"\0"):
                    found.append((environ.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode())
            except OSError:  # gone, or not ours to read
                continue
        return found

    completed = run_cli("run", "--backend", "directml-wine", "--cases", DOCUMENTED, "--out", tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.count("pass") >= 1
    # Wine's own services (services.exe, winedevice, rpcss, ...) stop after the wineserver
    # sees its last client go, which can take it a moment after the run has exited (seen
    # on a prefix made a minute before); a process still there after that has leaked.
    deadline = time.monotonic() + 15
    while marked() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert marked() == []


def _scores_and_boxes_model(path: Path) -> Path:
    """An ArgMax, which DirectML runs, and a NonMaxSuppression, which it has no kernel for."""
    nodes = [helper.make_node("ArgMax", ["scores"], ["best"], axis=2, keepdims=0, name="best_argmax"),
             helper.make_node("NonMaxSuppression", ["boxes", "scores", "cap", "iou"], ["kept"], name="boxes_nms")]
    graph = helper.make_graph(
        nodes, "scores_and_boxes",
        [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, 64, 4]),
         helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 1, 64])],
        [helper.make_tensor_value_info("best", TensorProto.INT64, [1, 1]),
         helper.make_tensor_value_info("kept", TensorProto.INT64, [None, 3])],
        [numpy_helper.from_array(np.array([10], np.int64), "cap"),
         numpy_helper.from_array(np.array([0.5], np.float32), "iou")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, str(path))
    return path


def test_a_users_model_runs_with_the_cpu_fallback_and_a_node_placed_on_the_cpu_is_a_skip(
        ort_dml: OrtDmlWine, tmp_path: Path) -> None:
    """`model` on the Wine provider: the session lets ONNX Runtime place what DirectML declines
    on its CPU provider, as for any model; the ArgMax DirectML ran is judged, the
    NonMaxSuppression ONNX Runtime put on the CPU is a skip naming where it ran."""
    done = run_cli("model", _scores_and_boxes_model(tmp_path / "m.onnx"), "--fill", "random", "--backend",
                   "ort-dml-wine", "--backend", "ort-cpu", "--out", tmp_path / "out", timeout=600)
    assert done.returncode == 0, done.stderr
    (model,) = json.loads((tmp_path / "out" / "results.json").read_text())["models"]
    nodes = {node["name"]: node["results"]["ort-dml-wine"] for node in model["nodes"]}
    assert nodes["best_argmax"]["verdict"] == "pass", nodes
    assert nodes["boxes_nms"]["verdict"] == "skip"
    assert "CPUExecutionProvider" in nodes["boxes_nms"]["message"]
