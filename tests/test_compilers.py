"""The compiler backends (issue 35): IREE on the CPU and as SPIR-V shaders on two CPU Vulkans,
and TVM. Each takes ONNX graphs through its own importer; a stage that refuses a graph is that
graph's error naming the stage; the Vulkan backends prove the device they ran on; packs (one
module, many functions) change no result. Real IREE, TVM and Vulkan drivers."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from harness import DOCUMENTED, documented
from onnx import TensorProto, helper

pytest.importorskip("iree.compiler", reason="the IREE backends need the [iree] extra")
pytest.importorskip("tvm", reason="the TVM backend needs the [tvm] extra")

from conformance.backends import iree_compiled, tvm_relax, vulkan
from conformance.backends.base import Graph, PackError
from conformance.backends.pack_functions import functions_of
from conformance.backends.registry import RECORDS, by_name
from conformance.cases.loader import load_cases
from conformance.ops.topk.variants import Variant
from conformance.results.records import Result
from conformance.running.runner import GraphCache, execute
from conformance.running.suite import Executors, run_cases

COMPILERS = ("iree-cpu", "iree-vulkan-swiftshader", "iree-vulkan-lavapipe", "tvm-cpu")
ON_VULKAN = {"iree-vulkan-swiftshader": "SwiftShader", "iree-vulkan-lavapipe": "llvmpipe"}


def _topk(opset: int, shape: list[int], k: int, name: str = "g") -> Any:
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, shape)
    k_in = helper.make_tensor_value_info("K", TensorProto.INT64, [1])
    out = [*shape[:-1], k]
    values = helper.make_tensor_value_info("values", TensorProto.FLOAT, out)
    indices = helper.make_tensor_value_info("indices", TensorProto.INT64, out)
    node = helper.make_node("TopK", ["X", "K"], ["values", "indices"], axis=-1, name="topk")
    graph = helper.make_graph([node], name, [x, k_in], [values, indices])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _graph(opset: int, row: list[float], k: int, signature: str = "") -> Graph:
    feeds = {"X": np.array([row], np.float32), "K": np.array([k], np.int64)}
    return Graph(Variant("onnx", opset, "input"), _topk(opset, [1, len(row)], k), feeds, signature=signature)


def _const() -> Graph:
    """TopK-11 with K = 2 a constant (an initializer), on [1, 3, 2, 0]."""
    graph = _graph(11, [1, 3, 2, 0], 2)
    model = graph.model
    model.graph.initializer.append(helper.make_tensor("K", TensorProto.INT64, [1], [2]))
    del model.graph.input[1]
    return Graph(graph.variant, model, {"X": graph.feeds["X"]})


def test_each_is_a_record_with_its_extra_setup_and_packs() -> None:
    records = {record.name: record for record in RECORDS if record.name in COMPILERS}
    assert set(records) == set(COMPILERS)
    assert {records[name].extra for name in COMPILERS} == {"iree", "tvm"}
    assert all(records[name].packs and records[name].kinds == ("onnx",) for name in COMPILERS)
    assert all(records[name].setup == vulkan.SETUP for name in ON_VULKAN)
    assert records["iree-cpu"].setup is None and records["tvm-cpu"].setup is None


def test_unavailable_without_the_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "iree.compiler", None)  # import fails as if not installed
    monkeypatch.setitem(sys.modules, "tvm", None)
    iree = iree_compiled.CPU.make().availability()
    tvm = tvm_relax.RECORD.make().availability()
    assert not iree.available and "IREE is not installed" in iree.reason and "[iree]" in iree.reason
    assert not tvm.available and "TVM is not installed" in tvm.reason and "[tvm]" in tvm.reason


def test_a_vulkan_backend_runs_only_on_the_driver_it_was_given(monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Path) -> None:
    """In this process no ICD was chosen: unavailable, saying so; without the driver's ICD file,
    unavailable naming the file, the package and the setup step."""
    monkeypatch.delenv(vulkan.ICD_VARIABLE, raising=False)
    (lavapipe,) = by_name(["iree-vulkan-lavapipe"])
    status = lavapipe.availability()
    assert not status.available and "own worker" in status.reason
    missing = vulkan.Driver("lavapipe", tmp_path / "none.json", "mesa-vulkan-drivers", "llvmpipe", "")
    monkeypatch.setitem(vulkan.DRIVERS, "lavapipe", missing)
    status = lavapipe.availability()
    assert not status.available
    assert str(missing.icd) in status.reason and "mesa-vulkan-drivers" in status.reason
    assert "setup vulkan" in status.reason


def test_a_device_that_is_not_the_drivers_is_not_confirmed() -> None:
    assert vulkan.confirms("swiftshader", "SwiftShader Device (Subzero) (SwiftShader driver)")
    assert vulkan.confirms("lavapipe", "llvmpipe (LLVM 15.0.6, 256 bits)")
    assert not vulkan.confirms("lavapipe", "SwiftShader Device (Subzero)")
    assert not vulkan.confirms("swiftshader", "AMD Radeon RX 7900 XTX (RADV NAVI31)")


@pytest.fixture(scope="module")
def on_vulkan() -> dict[str, Any]:
    """cases/documented's first file on both Vulkan backends, in their workers."""
    cases = load_cases([DOCUMENTED / "onnx-backend-node.yaml"]).cases
    backends = by_name(ON_VULKAN)
    executors = Executors(timeout=120, jobs=2)
    probed = executors.probe(backends)
    missing = [f"{p.name}: {p.availability.reason}" for p in probed if not p.available]
    if missing:  # `setup vulkan` not run: skipped here, a failure in CI (as harness.require_available)
        (pytest.fail if os.environ.get("CI") else pytest.skip)(f"not available: {'; '.join(missing)}")
    results = run_cases(cases, backends, executors=executors)
    return {"probed": {p.name: p for p in probed}, "results": results}


@pytest.mark.parametrize("backend", ON_VULKAN)
def test_a_vulkan_backend_describes_the_device_and_driver_vulkan_reports(on_vulkan: dict[str, Any],
                                                                          backend: str) -> None:
    probed = on_vulkan["probed"][backend]
    assert probed.available, probed.availability.reason
    described = probed.probe.info
    assert ON_VULKAN[backend] in described["device"] and ON_VULKAN[backend] in described["vulkan_device"]
    assert described["vulkan_driver_version"] and described["vulkan_package"].split()[0] in (
        "chromium", "mesa-vulkan-drivers")
    assert "vulkan-spirv" in described["compiler"]


@pytest.mark.parametrize("backend", ON_VULKAN)
def test_every_result_that_ran_names_the_vulkan_device(on_vulkan: dict[str, Any], backend: str) -> None:
    results = [r for r in on_vulkan["results"] if r.backend == backend and r.verdict != "skip"]
    assert {r.verdict for r in results} >= {"pass", "error"}
    for result in results:
        where = result.placement if result.verdict in ("pass", "fail", "divergent") else result.message
        assert ON_VULKAN[backend] in where, (result.case, result.graph, result.verdict, where)


def test_an_iree_refusal_names_its_stage() -> None:
    """TopK-10 is refused by IREE's compiler (its ONNX conversion starts at TopK-11): an error
    naming the compile stage, never a crash; TopK-11 of the same case passes."""
    (backend,) = by_name(["iree-cpu"])
    case = documented("onnx-test-top-k")
    refused = execute(case, backend, Variant("onnx", 10, "input"), GraphCache())
    taken = execute(case, backend, Variant("onnx", 11, "input"), GraphCache())
    assert refused.verdict == "error" and refused.message.startswith("IreeError: IREE compile (IREE llvm-cpu")
    assert "onnx.TopK" in refused.message and "Invoked with" not in refused.message
    assert taken.verdict == "pass" and taken.placement.startswith("IREE llvm-cpu on local-task")


def test_a_tvm_refusal_names_its_stage() -> None:
    """Relax's ONNX frontend takes K only as a constant: K fed as an input is refused at import."""
    (backend,) = by_name(["tvm-cpu"])
    case = documented("onnx-test-top-k")
    refused = execute(case, backend, Variant("onnx", 11, "input"), GraphCache())
    taken = execute(case, backend, Variant("onnx", 11, "constant"), GraphCache())
    assert refused.verdict == "error" and refused.message.startswith("TvmError: TVM import:")
    assert "k must be a constant" in refused.message
    assert taken.verdict == "pass" and taken.placement == tvm_relax.PLACEMENT


@pytest.mark.parametrize("name", ["iree-cpu", "tvm-cpu"])
def test_a_pack_names_the_graph_a_stage_refused(name: str) -> None:
    """A pack holding graphs the importer or compiler refuses names them (PackError), so that
    only they run alone; the others' answers are each graph's own."""
    (backend,) = by_name([name])
    good = _graph(11, [1, 3, 2, 0], 2)
    refused = _graph(10, [1, 3, 2, 0], 2) if name == "iree-cpu" else good  # TVM: K is an input
    pack = [good, refused, _graph(11, [5, 4, 6], 1), refused] if name == "iree-cpu" else [good, good, _const()]
    with pytest.raises(PackError) as raised:
        backend.run_pack(pack)
    assert list(raised.value.culprits) == ([1, 3] if name == "iree-cpu" else [0, 1])
    if name == "tvm-cpu":
        (execution,) = backend.run_pack([_const()])
        assert list(execution.outputs["indices"][0]) == [1, 2]
    if name == "iree-cpu":
        executions = backend.run_pack([good, _graph(11, [5, 4, 6], 1)])
        assert [list(e.outputs["indices"][0]) for e in executions] == [[1, 2], [2]]


def test_graphs_the_same_up_to_their_name_are_one_function() -> None:
    a, b, c = _graph(11, [1, 2], 1, "same"), _graph(11, [2, 1], 1, "same"), _graph(11, [1, 2, 3], 1, "other")
    functions = functions_of([a, b, c, _graph(11, [0, 1], 1)])
    assert functions.function_of == (0, 0, 1, 2) and len(functions.distinct) == 3
    assert functions.graphs_of([0]) == [0, 1]
    (backend,) = by_name(["iree-cpu"])
    executions = backend.run_pack([a, b, c])
    assert [list(e.outputs["indices"][0]) for e in executions] == [[1], [0], [2]]


def _compared(result: Result) -> tuple[Any, ...]:
    return (result.case, result.graph, result.k_source, result.verdict, tuple(result.rules), result.message)


@pytest.mark.parametrize("name", ["iree-cpu", "tvm-cpu"])
def test_packs_change_no_result(name: str) -> None:
    """cases/documented packed (64 graphs a module) and alone: the same verdict, rules and
    message for every result."""
    cases = load_cases([DOCUMENTED]).cases
    backends = by_name([name])
    alone = run_cases(cases, backends, executors=Executors(timeout=120, jobs=1, pack=1))
    packed = run_cases(cases, backends, executors=Executors(timeout=120, jobs=1, pack=64))
    assert sorted(map(_compared, packed)) == sorted(map(_compared, alone))
    assert sum(r.compilations or 0 for r in packed) < sum(r.compilations or 0 for r in alone)
