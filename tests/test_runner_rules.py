"""How the runner turns a case into verdicts beyond one graph run once, on the real
runtimes (onnx reference, ONNX Runtime CPU, OpenVINO CPU): a runtime's graph-building API
refusing a graph is that runtime's verdict, not a skip; a case that expects an error
reaches the runtime even where onnx.checker rejects its graph, and the checker's word is
kept beside the runtime's; `graphs: [...]` limits a case to some graphs, the others
skipping with that reason; `repeat: N` runs one built graph N times, judges every run and
keeps the worst. Fault injection (a backend that misbehaves on a chosen run) is the only
stand-in, and it is the real onnx-reference on every other run."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime
import pytest
from harness import cases_from_yaml, documented

from conformance.backends.base import BackendCrash, Execution, Graph
from conformance.backends.onnx_reference import OnnxReference
from conformance.backends.openvino_native import OpenVINO
from conformance.backends.ort_cpu import OrtCpu
from conformance.backends.registry import by_name
from conformance.ops.topk.case import Case
from conformance.ops.topk.variants import Variant
from conformance.results.records import Result
from conformance.running.probed import variants_taken
from conformance.running.runner import GraphCache, execute
from conformance.running.suite import run_cases
from conformance.running.workers import takes_here

CASES = """
cases:
  - id: k-above-axis
    source: test_runner_rules
    input: {dtype: float32, shape: [2, 5], data: [[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]]}
    axis: 1
    k: 6
    expect_error: true
  - id: k-negative
    source: test_runner_rules
    input: {dtype: float32, shape: [2, 5], data: [[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]]}
    axis: 1
    k: -1
    expect_error: true
  - id: k-zero
    source: test_runner_rules
    input: {dtype: float32, shape: [2, 5], data: [[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]]}
    axis: 1
    k: 0
  - id: unsorted
    source: test_runner_rules
    input: {dtype: float32, shape: [2, 5], data: [[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]]}
    axis: 1
    k: 2
    sort: none
  - id: limited
    source: test_runner_rules
    input: {dtype: float32, shape: [1, 1, 3, 4], data: [[[[1, 2, 2, 3], [3, 4, 5, 5], [6, 6, 6, 6]]]]}
    axis: 3
    k: 3
    graphs: [onnx-opset1, openvino-topk11-stable]
  - id: repeated
    source: test_runner_rules
    input: {dtype: float32, shape: [1, 1, 3, 4], data: [[[[1, 2, 2, 3], [3, 4, 5, 5], [6, 6, 6, 6]]]]}
    axis: 3
    k: 3
    repeat: 3
"""


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Case]:
    path = tmp_path_factory.mktemp("runner") / "cases.yaml"
    return {case.id: case for case in cases_from_yaml(path, CASES)}


def one(case: Case, backend: Any, variant: Variant) -> Result:
    return execute(case, backend, variant, GraphCache())


# --- a runtime's graph-building API refusing a graph is the runtime's verdict -----------

@pytest.mark.parametrize("k_source", ["constant", "input"])
def test_openvino_refusing_stable_with_sort_none_is_an_error_not_a_skip(cases: dict[str, Case], k_source: str) -> None:
    """TopK-11's spec defines stable=true with sort=none (stable just has no effect);
    OpenVINO's opset API refuses to build it. That is OpenVINO's answer: an error with its
    message, naming the call."""
    result = one(cases["unsorted"], OpenVINO("CPU"), Variant("openvino", 11, k_source, True))
    assert result.verdict == "error", result
    assert result.message.startswith("openvino.opset11.topk refused the graph: RuntimeError: ")
    assert "Stable sort can only be used when TopK's sorting mode is set to 'VALUE' or 'INDEX'" in result.message
    assert result.profile == "OpenVINO sort=none"
    # The same case through stable=false builds and runs.
    assert one(cases["unsorted"], OpenVINO("CPU"), Variant("openvino", 11, k_source, False)).verdict == "pass"


@pytest.mark.parametrize("version", [11, 3, 1])
def test_openvino_refusing_a_negative_k_is_the_error_an_expect_error_case_wants(
    cases: dict[str, Case], version: int,
) -> None:
    result = one(cases["k-negative"], OpenVINO("CPU"), Variant("openvino", version, "constant",
                                                                 True if version == 11 else None))
    assert result.verdict == "pass", result
    assert result.message.startswith(f"raised as expected: openvino.opset{version}.topk refused the graph: ")
    assert "cmp::ge(k, 0)" in result.message
    assert result.domain == "undefined"


def test_openvino_refusing_a_sub_byte_constant_k_is_an_error(cases: dict[str, Case]) -> None:
    """K is "a scalar of any integer type"; OpenVINO's shape inference cannot read a u2 one."""
    case = dataclasses.replace(cases["unsorted"], id="u2-k", sort="value")
    result = one(case, OpenVINO("CPU"), Variant("openvino", 11, "constant", True, "u2"))
    assert result.verdict == "error", result
    assert result.message.startswith("openvino.opset11.topk refused the graph: ")
    assert "Element not supported" in result.message


def test_a_refusal_inside_a_worker_process_is_the_same_verdict(cases: dict[str, Case]) -> None:
    """The native graph is built in the backend's worker, as it runs there."""
    variant = Variant("openvino", 11, "constant", True)
    (result,) = [r for r in run_cases([cases["unsorted"]], [OpenVINO("CPU")], isolate=True)
                 if (r.graph, r.k_source) == (variant.graph, variant.k_label)]
    assert result.verdict == "error" and "openvino.opset11.topk refused the graph" in result.message


def test_what_the_dialect_cannot_express_stays_a_skip() -> None:
    case = documented("ov-topk11-spec-example-stable")  # sort: index, which ONNX has not
    result = one(case, OrtCpu(), Variant("onnx", 11, "constant"))
    assert result.verdict == "skip" and "no sort-by-index" in result.message


# --- expect_error cases reach the runtime even where onnx.checker rejects the graph ------

@pytest.mark.parametrize("backend", [OrtCpu(), OpenVINO("CPU"), OnnxReference()], ids=lambda b: b.name)
@pytest.mark.parametrize("opset", [10, 11, 24])
def test_k_above_the_axis_as_an_initializer_reaches_the_runtime(
    cases: dict[str, Case], backend: Any, opset: int,
) -> None:
    result = one(cases["k-above-axis"], backend, Variant("onnx", opset, "constant"))
    assert result.verdict == "pass", result
    assert result.message.startswith("raised as expected: ")
    assert result.checker.startswith("rejected: [ShapeInferenceError]")
    assert "Axis has less than the requested k elements" in result.checker
    assert result.domain == "undefined"


def test_the_runtime_s_verdict_is_kept_when_it_returns_outputs(cases: dict[str, Case]) -> None:
    """A runtime that computes an unchecked K > n graph fails the case's `error` rule,
    whatever the checker said."""

    class Lenient(OnnxReference):
        """onnx-reference that clips K to the axis (fault injection: a runtime without a check)."""

        name = "lenient-reference"

        def run(self, graph: Graph) -> Execution:
            x = graph.feeds["X"]
            order = np.argsort(-x, axis=1, kind="stable")
            return Execution(np.take_along_axis(x, order, axis=1), order, placement="lenient")

    result = one(cases["k-above-axis"], Lenient(), Variant("onnx", 11, "constant"))
    assert (result.verdict, result.rules) == ("fail", ["error"]), result
    assert result.checker.startswith("rejected: ")


def test_an_accepted_graph_has_no_checker_note(cases: dict[str, Case]) -> None:
    for variant in (Variant("onnx", 11, "input"), Variant("onnx", 11, "constant", dynamic=True)):
        result = one(cases["k-above-axis"], OrtCpu(), variant)
        assert result.verdict == "pass" and result.checker == "", result
    assert one(cases["unsorted"], OrtCpu(), Variant("onnx", 11, "constant")).checker == ""


def test_a_rejected_graph_of_an_ordinary_case_stays_a_skip(cases: dict[str, Case]) -> None:
    """K = 0 as the opset-1 attribute: ONNX calls the model invalid, and the case does not
    ask for an error, so the dialect cannot express it."""
    result = one(cases["k-zero"], OrtCpu(), Variant("onnx", 1, "attribute"))
    assert result.verdict == "skip", result
    assert result.message.startswith("onnx.checker rejects the graph: ")
    assert result.checker.startswith("rejected: ") and "Invalid value for attribute k" in result.checker


# --- graphs: [...] ------------------------------------------------------------------------

def test_a_case_limited_to_some_graphs_skips_the_others_saying_so(cases: dict[str, Case]) -> None:
    backends = by_name(["onnx-reference", "ort-cpu", "openvino-cpu"])
    results = run_cases([cases["limited"]], backends, isolate=False)
    every = sum(len(variants_taken(takes_here(b), cases["limited"])) for b in backends)
    assert len(results) == every, "every variant keeps a result"
    reason = "the case is limited to graphs onnx-opset1, openvino-topk11-stable"
    for result in results:
        if result.graph in ("onnx-opset1", "openvino-topk11-stable"):
            assert result.message != reason
            if result.k_source in ("attribute", "constant", "input"):
                assert result.verdict == "pass", result
        else:
            assert (result.verdict, result.message) == ("skip", reason), result
    ran = {(r.backend, r.graph) for r in results if r.verdict != "skip"}
    assert ("ort-cpu", "onnx-opset1") in ran and ("openvino-cpu", "openvino-topk11-stable") in ran
    assert not any(graph in ("onnx-opset10", "onnx-opset11") for _, graph in ran), "a prefix ends at a dash"


# --- repeat: N ------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", [OrtCpu(), OpenVINO("CPU"), OnnxReference()], ids=lambda b: b.name)
def test_repeat_runs_the_graph_n_times_and_says_they_agreed(cases: dict[str, Case], backend: Any) -> None:
    variant = Variant("onnx", 11, "constant")
    result = one(cases["repeated"], backend, variant)
    assert result.verdict == "pass", result
    assert result.message == "3 runs: identical"
    assert [run["run"] for run in result.runs] == [1, 2, 3]
    assert [(run["verdict"], run["outcome"]) for run in result.runs] == [("pass", 1)] * 3
    assert result.seconds == pytest.approx(sum(run["seconds"] for run in result.runs), abs=1e-5)


def test_repeat_keeps_a_known_failure_and_its_message(cases: dict[str, Case]) -> None:
    """openvino-cpu breaks ONNX's tie order with K as an input (tests/baselines): the same
    on every run, so the runs agree and the verdict is the failure."""
    result = one(cases["repeated"], OpenVINO("CPU"), Variant("onnx", 11, "input"))
    assert (result.verdict, result.rules) == ("fail", ["tie-order"]), result
    assert result.message.startswith("3 runs: identical; tie-order broken under ONNX sorted=1")
    assert result.discrepancy is not None and result.discrepancy["rule"] == "tie-order"


def test_repeat_opens_one_session(cases: dict[str, Case], monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[Any] = []
    real = onnxruntime.InferenceSession

    def counting(*args: Any, **kwargs: Any) -> Any:
        opened.append(real(*args, **kwargs))
        return opened[-1]

    monkeypatch.setattr(onnxruntime, "InferenceSession", counting)
    result = one(cases["repeated"], OrtCpu(), Variant("onnx", 11, "input"))
    assert result.verdict == "pass" and len(result.runs) == 3
    assert len(opened) == 1, "one session for the three runs"


class Scripted(OnnxReference):
    """Fault injection: the real onnx-reference, except on the runs `script` names, which
    raise, crash, or return the reference's output with two tied indices swapped in the
    last sequence (ONNX's tie order broken)."""

    name = "scripted-reference"

    def __init__(self, script: dict[int, str]) -> None:
        self.script = script
        self.graphs: list[Graph] = []

    def run(self, graph: Graph) -> Execution:
        self.graphs.append(graph)
        action = self.script.get(len(self.graphs), "")
        if action == "raise":
            raise RuntimeError("injected runtime error")
        if action == "crash":
            raise BackendCrash("injected: the runtime's process died")
        execution = super().run(graph)
        if action == "swap":
            indices = execution.outputs["indices"].copy()
            indices[0, 0, 2, [1, 2]] = indices[0, 0, 2, [2, 1]]  # the row of four 6s
            return dataclasses.replace(execution, outputs={**execution.outputs, "indices": indices})
        return execution


@pytest.mark.parametrize(("script", "verdict", "verdicts"), [
    ({2: "swap"}, "fail", ["pass", "fail", "pass"]),
    ({2: "raise"}, "error", ["pass", "error", "pass"]),
    ({1: "raise", 3: "swap"}, "fail", ["error", "pass", "fail"]),
    ({3: "crash"}, "crash", ["pass", "pass", "crash"]),
    ({1: "swap", 2: "crash"}, "crash", ["fail", "crash"]),
])
def test_repeat_keeps_the_worst_verdict(
    cases: dict[str, Case], script: dict[int, str], verdict: str, verdicts: list[str],
) -> None:
    """crash > fail > error > divergent > pass; every run is judged; a crash ends the runs."""
    backend = Scripted(script)
    result = one(cases["repeated"], backend, Variant("onnx", 11, "constant"))
    assert result.verdict == verdict, result
    assert [run["verdict"] for run in result.runs] == verdicts
    assert len(backend.graphs) == len(verdicts)
    assert all(graph is backend.graphs[0] for graph in backend.graphs), "one built graph for every run"
    if len(verdicts) < 3:
        assert result.message.startswith(f"{len(verdicts)} of 3 runs: ")


def test_repeat_says_which_run_differed_and_where(cases: dict[str, Case]) -> None:
    result = one(cases["repeated"], Scripted({2: "swap"}), Variant("onnx", 11, "constant"))
    assert result.message.startswith(
        "3 runs: 2 distinct outputs; run 2 differed first at sequence [0, 0, 2]; run 2: tie-order broken"
    ), result.message
    assert [run["outcome"] for run in result.runs] == [1, 2, 1]
    assert result.rules == ["tie-order"] and result.discrepancy is not None


def test_repeat_says_when_a_run_raised_instead(cases: dict[str, Case]) -> None:
    result = one(cases["repeated"], Scripted({3: "raise"}), Variant("onnx", 11, "constant"))
    assert result.message.startswith(
        "3 runs: 2 distinct outcomes; run 3 differed first (raised (RuntimeError: injected runtime error)"
        " where run 1 returned outputs); run 3: RuntimeError: injected runtime error"
    ), result.message


def test_repeat_through_a_worker(cases: dict[str, Case]) -> None:
    results = run_cases([cases["repeated"]], [OrtCpu()], isolate=True)
    assert results and all(r.verdict in ("pass", "skip") for r in results), results
    ran = [r for r in results if r.verdict == "pass"]
    assert ran and all(r.message == "3 runs: identical" and len(r.runs) == 3 for r in ran)


def test_a_single_run_reads_as_before(cases: dict[str, Case]) -> None:
    single = dataclasses.replace(cases["repeated"], repeat=1)
    result = one(single, OrtCpu(), Variant("onnx", 11, "constant"))
    assert (result.verdict, result.message, result.runs) == ("pass", "", [])


def test_results_keep_the_new_fields_through_the_file(tmp_path: Path, cases: dict[str, Case]) -> None:
    from conformance.results.records import ResultsFile, read_results, write_results

    results = [
        one(cases["repeated"], OrtCpu(), Variant("onnx", 11, "input", dynamic=True)),
        one(cases["k-above-axis"], OrtCpu(), Variant("onnx", 11, "constant")),
    ]
    write_results(tmp_path / "results.json", ResultsFile({}, {}, [], results))
    again = read_results(tmp_path / "results.json").results
    assert [(r.x_shape, r.k_source, r.checker[:9], len(r.runs)) for r in again] == [
        ("dynamic", "input-dynamic-shape", "", 3), ("static", "constant", "rejected:", 0),
    ]
