"""Graph reuse and parallel runs change no verdict: a representative part of the corpus
(cases/documented and cases/directml) on onnx-reference, ort-cpu and openvino-cpu gives
the same verdict, rules and domain for every result with graph reuse on and off, and with
--jobs 1 and --jobs 2; results.json lists them in the same order either way. Reuse happens
only between graphs that are the same up to their name."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from harness import CASES, DOCUMENTED, cases_from_yaml, documented, run_cli

from conformance.backends.base import Graph
from conformance.backends.compiled import Compiled
from conformance.backends.openvino_native import OpenVINO
from conformance.backends.ort_cpu import OrtCpu
from conformance.operator.signatures import model_signature, onnx_signature
from conformance.ops.topk.case import Case
from conformance.ops.topk.onnx import build_onnx
from conformance.ops.topk.openvino import build_openvino
from conformance.ops.topk.variants import Variant
from conformance.results.records import Result
from conformance.results.timing import flag_cliffs
from conformance.running.probed import variants_taken
from conformance.running.runner import GraphCache, execute, signature
from conformance.running.suite import run_cases
from conformance.running.workers import takes_here

BACKENDS = ("onnx-reference", "ort-cpu", "openvino-cpu")
SUBSET = (DOCUMENTED, CASES / "directml")


def _run(out: Path, cases: tuple[Path, ...], *options: str) -> list[dict[str, Any]]:
    args: list[str | Path] = ["run", "--out", out]
    for backend in BACKENDS:
        args += ["--backend", backend]
    for path in cases:
        args += ["--cases", path]
    completed = run_cli(*args, *options, timeout=900)
    assert completed.returncode == 0, completed.stderr
    results: list[dict[str, Any]] = json.loads((out / "results.json").read_text())["results"]
    return results


def _judged(results: list[dict[str, Any]]) -> dict[tuple[str, ...], tuple[Any, ...]]:
    keyed = {(r["case"], r["backend"], r["graph"], r["k_source"]): (r["verdict"], r["rules"], r["domain"])
             for r in results}
    assert len(keyed) == len(results), "a result key appears twice"
    return keyed


def _differences(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> list[str]:
    left, right = _judged(a), _judged(b)
    assert left.keys() == right.keys()
    return [f"{key}: {left[key]} vs {right[key]}" for key in left if left[key] != right[key]]


def test_graph_reuse_and_jobs_change_no_verdict(tmp_path: Path) -> None:
    """One test (the runs take minutes; xdist would repeat a shared fixture per worker):
    the subset with reuse on and --jobs 2 (the defaults on a 2-core machine), with reuse
    off, and cases/documented with --jobs 1."""
    reuse = _run(tmp_path / "a", SUBSET, "--jobs", "2")
    no_reuse = _run(tmp_path / "b", SUBSET, "--jobs", "2", "--no-graph-reuse")
    sequential = _run(tmp_path / "c", (DOCUMENTED,), "--jobs", "1")
    assert _differences(reuse, no_reuse) == []
    documented_ids = {r["case"] for r in sequential}
    parallel = [r for r in reuse if r["case"] in documented_ids]
    assert _differences(parallel, sequential) == []
    order = [[(r["case"], r["backend"], r["graph"], r["k_source"]) for r in run] for run in (parallel, sequential)]
    assert order[0] == order[1], "results.json lists results in one order, whatever --jobs was"
    assert [r["case"] for r in reuse] == [r["case"] for r in no_reuse]

    compiled = {}
    for name, results in (("reuse", reuse), ("no-reuse", no_reuse)):
        # Every graph that reached its backend; not those OpenVINO's API refused as they were built.
        ran = [r for r in results
               if r["verdict"] not in ("skip", "crash") and "refused the graph" not in r["message"]]
        assert ran and all(r["compile_seconds"] is not None and r["run_seconds"] is not None for r in ran)
        refused = [r for r in results if "refused the graph" in r["message"]]
        assert refused and all(r["compile_seconds"] is None and r["compilations"] is None for r in refused)
        assert all(r["compile_seconds"] + r["run_seconds"] <= r["seconds"] + 1e-3 for r in ran)
        compiled[name] = {b: sum(r["compilations"] for r in ran if r["backend"] == b) for b in BACKENDS}
        if name == "no-reuse":
            # One session per graph at most (a repeated case's runs share one; OpenVINO's
            # ONNX frontend may refuse a graph before anything is compiled).
            assert all(r["compilations"] in (0, 1) for r in ran)
    for backend in BACKENDS:
        assert compiled["reuse"][backend] < compiled["no-reuse"][backend], backend


def test_reused_sessions_are_exactly_equal_graphs() -> None:
    """Signatures: equal for graphs that differ only in the case (the graph's name), in the
    data and, where K is an input, in K; different for anything the graph computes with."""
    first, second = documented("dml-top-k1-example-3"), documented("dml-top-k1-example-4")
    same_shape = Case(id="another", source="test", file=Path("<test>"), x=first.x * 2, axis=first.axis,
                      k=1, largest=first.largest)
    for variant in (Variant("onnx", 11, "input"), Variant("openvino", 11, "input", True)):
        graphs = [GraphCache().get(case, variant) for case in (first, same_shape)]
        assert graphs[0].signature and graphs[0].signature == graphs[1].signature, variant.label
    for variant in (Variant("onnx", 11, "constant"), Variant("openvino", 11, "constant", True)):
        graphs = [GraphCache().get(case, variant) for case in (first, same_shape)]
        assert graphs[0].signature != graphs[1].signature, f"K differs: {variant.label}"
    assert first.largest != second.largest
    for variant in variants_taken(takes_here(OpenVINO("CPU")), op="topk"):
        if variant.cannot_express(first) or variant.cannot_express(second):
            continue
        try:
            graphs = [GraphCache().get(case, variant) for case in (first, second)]
        except Exception:
            continue
        assert graphs[0].signature != graphs[1].signature, variant.label
    # Static and dynamic shapes, stable and unstable, TopK versions: never equal.
    static = onnx_signature(build_onnx(first, Variant("onnx", 11, "input")))
    dynamic = onnx_signature(build_onnx(first, Variant("onnx", 11, "input", dynamic=True)))
    assert static != dynamic
    native = {model_signature(build_openvino(first, v)) for v in (
        Variant("openvino", 11, "input", True), Variant("openvino", 11, "input", False),
        Variant("openvino", 3, "input"), Variant("openvino", 1, "input"),
        Variant("openvino", 11, "input", True, "i32"))}
    assert len(native) == 5
    # The reuse switch: no signature at all.
    assert GraphCache(reuse=False).get(first, Variant("onnx", 11, "input")).signature == ""


def test_signatures_leave_out_only_the_name() -> None:
    case = documented("dml-top-k1-example-3")
    model = build_onnx(case, Variant("onnx", 11, "input"))
    renamed = type(model)()
    renamed.CopyFrom(model)
    renamed.graph.name = "something else"
    assert onnx_signature(model) == onnx_signature(renamed)
    renamed.graph.node[0].attribute[0].i = 1 - renamed.graph.node[0].attribute[0].i  # another axis
    assert onnx_signature(model) != onnx_signature(renamed)
    graph = Graph(Variant("onnx", 11, "input"), model, {})
    assert signature(graph).startswith("onnx:")


def test_a_session_whose_run_raised_is_not_handed_to_another_graph() -> None:
    """OpenVINO's CPU plugin segfaults on an infer after an infer of the same request raised
    (K = 0 given as an input): such a request stays with its own graph only."""
    text = """
cases:
  - id: first
    source: test
    input: {dtype: float32, shape: [1, 4], data: [[1, 2, 2, 3]]}
    axis: 1
    k: 2
  - id: k-zero
    source: test
    input: {dtype: float32, shape: [1, 4], data: [[1, 2, 2, 3]]}
    axis: 1
    k: 0
  - id: k-zero-again
    source: test
    input: {dtype: float32, shape: [1, 4], data: [[4, 2, 2, 3]]}
    axis: 1
    k: 0
"""
    with tempfile.TemporaryDirectory() as folder:
        cases = cases_from_yaml(Path(folder) / "k.yaml", text)
    verdicts = {}
    for reuse in (True, False):
        # In a worker: without the rule, the third case's graphs segfault it (a `crash`).
        results = run_cases(cases, [OpenVINO("CPU")], graph_reuse=reuse, timeout=120)
        verdicts[reuse] = [(r.key, r.verdict, r.domain) for r in results]
    assert verdicts[True] == verdicts[False]
    assert "crash" not in {verdict for _, verdict, _ in verdicts[True]}


def test_compiled_cache_keeps_signed_entries_and_the_last_unsigned_graph() -> None:
    cache: Compiled[str] = Compiled(size=2)
    variant = Variant("onnx", 11, "input")
    a, b, c = (Graph(variant, object(), {}, signature=s) for s in ("a", "b", "c"))
    cache.put(a, "A")
    assert cache.get(Graph(variant, object(), {}, signature="a")) == "A"
    cache.put(b, "B")
    cache.put(c, "C")
    assert cache.get(a) is None and cache.get(c) == "C", "least recently used dropped"
    plain1, plain2 = Graph(variant, object(), {}), Graph(variant, object(), {})
    cache.put(plain1, "1")
    assert cache.get(plain1) == "1" and cache.get(plain2) is None
    cache.put(plain2, "2")
    assert cache.get(plain1) is None, "only the last unsigned graph is kept"
    cache.isolate(c, "C")
    assert cache.get(Graph(variant, object(), {}, signature="c")) is None
    assert cache.get(c) == "C", "the graph whose run raised keeps it (a repeated case's next run)"


def test_ort_reuses_one_session_for_graphs_equal_up_to_their_name() -> None:
    first = documented("dml-top-k1-example-3")
    again = Case(id="again", source="test", file=Path("<test>"), x=first.x[..., ::-1].copy(), axis=first.axis,
                 k=2, largest=first.largest)
    backend = OrtCpu()
    variant = Variant("onnx", 11, "input")
    results = [execute(case, backend, variant, GraphCache()) for case in (first, again, first)]
    assert [r.compilations for r in results] == [1, 0, 0]
    assert [r.verdict for r in results] == ["pass", "pass", "pass"]
    plain = [execute(case, backend, variant, GraphCache(reuse=False)) for case in (first, again)]
    assert [r.compilations for r in plain] == [1, 1]


def _timed(case: str, backend: str, seconds: float, graph: str = "onnx-opset11") -> Result:
    return Result(case, backend, graph, "constant", "pass", run_seconds=seconds, compile_seconds=0.0,
                  compilations=0)


def test_a_backend_20x_slower_than_the_others_on_a_case_is_flagged() -> None:
    results = [
        _timed("big", "ort-cpu", 0.002), _timed("big", "onnx-reference", 0.004),
        _timed("big", "openvino-cpu", 0.2, "openvino-topk11-stable"),
        _timed("big", "openvino-cpu", 0.15, "openvino-topk11-stable"),
        _timed("big", "openvino-cpu", 0.003, "openvino-topk11-unstable"),
        # One stalled call on a small case: its backend's median is not slow.
        _timed("small", "ort-cpu", 0.0001), _timed("small", "onnx-reference", 0.0001),
        _timed("small", "openvino-cpu", 0.5), _timed("small", "openvino-cpu", 0.0002),
        _timed("small", "openvino-cpu", 0.0002),
        # Slow everywhere: no cliff.
        _timed("slow", "ort-cpu", 1.0), _timed("slow", "openvino-cpu", 2.0),
    ]
    flagged = flag_cliffs(results)
    cliffs = [(r.case, r.backend, r.graph) for r in flagged if r.cliff]
    assert cliffs == [("big", "openvino-cpu", "openvino-topk11-stable")] * 2
    cliff = next(r.cliff for r in flagged if r.cliff)
    assert cliff is not None
    assert cliff["others"] == ["onnx-reference", "ort-cpu"] and cliff["others_median"] == 0.003
    assert cliff["ratio"] == pytest.approx(66.7, abs=0.1)


def test_the_summary_prints_compile_and_execution_time_per_backend(tmp_path: Path) -> None:
    completed = run_cli("run", "--cases", DOCUMENTED, "--case", "dml-top-k1-example-3", "--backend", "ort-cpu",
                        "--backend", "openvino-cpu", "--out", tmp_path, "--jobs", "2")
    assert completed.returncode == 0, completed.stderr
    assert "Time per backend" in completed.stdout
    rows = [line for line in completed.stdout.splitlines() if line.startswith(("│ ort-cpu", "│ openvino-cpu"))]
    assert len(rows) == 4, completed.stdout  # the verdict table's and the time table's
    results = json.loads((tmp_path / "results.json").read_text())["results"]
    assert all(r["cliff"] is None for r in results)


def test_jobs_must_be_positive(tmp_path: Path) -> None:
    completed = run_cli("run", "--cases", DOCUMENTED, "--backend", "ort-cpu", "--out", tmp_path, "--jobs", "0")
    assert completed.returncode == 2 and "must be 1 to 256, not 0" in completed.stderr

