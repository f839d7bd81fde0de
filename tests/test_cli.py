"""The command line as a CI script uses it (`python -m conformance`, no TTY, stdin closed,
CI=true): the results file of contract section 5, the report, plain progress lines, the
verdicts of the documented examples on the three backends every machine has (held to
per-backend baselines), merging results files, and bad input handled the documented way."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from harness import (
    CONTRACT_BACKENDS,
    DOCUMENTED,
    baseline,
    baseline_set,
    documented_cases,
    non_pass_set,
    run_cli,
)

from conformance.backends.registry import by_name
from conformance.progress import summary_table
from conformance.results.records import Result
from conformance.running.probed import variants_taken
from conformance.running.workers import takes_here

RUN_BACKENDS = ("onnx-reference", "ort-cpu", "openvino-cpu", "tract")
CONTRACT_FIELDS = ("case", "backend", "graph", "k_source", "verdict", "rules", "domain", "message", "seconds")
GRAPH_NAME = re.compile(r"^(onnx-opset\d+(-minimal)?|openvino-topk\d+(-stable|-unstable)?)$")
# Where K comes from, with a suffix where the graph takes its inputs otherwise: K's
# OpenVINO element type, or X's dimensions symbolic (docs/semantics.md).
K_SOURCE = re.compile(r"^(attribute|(constant|input)(-dynamic-shape|-(i4|i8|i16|i32|u1|u2|u3|u4|u6|u8|u16|u32|u64))?)$")
VERDICTS = {"pass", "divergent", "fail", "error", "crash", "skip"}


@dataclass
class Run:
    completed: subprocess.CompletedProcess[str]
    out: Path
    document: dict[str, Any]

    @property
    def results(self) -> list[dict[str, Any]]:
        results: list[dict[str, Any]] = self.document["results"]
        return results

    def of(self, backend: str) -> list[dict[str, Any]]:
        return [r for r in self.results if r["backend"] == backend]


def run_and_read(*args: str | Path, out: Path) -> Run:
    completed = run_cli("run", *args, "--out", out)
    document = {}
    if (out / "results.json").exists():
        document = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return Run(completed, out, document)


@pytest.fixture(scope="module")
def documented_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    out = tmp_path_factory.mktemp("documented-run")
    backends = [arg for name in RUN_BACKENDS for arg in ("--backend", name)]
    run = run_and_read("--cases", "cases/documented", *backends, out=out)
    assert run.completed.returncode == 0, run.completed.stderr
    return run


# --- the documented run ---------------------------------------------------------------

def test_run_writes_results_and_report(documented_run: Run) -> None:
    assert documented_run.completed.returncode == 0
    assert (documented_run.out / "results.json").is_file()
    assert (documented_run.out / "report.html").is_file()
    assert documented_run.document["case_errors"] == []
    assert "wrote" in documented_run.completed.stdout


def test_environment_names_platform_python_and_runtimes(documented_run: Run) -> None:
    environment = documented_run.document["environment"]
    assert environment["platform"] and isinstance(environment["platform"], str)
    assert re.fullmatch(r"\d+\.\d+\.\d+", environment["python"])
    packages = environment["packages"]
    for name in ("onnx", "onnxruntime", "openvino", "numpy"):
        assert packages[name] == metadata.version(name)


def test_every_result_has_the_contract_fields(documented_run: Run) -> None:
    results = documented_run.results
    assert results
    for result in results:
        missing = [f for f in CONTRACT_FIELDS if f not in result]
        assert not missing, (missing, result)
        assert result["verdict"] in VERDICTS
        assert GRAPH_NAME.match(result["graph"]), result["graph"]
        assert K_SOURCE.match(result["k_source"]), result["k_source"]
        assert result["x_shape"] == ("dynamic" if result["k_source"].endswith("-dynamic-shape") else "static")
        if result["x_shape"] == "dynamic":
            assert result["graph"] == "onnx-opset11", result
        assert isinstance(result["checker"], str) and result["runs"] == []
        assert result["domain"] in ("defined", "undefined")
        assert result["op"] == "topk"  # contract section 6: every result names its operator
        assert isinstance(result["rules"], list) and isinstance(result["message"], str)
        assert isinstance(result["seconds"], (int, float)) and result["seconds"] >= 0
        assert result["backend"] in RUN_BACKENDS
        if result["verdict"] == "fail":
            assert result["rules"], result
        if result["verdict"] in ("skip", "error", "divergent", "fail"):
            assert result["message"], result


def test_every_case_runs_every_variant_of_every_backend_once(documented_run: Run) -> None:
    keys = [(r["case"], r["backend"], r["graph"], r["k_source"]) for r in documented_run.results]
    assert len(keys) == len(set(keys)), "no result twice"
    backends = by_name(list(RUN_BACKENDS))
    counts = Counter((r["case"], r["backend"]) for r in documented_run.results)
    # A minimal case (attributes: minimal) runs the minimal twins of the ONNX graphs instead.
    expected = {(c.id, b.name): len(variants_taken(takes_here(b), c)) for c in documented_cases() for b in backends}
    assert counts == expected


def test_skips_are_dialect_limits_not_build_failures(documented_run: Run) -> None:
    for result in documented_run.results:
        if result["verdict"] == "skip":
            assert "not built" not in result["message"] and "checker" not in result["message"], result


def test_report_mentions_every_backend_and_case(documented_run: Run) -> None:
    html = (documented_run.out / "report.html").read_text(encoding="utf-8")
    for backend in RUN_BACKENDS:
        assert backend in html
    for case in documented_cases():
        assert case.id in html
    assert "tie-order" in html, "the report lists openvino-cpu's discrepancies"


def test_the_summary_is_titled_by_the_operators_it_counts() -> None:
    """A run of ArgMax alone is not called TopK's; several operators are named together."""
    argmax = Result("c", "ort-cpu", "onnx-opset13", "none", "pass", op="argmax")
    topk = Result("c", "ort-cpu", "onnx-opset11", "constant", "fail", op="topk")
    assert summary_table([argmax]).title == "argmax conformance: verdicts per backend"
    assert summary_table([argmax, topk]).title == "argmax, topk conformance: verdicts per operator and backend"


def test_plain_output_has_progress_lines_and_summary(documented_run: Run) -> None:
    stdout = documented_run.completed.stdout
    total = len(documented_run.results)
    progress = [line for line in stdout.splitlines() if line.startswith("progress:")]
    assert progress, stdout
    assert progress[-1].startswith(f"progress: {total}/{total} done")
    assert "\x1b[" not in stdout, "no terminal control codes when stdout is not a terminal"
    assert "topk conformance: verdicts per backend" in stdout
    counts = Counter((r["backend"], r["verdict"]) for r in documented_run.results)
    verdicts = stdout.split("topk conformance: verdicts per backend", 1)[1]  # printed last, after the time table
    for backend in RUN_BACKENDS:
        row = next(line for line in verdicts.splitlines() if f" {backend} " in line and "│" in line)
        numbers = re.findall(r"\d+", row.split(backend, 1)[1])
        assert [int(n) for n in numbers[:6]] == [
            counts[(backend, v)] for v in ("pass", "divergent", "fail", "error", "crash", "skip")
        ], row


def test_onnx_reference_passes_every_documented_example(documented_run: Run) -> None:
    judged = [r for r in documented_run.of("onnx-reference") if r["verdict"] != "skip"]
    assert judged
    assert [r for r in judged if r["verdict"] != "pass"] == []


def test_ort_cpu_passes_all_but_uint64(documented_run: Run) -> None:
    judged = [r for r in documented_run.of("ort-cpu") if r["verdict"] != "skip"]
    others = [r for r in judged if r["case"] != "onnx-test-top-k-uint64"]
    assert others and all(r["verdict"] == "pass" for r in others), [r for r in others if r["verdict"] != "pass"]
    uint64 = [r for r in judged if r["case"] == "onnx-test-top-k-uint64"]
    assert {r["graph"] for r in uint64} == {"onnx-opset11", "onnx-opset24"}
    for result in uint64:
        assert result["verdict"] == "error" and "NOT_IMPLEMENTED" in result["message"], result


def test_tract_passes_every_documented_example_but_topk1(documented_run: Run) -> None:
    """tract's ONNX loader takes K as an input at every opset: TopK-1 (K an attribute) is its one
    refusal, in tract's own words; every other graph gives the documented answer."""
    judged = [r for r in documented_run.of("tract") if r["verdict"] != "skip"]
    topk1 = ("onnx-opset1", "onnx-opset1-minimal")
    others = [r for r in judged if r["graph"] not in topk1]
    assert others and all(r["verdict"] == "pass" for r in others), [r for r in others if r["verdict"] != "pass"]
    for result in (r for r in judged if r["graph"] in topk1):
        assert result["verdict"] == "error", result
        assert "Wrong input number. Rules expect 2, node has 1." in result["message"], result


@pytest.mark.parametrize("backend", RUN_BACKENDS)
def test_non_pass_results_match_the_baseline(documented_run: Run, backend: str) -> None:
    """The documented examples' part of the committed gate baseline, exactly."""
    recorded = baseline(backend)
    assert recorded.backends == [backend]
    expected = baseline_set(recorded, cases={case.id for case in documented_cases()})
    got = non_pass_set(documented_run.of(backend))
    assert got == expected, (
        f"{backend} on the documented examples: new {sorted(got - expected)}, "
        f"gone {sorted(expected - got)}; baseline recorded with {recorded.recorded_with}"
    )


def test_openvino_cpu_discrepancies_are_ties_with_k_as_input(documented_run: Run) -> None:
    """What the baseline's notes claim: every openvino-cpu discrepancy is a tie order with K
    fed as an input or X's dimensions symbolic (ONNX graphs fail ONNX's strict tie rule,
    native unstable ones diverge), or OpenVINO refusing a sub-byte K type."""
    for result in documented_run.of("openvino-cpu"):
        if result["verdict"] in ("pass", "skip"):
            continue
        k_type = result["k_source"].split("-", 1)[1] if result["k_source"].startswith(("constant-u", "input-u")) else ""
        if k_type:
            assert k_type in ("u1", "u2", "u3", "u6") and result["verdict"] == "error", result
            if result["k_source"].startswith("constant"):
                assert result["message"].startswith("openvino.opset11.topk refused the graph: "), result
            continue
        assert result["k_source"] in ("input", "constant-dynamic-shape", "input-dynamic-shape"), result
        assert "ties" in next(c.tags for c in documented_cases() if c.id == result["case"])
        if result["graph"].startswith("onnx-"):
            assert (result["verdict"], result["rules"]) == ("fail", ["tie-order"]), result
        else:
            assert result["verdict"] == "divergent" and result["graph"] != "openvino-topk11-stable", result
            assert result["domain"] == "defined"


def test_openvino_cpu_treats_dynamic_shapes_like_k_as_input(documented_run: Run) -> None:
    """The finding behind the baseline's dynamic-shape group: with X's dimensions symbolic,
    a constant K breaks ONNX's tie order where the same graph with static dimensions keeps
    it; the other ONNX backends give the same verdict either way."""
    verdicts = {(r["backend"], r["case"], r["k_source"]): r["verdict"]
                for r in documented_run.results if r["graph"] == "onnx-opset11"}
    flipped = {case for (backend, case, k_source), verdict in verdicts.items()
               if backend == "openvino-cpu" and k_source == "constant-dynamic-shape"
               and verdict == "fail" and verdicts[(backend, case, "constant")] == "pass"}
    assert flipped, "some tie case passes with static dims and fails with symbolic ones"
    for backend in ("onnx-reference", "ort-cpu"):
        for case in {c for (b, c, _) in verdicts if b == backend}:
            for k_source in ("constant", "input"):
                assert verdicts[(backend, case, k_source)] == verdicts[(backend, case, f"{k_source}-dynamic-shape")]


# --- report: merging results files ------------------------------------------------------

def test_report_merges_results_files(tmp_path: Path) -> None:
    one_case = ("--cases", "cases/documented/directml-top-k1.yaml", "--case", "dml-top-k1-example-3")
    first = run_and_read(*one_case, "--backend", "onnx-reference", out=tmp_path / "a")
    second = run_and_read(*one_case, "--backend", "ort-cpu", out=tmp_path / "b")
    for run in (first, second):
        assert run.completed.returncode == 0, run.completed.stderr
        assert len({r["backend"] for r in run.results}) == 1
    completed = run_cli("report", tmp_path / "a" / "results.json", tmp_path / "b" / "results.json",
                        "--out", tmp_path / "merged")
    assert completed.returncode == 0, completed.stderr
    merged = json.loads((tmp_path / "merged" / "results.json").read_text(encoding="utf-8"))
    assert {r["backend"] for r in merged["results"]} == {"onnx-reference", "ort-cpu"}
    assert len(merged["results"]) == len(first.results) + len(second.results)
    keys = {(r["case"], r["backend"], r["graph"], r["k_source"]) for r in merged["results"]}
    assert keys == {(r["case"], r["backend"], r["graph"], r["k_source"]) for r in first.results + second.results}
    assert {"onnx-reference", "ort-cpu"} <= set(merged["backends"])
    html = (tmp_path / "merged" / "report.html").read_text(encoding="utf-8")
    assert "onnx-reference" in html and "ort-cpu" in html


# --- bad input ------------------------------------------------------------------------------

BAD_CASE = """cases:
  - id: bad-k-type
    source: "a malformed case"
    input:
      dtype: float32
      shape: [4]
      data: [1, 2, 3, 4]
    axis: 0
    k: three
"""


def test_malformed_case_file_is_reported_and_the_rest_runs(tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    cases.mkdir()
    for name in ("directml-top-k1.yaml", "directml-top-k.yaml"):
        shutil.copy(DOCUMENTED / name, cases / name)
    (cases / "bad.yaml").write_text(BAD_CASE, encoding="utf-8")
    run = run_and_read("--cases", cases, "--backend", "onnx-reference", out=tmp_path / "out")
    assert run.completed.returncode == 0, run.completed.stderr
    error_lines = [line for line in run.completed.stderr.splitlines() if "bad.yaml" in line]
    assert len(error_lines) == 1, run.completed.stderr
    line = error_lines[0]
    assert "case 'bad-k-type': k: " in line, line  # file, case id, field
    recorded = run.document["case_errors"]
    assert len(recorded) == 1 and "bad.yaml" in recorded[0] and "bad-k-type" in recorded[0]
    assert recorded[0] in line
    ran = {r["case"] for r in run.results}
    good = {c.id for c in documented_cases() if c.file.name in ("directml-top-k1.yaml", "directml-top-k.yaml")}
    assert ran == good and len(good) == 7
    assert all(r["verdict"] in ("pass", "skip") for r in run.results)
    assert "bad-k-type" in (tmp_path / "out" / "report.html").read_text(encoding="utf-8")


def test_unknown_backend_exits_2_naming_the_known_ones(tmp_path: Path) -> None:
    completed = run_cli("run", "--backend", "ort-nope", "--out", tmp_path)
    assert completed.returncode == 2
    assert "ort-nope" in completed.stderr
    for name in CONTRACT_BACKENDS:
        assert name in completed.stderr
    assert not (tmp_path / "results.json").exists()
