"""`topk-conformance fuzz`: a short run on openvino-cpu finds a discrepancy the committed
baseline already knows, writes it as a case that loads and reproduces; discrepancies are
grouped by signature (each found once, the budget moving on to others); the example
database persists between runs; the minimal inputs are small."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from harness import BASELINES, CASES, documented, run_cli
from pack_backends import EveryPackDies, EveryPackHangs

from conformance import fuzz, fuzz_known
from conformance.backends.base import Execution, Graph
from conformance.backends.onnx_reference import OnnxReference
from conformance.cases.loader import load_cases, load_file
from conformance.gate import Baseline, Entry
from conformance.ops.topk.case import Case
from conformance.ops.topk.fuzz import FuzzInput
from conformance.running.suite import Executors

pytest.importorskip("hypothesis")

OPENVINO = "openvino-cpu"


@pytest.fixture(scope="module")
def openvino_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("fuzz-openvino")
    completed = run_cli("fuzz", "--backend", OPENVINO, "--budget", "20", "--seed", "11", "--dtype", "float32",
                        "--out", out, "--baseline", BASELINES / f"{OPENVINO}.yaml", timeout=240)
    assert completed.returncode == 0, completed.stderr[-3000:]
    (out / "stdout.txt").write_text(completed.stdout)
    return out, json.loads((out / "fuzz.json").read_text())


def _baseline_kinds(backend: str) -> set[tuple[str, str, str, tuple[str, ...]]]:
    from harness import baseline

    return {(e.graph, e.k_source, e.verdict, e.rules) for e in baseline(backend).entries.values()}


def test_a_short_run_finds_a_known_kind_of_discrepancy_and_writes_a_case_that_reproduces(
        openvino_run: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    _, summary = openvino_run
    found = summary["findings"]
    assert found, "20 s on openvino-cpu found nothing"
    assert 0 < summary["packed"] <= summary["searched"], summary  # packs by default where the backend runs them
    known = _baseline_kinds(OPENVINO)
    kinds = {(f["graph"], f["k_source"], f["verdict"], tuple(f["rules"])) for f in found}
    assert kinds & known, f"none of {sorted(kinds)} is a kind the committed baseline records"
    for finding in found:
        path = Path(finding["file"])
        loaded = load_file(path)
        assert len(loaded) == 1 and isinstance(loaded[0], Case), [str(item) for item in loaded]
        case = loaded[0]
        assert case.id == finding["case"] == path.stem
        assert "fuzz" in case.tags and case.input_spec["dtype"] == finding["signature"]["dtype"]
        text = path.read_text()
        assert "seed 11" in text and "openvino" in case.source and "# Versions:" in text
        assert finding["reproduced"], finding
    # The same verdict again, through the suite's own `run` (a fresh process and worker).
    first = found[0]
    completed = run_cli("run", "--cases", first["file"], "--backend", OPENVINO, "--out", tmp_path)
    assert completed.returncode == 0, completed.stderr[-3000:]
    results = json.loads((tmp_path / "results.json").read_text())["results"]
    again = next(r for r in results if (r["graph"], r["k_source"]) == (first["graph"], first["k_source"]))
    assert (again["verdict"], again["rules"]) == (first["verdict"], first["rules"])


def test_with_a_baseline_each_signature_names_an_entry_of_its_class_or_says_it_has_none(
        openvino_run: tuple[Path, dict[str, Any]]) -> None:
    """fuzz --baseline: a signature whose class (graph, rule, element type of the entry's case)
    the baseline records names the entry, one it lacks says so: what to keep is read off."""
    from harness import baseline

    out, summary = openvino_run
    recorded = baseline(OPENVINO)
    dtypes = {case.id: case.dtype_name for case in load_cases([CASES]).cases}
    assert summary["baseline"] == str(BASELINES / f"{OPENVINO}.yaml")
    signatures = summary["signatures"]
    assert signatures and all("known_like" in s for s in signatures)
    like = [s for s in signatures if s["known_like"]]
    assert like, "20 s of float32 on openvino-cpu found only classes its baseline lacks"
    for signature in like:
        entry = next(e for e in recorded.entries.values() if (e.case, e.graph, e.k_source) == (
            signature["known_like"]["case"], signature["known_like"]["graph"], signature["known_like"]["k_source"]))
        assert entry.graph == signature["graph"] and dtypes[entry.case] == signature["dtype"]
        assert signature["rule"] in fuzz_known.rules_broken(entry.verdict, entry.rules)
        assert signature["known_like"]["note"] == entry.note
    lacking = sum(s["known_like"] is None for s in signatures)
    printed = " ".join((out / "stdout.txt").read_text().split())
    assert f"{lacking} of {len(signatures)} signatures of a class" in printed, printed[-2000:]
    assert "known class, like " in printed


def test_a_baseline_entry_gives_the_classes_of_its_verdict_for_its_backend_and_operator_only() -> None:
    case = documented("dml-top-k1-example-1")
    entries = [Entry("b", case.id, "onnx-opset11", "constant", "fail", ("order", "gather")),
               Entry("b", case.id, "onnx-opset24", "constant", "error"),
               Entry("b", case.id, "onnx-opset24", "input", "crash", note="n"),
               Entry("other", case.id, "onnx-opset11", "constant", "fail", ("shape",)),
               Entry("b", case.id, "onnx-opset11", "constant", "fail", ("shape",), op="argmax"),
               Entry("b", "not-in-the-corpus", "onnx-opset11", "constant", "fail", ("index-range",))]
    recorded = Baseline(["b"], {entry.key: entry for entry in entries})
    known = fuzz_known.known_classes(recorded, "b.yaml", "b", "topk", {case.id: case})
    dtype = case.dtype_name
    assert set(known.by_signature) == {("b", "onnx-opset11", "order", dtype), ("b", "onnx-opset11", "gather", dtype),
                                        ("b", "onnx-opset24", "raised", dtype), ("b", "onnx-opset24", "crash", dtype)}
    assert known.describe(("b", "onnx-opset24", "crash", dtype)) == \
        f"known class, like {case.id} onnx-opset24 input, note n"
    assert known.describe(("b", "onnx-opset11", "shape", dtype)) == "a class the baseline lacks"


def test_fuzz_refuses_a_baseline_it_cannot_read_naming_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("results: [1, 2\n")
    completed = run_cli("fuzz", "--backend", "onnx-reference", "--baseline", bad, "--out", tmp_path / "out")
    assert completed.returncode == 2 and str(bad) in completed.stderr, completed.stderr
    assert not (tmp_path / "out").exists(), "nothing searched"


def test_each_signature_is_found_once(openvino_run: tuple[Path, dict[str, Any]]) -> None:
    out, summary = openvino_run
    signatures = [tuple(s[key] for key in ("backend", "graph", "rule", "dtype")) for s in summary["signatures"]]
    assert len(signatures) == len(set(signatures))
    targets = [tuple(f["signature"][key] for key in ("backend", "graph", "rule", "dtype")) for f in summary["findings"]]
    assert len(targets) == len(set(targets))
    assert sorted(p.name for p in out.glob("*.yaml")) == sorted(f"{f['case']}.yaml" for f in summary["findings"])


# --- a runtime with two bugs of its own, in this process: fast and deterministic ---------------


class TwoBugs(OnnxReference):
    """The reference evaluator, except: float32 outputs come back in reverse order (`order`
    breaks), and int32 values come back one too high (`gather` breaks)."""

    name = "fuzz-two-bugs"

    def run(self, graph: Graph) -> Execution:
        execution = super().run(graph)
        values, indices = execution.outputs["values"], execution.outputs["indices"]
        axis = graph.variant and _axis(graph)
        if values.dtype == np.float32 and values.size and values.shape[axis] > 1:
            values, indices = np.flip(values, axis).copy(), np.flip(indices, axis).copy()
        if values.dtype == np.int32:
            values = values + np.int32(1)
        return Execution.named(graph.outputs, [values, indices], execution.placement)


def _axis(graph: Graph) -> int:
    topk = next(node for node in graph.model.graph.node if node.op_type == "TopK")
    axis = next((a.i for a in topk.attribute if a.name == "axis"), -1)
    return int(axis)


def _fuzz(tmp_path: Path, budget: float, seed: int) -> fuzz.Session:
    executors = Executors(isolate=False)
    backend = TwoBugs()
    try:
        return fuzz.fuzz(backend, executors.for_backend(backend), tmp_path, budget, seed, ("float32", "int32"))
    finally:
        executors.close()


def test_the_budget_moves_on_to_other_signatures(tmp_path: Path) -> None:
    session = _fuzz(tmp_path, budget=8, seed=5)
    rules = {(signature[2], signature[3]) for signature in session.found}
    assert ("order", "float32") in rules and ("gather", "int32") in rules, sorted(session.found)
    found = fuzz.findings(session)
    assert len({f.signature for f in found}) == len(found) >= 2
    injected = {("order", "float32"), ("gather", "int32")}
    for finding in found:
        assert finding.reproduced, finding.reproduced_verdict
        if (finding.signature[2], finding.signature[3]) not in injected:
            # The reference evaluator's own (K > n on an empty tensor is not refused, see
            # docs/findings.md): found too when the budget reaches it; its minimum is not 1-D.
            continue
        # Minimal: one sequence of a few elements (K = 1 suffices for `gather`, a reversed
        # order needs two, and three where a NaN is to be misplaced).
        assert finding.example.x.ndim == 1 and finding.example.x.size <= 3, finding.example


def test_the_example_database_persists_between_runs(tmp_path: Path) -> None:
    first = _fuzz(tmp_path, budget=4, seed=1)
    shrunk = {f.shrunk.key() for f in fuzz.findings(first) if f.shrunk is not None}
    assert shrunk and any((tmp_path / ".hypothesis" / "examples").iterdir())
    second = _fuzz(tmp_path, budget=2, seed=2)
    # The next run asks first about what the last one found (hypothesis's reuse phase).
    assert second.first_example is not None and second.first_example.key() in shrunk
    assert set(first.found) & set(second.found)


def test_fuzz_refuses_an_unknown_backend_or_type(tmp_path: Path) -> None:
    assert run_cli("fuzz", "--backend", "no-such-backend", "--out", tmp_path).returncode == 2
    completed = run_cli("fuzz", "--backend", "onnx-reference", "--dtype", "float128", "--out", tmp_path)
    assert completed.returncode == 2 and "float128" in completed.stderr


def test_a_case_file_names_the_runs_seed_past_search_999() -> None:
    """Search i of `--seed N` runs hypothesis seed 1000 N + i: the header gives N back, also
    where i is 1000 or more (seed 2026, search 1673: hypothesis seed 2027673, still --seed 2026)."""
    from conformance.ops.topk.fuzz import FuzzInput
    from conformance.results.records import Result

    example = FuzzInput(np.array([0.0, 1.0], np.float32), axis=0, k=3)
    result = Result("c", "tract", "onnx-opset11", "constant", "fail", ["error"], op="topk")
    finding = fuzz.Finding(("tract", "onnx-opset11", "error", "float32"), example, result,
                           seed=2026 * 1000 + 1673, search=1673, all_results=[result])
    first = fuzz.case_text(finding, {}).splitlines()[0]
    assert "--seed 2026`" in first and "(search 1673, hypothesis seed 2027673)" in first, first


# --- packs: an input's graphs as one model, each graph's result as alone --------------------


PACK_EXAMPLES = (
    FuzzInput(np.array([[3, 1, 2, 5], [0, 7, 7, 1]], np.int32), axis=1, k=2),  # passes, mostly
    FuzzInput(np.array([1, 2, 2, 2, np.nan, 0], np.float32), axis=0, k=3, largest=False),  # NaN and ties
    FuzzInput(np.array([[1, 1], [1, 1], [0, 2]], np.float16), axis=0, k=1, stable=True),  # all tied columns
    FuzzInput(np.array([2**40 + 1, 2**40, -(2**62)], np.int64), axis=-1, k=2, sort="index"),
)


def test_an_inputs_graphs_in_a_pack_get_the_results_they_get_alone(tmp_path: Path) -> None:
    from conformance.backends.openvino_native import OpenVINO

    executors = Executors(timeout=60)
    try:
        backend = OpenVINO("CPU")
        (probed,) = executors.probe([backend])
        execute, takes = executors.for_backend(backend), probed.takes
        execute_pack = executors.packs_for(probed)
        assert execute_pack is not None, "OpenVINO runs packs"
        packed = fuzz.Session(backend, execute, tmp_path, 1, 60, takes=takes, execute_pack=execute_pack)
        alone = fuzz.Session(backend, execute, tmp_path, 1, 60, takes=takes)
        verdicts = set()
        for example in PACK_EXAMPLES:
            in_pack, by_itself = packed.results(example, packed.variants), alone.results(example, alone.variants)
            assert in_pack is not None and by_itself is not None
            assert [_judged(r) for r in in_pack] == [_judged(r) for r in by_itself], example
            verdicts |= {r.verdict for r in by_itself}
    finally:
        executors.close()
    assert packed.status.packs == packed.status.searched == len(PACK_EXAMPLES) and alone.status.packs == 0
    # Both ways were taken: passes from the pack, the others (whichever this CPU gives) alone.
    assert "pass" in verdicts and verdicts & {"fail", "divergent", "error"}, verdicts


def _judged(result: Any) -> tuple[Any, ...]:
    return (result.graph, result.k_source, result.verdict, tuple(result.rules), result.domain, result.message)


@pytest.mark.parametrize("backend", [EveryPackDies(), EveryPackHangs()], ids=["worker-dies", "worker-hangs"])
def test_a_pack_whose_worker_dies_or_hangs_leaves_every_graph_to_run_alone(backend: Any, tmp_path: Path) -> None:
    from conformance.backends.openvino_native import OpenVINO

    example = PACK_EXAMPLES[1]
    executors = Executors(timeout=15)
    try:
        (probed,) = executors.probe([backend])
        packed = fuzz.Session(backend, executors.for_backend(backend), tmp_path, 1, 60, takes=probed.takes,
                              execute_pack=executors.packs_for(probed))
        in_pack = packed.results(example, packed.variants)
    finally:
        executors.close()
    alone = Executors(timeout=60)
    try:
        reference = OpenVINO("CPU")
        (answer,) = alone.probe([reference])
        session = fuzz.Session(reference, alone.for_backend(reference), tmp_path, 1, 60, takes=answer.takes)
        by_itself = session.results(example, session.variants)
    finally:
        alone.close()
    assert in_pack is not None and by_itself is not None
    assert [_judged(r) for r in in_pack] == [_judged(r) for r in by_itself]
    assert packed.status.packs == 0 and packed.status.searched == 1

