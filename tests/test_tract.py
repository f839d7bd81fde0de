"""The tract backend (issue 19): ONNX graphs through tract's own loader, input facts from the
case, tract's refusals as its own messages, outputs as tract gives them, and unavailable with
the reason where the bindings are not installed."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from harness import cases_from_yaml, documented, ordinary_variants

tract = pytest.importorskip("tract", reason="the tract backend needs the [tract] extra")

from conformance.backends import tract_onnx  # noqa: E402 (after the skip: it is about tract)
from conformance.backends.registry import by_name  # noqa: E402
from conformance.backends.tract_onnx import BACKTRACE, Tract, input_fact  # noqa: E402
from conformance.ops.argmax.variants import Variant as ArgVariant  # noqa: E402
from conformance.ops.topk.variants import Variant  # noqa: E402
from conformance.running.probed import variants_taken  # noqa: E402
from conformance.running.runner import GraphCache, execute  # noqa: E402
from conformance.running.suite import run_cases  # noqa: E402
from conformance.running.workers import takes_here  # noqa: E402


def test_registered_available_and_describes_its_version() -> None:
    (backend,) = by_name(["tract"])
    assert backend.availability().available
    info = backend.describe()
    assert info["tract"] == tract.version()
    assert info["device"].startswith("tract cpu")


def test_unavailable_without_the_bindings_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> None:
        raise ImportError("No module named 'tract'")

    monkeypatch.setattr(tract_onnx, "tract_module", missing)
    status = Tract().availability()
    assert not status.available
    assert "tract is not installed" in status.reason and "[tract]" in status.reason and "tract==" in status.reason


def test_runs_every_onnx_graph_of_every_operator() -> None:
    backend = Tract()
    for op in ("topk", "argmax", "argmin"):
        variants = variants_taken(takes_here(backend), op=op)
        assert variants and all(v.kind == "onnx" for v in variants)
    assert {v.graph for v in ordinary_variants(backend)} == {
        "onnx-opset1", "onnx-opset10", "onnx-opset11", "onnx-opset24"}


def test_input_facts_come_from_the_case() -> None:
    """The feed's type and shape; a dimension the graph declares symbolic stays its symbol."""
    case = documented("dml-top-k1-example-3")  # float32 [1, 1, 3, 4]
    static = GraphCache().get(case, Variant("onnx", 11, "input"))
    declared = {value.name: value for value in static.model.graph.input}
    assert input_fact(static.feeds["X"], declared["X"]) == "1,1,3,4,f32"
    assert input_fact(static.feeds["K"], declared["K"]) == "1,i64"
    dynamic = GraphCache().get(case, Variant("onnx", 11, "constant", dynamic=True))
    declared = {value.name: value for value in dynamic.model.graph.input}
    assert input_fact(dynamic.feeds["X"], declared["X"]) == "X_dim0,X_dim1,X_dim2,X_dim3,f32"


@pytest.mark.parametrize("variant", [
    Variant("onnx", 11, "constant"), Variant("onnx", 11, "input"), Variant("onnx", 24, "input"),
    Variant("onnx", 11, "input", dynamic=True), Variant("onnx", 10, "constant"),
], ids=lambda v: v.label)
def test_documented_example_passes(variant: Variant) -> None:
    case = documented("dml-top-k1-example-3")
    result = execute(case, Tract(), variant, GraphCache())
    assert (result.verdict, result.placement) == ("pass", "tract cpu"), result.message


def test_k_as_an_input_is_fed_at_run_time(tmp_path: Path) -> None:
    """One runnable for K as a graph input: each case's K arrives with the run."""
    text = "cases:\n" + "".join(f"""
  - id: k{k}
    source: test_tract
    input: {{dtype: float32, shape: [5], data: [4, 1, 5, 2, 3]}}
    axis: 0
    k: {k}
""" for k in (1, 3, 5))
    backend = Tract()
    graphs = GraphCache()
    for case in cases_from_yaml(tmp_path / "k.yaml", text):
        result = execute(case, backend, Variant("onnx", 11, "input"), graphs)
        assert result.verdict == "pass", (case.id, result.message)
    assert backend._runnables is not None and len(backend._runnables) == 1  # one graph, three K


def test_a_refused_graph_is_an_error_with_tracts_own_message(monkeypatch: pytest.MonkeyPatch) -> None:
    """TopK-1 (K an attribute): tract's loader wants K as an input. Its message, verbatim, and
    never the backtrace its errors carry when RUST_BACKTRACE is set (in this process too)."""
    monkeypatch.setenv("RUST_BACKTRACE", "1")
    case = documented("dml-top-k1-example-3")
    result = execute(case, Tract(), Variant("onnx", 1, "attribute"), GraphCache())
    assert result.verdict == "error"
    assert result.message.startswith("TractError: Failed analyse for node")
    assert "Wrong input number. Rules expect 2, node has 1." in result.message
    assert BACKTRACE not in result.message


def test_outputs_come_back_in_tracts_own_type_and_bits(tmp_path: Path) -> None:
    """float16 values as their bits (-0.0 kept apart from +0.0), int64 indices: nothing cast."""
    (case,) = cases_from_yaml(tmp_path / "f16.yaml", """
cases:
  - id: f16-signed-zeros
    source: test_tract
    input: {dtype: float16, shape: [4], data: ["-0.0", 1, "-0.0", 0.0]}
    axis: 0
    k: 4
""")
    graph = GraphCache().get(case, Variant("onnx", 11, "constant"))
    outputs = Tract().run(graph).outputs
    assert outputs["values"].dtype == np.float16 and outputs["indices"].dtype == np.int64
    assert outputs["values"].view(np.uint16).tolist() == [0x3C00, 0x8000, 0x8000, 0x0000]
    assert outputs["indices"].tolist() == [1, 0, 2, 3]


def test_argmax_and_argmin_run_through_tract(tmp_path: Path) -> None:
    text = """
cases:
  - id: argmax-last
    source: test_tract
    op: argmax
    input: {dtype: int32, shape: [2, 3], data: [[1, 3, 3], [2, 2, 0]]}
    axis: 1
    select_last_index: true
    expected: {indices: [[2], [1]]}
  - id: argmin-first
    source: test_tract
    op: argmin
    input: {dtype: float64, shape: [2, 3], data: [[1, 3, 1], [2, 0, 0]]}
    axis: 1
    keepdims: false
    expected: {indices: [0, 1]}
"""
    for case in cases_from_yaml(tmp_path / "arg.yaml", text):
        result = execute(case, Tract(), ArgVariant(case.op, "onnx", 13), GraphCache())
        assert result.verdict == "pass", (case.id, result.message)


def test_a_panic_in_tract_is_a_crash_of_its_worker_only() -> None:
    """K = -1 as a constant: tract's typing asserts (a panic across its C API, an abort). The
    worker dies, the result is a crash, and the next graph runs on a fresh worker."""
    case = documented("dml-top-k1-example-3")
    negative = dataclasses.replace(case, id="k-negative", k=-1, expect_error=True, expected=None)
    results = run_cases([negative, case], [Tract()], isolate=True, timeout=60)
    by_case = {(r.case, r.graph, r.k_source): r.verdict for r in results}
    assert by_case[("k-negative", "onnx-opset11", "constant")] == "crash"
    assert by_case[("k-negative", "onnx-opset11", "input")] == "pass"  # a clean error, as expected
    assert by_case[("dml-top-k1-example-3", "onnx-opset11", "constant")] == "pass"
