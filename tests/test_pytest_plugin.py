"""The pytest plugin as a user drives it: `pytest --backend ort-cpu --backend openvino-cpu`
on a folder of case files gives one readable test per case, backend, graph and K source,
selectable by -k and by tag markers; verdicts become pass / fail / skip / warning with
the broken rule and a repro note; xdist gives the same outcome as a serial run."""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence

import onnxruntime
import pytest
from harness import DOCUMENTED, REPO, baseline, ordinary_variants

from conformance.backends.registry import by_name
from conformance.cases.loader import load_cases

FILES = ("directml-top-k1.yaml", "openvino-topk11.yaml")
ARGMAX_DOCUMENTED = REPO / "cases" / "argmax" / "documented"
BACKENDS = ("--backend", "ort-cpu", "--backend", "openvino-cpu")
ITEM = re.compile(r"^cases/[\w.-]+\.yaml::([a-z0-9._-]+)\[([a-z0-9-]+)\]$")

@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project of its own: an ini file (so pytester.path is the rootdir) and a copy of a
    couple of documented case files under cases/."""
    pytester.makeini("[pytest]\n")
    cases = pytester.path / "cases"
    cases.mkdir()
    for name in FILES:
        shutil.copy(DOCUMENTED / name, cases / name)
    return pytester


def run(project: pytest.Pytester, *args: str) -> pytest.RunResult:
    return project.runpytest_subprocess(
        "--cases", "cases", "cases", "-p", "no:cacheprovider", "-p", "no:randomly", *args, timeout=300,
    )


def collected(result: pytest.RunResult) -> list[tuple[str, str]]:
    """(case id, backend-graph-K label) of every item listed by --collect-only -q."""
    items = [ITEM.match(line.strip()) for line in result.outlines]
    return [(m.group(1), m.group(2)) for m in items if m]


def shipped_cases() -> list[object]:
    return load_cases([DOCUMENTED / name for name in FILES]).cases


def variant_labels(names: Sequence[str]) -> set[str]:
    return {f"topk-{b.name}-{v.label}" for b in by_name(list(names)) for v in ordinary_variants(b)}


def recorded_failures(case_id: str, names: Sequence[str] = ("ort-cpu", "openvino-cpu")) -> set[str]:
    """The op-backend-graph-K labels of a documented case that its backends' baselines record
    as fail or error (known discrepancies: failing tests)."""
    return {
        f"{e.op}-{name}-{e.graph}-{e.k_source}"
        for name in names for e in baseline(name).entries.values()
        if e.case == case_id and e.verdict in ("fail", "error", "crash")
    }


def skipped_variants(case_id: str, names: Sequence[str] = ("ort-cpu", "openvino-cpu")) -> int:
    case = next(c for c in load_cases([DOCUMENTED]).cases if c.id == case_id)
    return sum(1 for b in by_name(list(names)) for v in ordinary_variants(b) if v.cannot_express(case))


def test_ids_are_readable_and_cover_every_variant(project: pytest.Pytester) -> None:
    result = run(project, *BACKENDS, "--collect-only", "-q")
    assert result.ret == 0, result.stdout.str()
    items = collected(result)
    stdout = result.stdout.str()
    assert "cases/directml-top-k1.yaml::dml-top-k1-example-3[topk-ort-cpu-onnx-opset11-constant]" in stdout
    assert "cases/directml-top-k1.yaml::dml-top-k1-example-3[topk-openvino-cpu-openvino-topk11-stable-input]" in stdout
    case_ids = [c.id for c in shipped_cases()]  # type: ignore[attr-defined]
    labels = variant_labels(["ort-cpu", "openvino-cpu"])
    assert set(items) == {(c, label) for c in case_ids for label in labels}
    assert len(items) == len(case_ids) * len(labels), "no item twice"


def test_k_selects_one_case_and_it_passes(project: pytest.Pytester) -> None:
    result = run(project, *BACKENDS, "-k", "dml-top-k1-example-1")
    labels = variant_labels(["ort-cpu", "openvino-cpu"])
    refused = recorded_failures("dml-top-k1-example-1")  # OpenVINO refusing sub-byte K types
    skipped = skipped_variants("dml-top-k1-example-1")  # K = 2 does not fit u1
    assert refused and refused <= labels and skipped == 2
    result.assert_outcomes(passed=len(labels) - len(refused) - skipped, failed=len(refused), skipped=skipped)


def test_tag_markers_select_by_tag(project: pytest.Pytester) -> None:
    result = run(project, *BACKENDS, "-m", "ties", "--collect-only", "-q")
    assert result.ret == 0, result.stdout.str()
    tied = {c.id for c in shipped_cases() if "ties" in c.tags}  # type: ignore[attr-defined]
    assert tied and tied != {c.id for c in shipped_cases()}  # type: ignore[attr-defined]
    assert {case for case, _ in collected(result)} == tied


def test_operator_markers_select_by_operator_and_ids_name_it(project: pytest.Pytester) -> None:
    shutil.copy(ARGMAX_DOCUMENTED / "directml-argmax.yaml", project.path / "cases" / "directml-argmax.yaml")
    argmax = run(project, *BACKENDS, "-m", "argmax", "--collect-only", "-q")
    assert argmax.ret == 0, argmax.stdout.str()
    items = collected(argmax)
    argmax_ids = {c.id for c in load_cases([ARGMAX_DOCUMENTED / "directml-argmax.yaml"]).cases}
    assert items and {case for case, _ in items} == argmax_ids
    assert all(label.startswith("argmax-ort-cpu-") or label.startswith("argmax-openvino-cpu-") for _, label in items)
    topk = collected(run(project, *BACKENDS, "-m", "topk", "--collect-only", "-q"))
    assert topk and all(label.startswith("topk-") for _, label in topk)
    assert not {case for case, _ in topk} & argmax_ids


def test_fail_verdict_fails_with_the_rule_and_a_repro(project: pytest.Pytester) -> None:
    result = run(project, *BACKENDS, "-k", "dml-top-k1-example-3 and openvino-cpu-onnx-opset11-input and not dynamic")
    result.assert_outcomes(failed=1)
    stdout = result.stdout.str()
    assert "FAILED cases/directml-top-k1.yaml::dml-top-k1-example-3[topk-openvino-cpu-onnx-opset11-input]" in stdout
    assert "fail [tie-order]" in stdout
    assert "Reproduce:" in stdout
    assert "topk-conformance run --cases=" in stdout and "--case=dml-top-k1-example-3 --backend=openvino-cpu" in stdout
    assert "First discrepancy at sequence" in stdout


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict-dml"])
def test_divergent_warns_or_fails_under_strict_dml(project: pytest.Pytester, strict: bool) -> None:
    select = ("-k", "dml-top-k1-example-3 and openvino-cpu-openvino-topk3-input")
    if strict:
        result = run(project, *BACKENDS, *select, "--strict-dml")
        result.assert_outcomes(failed=1)
        assert "divergent" in result.stdout.str() and "Reproduce:" in result.stdout.str()
    else:
        result = run(project, *BACKENDS, *select)
        result.assert_outcomes(passed=1, warnings=1)
        assert "DivergentWarning" in result.stdout.str()


def test_skip_reasons_show_with_rs(project: pytest.Pytester) -> None:
    result = run(project, *BACKENDS, "-k", "dml-top-k1-example-4", "-rs")
    stdout = result.stdout.str()
    skips = [line for line in result.outlines if line.startswith("SKIPPED")]
    assert any("ONNX TopK-10 selects the largest only" in line for line in skips), stdout
    assert any("ONNX TopK-1 selects the largest only" in line for line in skips), stdout
    # opset 1 and 10 (twice: K constant and input) on both backends, and K = 3 as u1; the
    # case's ties break ONNX's order through OpenVINO's ONNX frontend with K as an input or
    # X's dimensions symbolic, and OpenVINO refuses some sub-byte K types (the baseline)
    outcomes = result.parseoutcomes()
    expected = (skipped_variants("dml-top-k1-example-4"), len(recorded_failures("dml-top-k1-example-4")))
    assert expected[0] == 8
    assert (outcomes["skipped"], outcomes["failed"]) == expected, outcomes


@pytest.mark.skipif("CUDAExecutionProvider" in onnxruntime.get_available_providers(), reason="CUDA is here")
def test_unavailable_backend_is_a_usage_error(project: pytest.Pytester) -> None:
    """A CI job that lost its runtime must not go green on skips."""
    result = run(project, "--backend", "ort-cuda")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "backend not available here (ort-cuda:" in result.stderr.str()


def test_unavailable_backend_skips_with_its_reason_when_allowed(project: pytest.Pytester) -> None:
    result = run(project, "--backend", "ort-cuda", "--allow-unavailable", "-rs")
    (cuda,) = by_name(["ort-cuda"])
    total = len(shipped_cases()) * len(ordinary_variants(cuda))
    result.assert_outcomes(skipped=total)
    stdout = result.stdout.str()
    assert "ort-cuda is not available" in stdout and "onnxruntime-gpu" in stdout


def test_xdist_gives_the_serial_outcome(project: pytest.Pytester) -> None:
    serial = run(project, *BACKENDS)
    parallel = run(project, *BACKENDS, "-n", "2")
    counts = {k: v for k, v in serial.parseoutcomes().items() if k in ("passed", "failed", "skipped")}
    assert counts["passed"] and counts["failed"] and counts["skipped"]
    assert {k: v for k, v in parallel.parseoutcomes().items() if k in counts} == counts
    assert "2 workers" in parallel.stdout.str()
    failed_serial = sorted(line for line in serial.outlines if line.startswith("FAILED"))
    failed_parallel = sorted(line for line in parallel.outlines if line.startswith("FAILED"))
    assert failed_parallel == failed_serial


def test_without_backend_no_case_items_are_collected(project: pytest.Pytester) -> None:
    result = run(project, "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED, result.stdout.str()
    assert collected(result) == []


def test_malformed_case_file_is_a_failing_item(project: pytest.Pytester) -> None:
    (project.path / "cases" / "bad.yaml").write_text(
        "cases:\n  - id: bad-k\n    source: x\n    input: {dtype: float32, shape: [2], data: [1, 2]}\n"
        "    axis: 0\n    k: three\n",
        encoding="utf-8",
    )
    result = run(project, *BACKENDS, "-k", "bad-k or dml-top-k1-example-1")
    outcomes = result.parseoutcomes()
    refused = recorded_failures("dml-top-k1-example-1")
    assert outcomes["failed"] == 1 + len(refused)
    skipped = skipped_variants("dml-top-k1-example-1")
    assert outcomes["passed"] == len(variant_labels(["ort-cpu", "openvino-cpu"])) - len(refused) - skipped
    stdout = result.stdout.str()
    assert "bad.yaml" in stdout and "case 'bad-k': k:" in stdout


def test_unknown_backend_is_a_usage_error(project: pytest.Pytester) -> None:
    result = run(project, "--backend", "ort-nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "ort-nope" in result.stderr.str() and "onnx-reference" in result.stderr.str()


def test_a_baseline_turns_known_discrepancies_into_xfails(project: pytest.Pytester) -> None:
    """The gate in pytest: openvino-cpu's known tie-order failure on DML_TOP_K1 example 3
    (K as an input through its ONNX frontend) is an xfail naming why; not recorded, it fails."""
    select = ("-k", "dml-top-k1-example-3 and openvino-cpu-onnx-opset11-input and not dynamic")
    entry = ("- {backend: openvino-cpu, case: dml-top-k1-example-3, graph: onnx-opset11, k_source: input, "
             "verdict: fail, rules: [tie-order], note: frontend}\n")
    known = project.path / "baseline.yaml"
    known.write_text("backends: [openvino-cpu]\nnotes: {frontend: ONNX frontend builds stable=false}\nresults:\n"
                     + entry)
    result = run(project, "--backend", "openvino-cpu", *select, "--baseline", str(known), "-rx")
    result.assert_outcomes(xfailed=1)
    assert "ONNX frontend builds stable=false" in result.stdout.str()
    empty = project.path / "empty.yaml"
    empty.write_text("backends: [openvino-cpu]\nresults: []\n")
    result = run(project, "--backend", "openvino-cpu", *select, "--baseline", str(empty))
    result.assert_outcomes(failed=1)


def test_the_vendors_guide_pyargs_command_runs_the_shipped_corpus_from_anywhere(pytester: pytest.Pytester) -> None:
    """`pytest --backend NAME --pyargs conformance` (docs/vendors/README.md), from a folder
    without cases/: with the editable install the README uses, it collected nothing (exit 5)."""
    result = pytester.runpytest_subprocess(
        "--backend", "onnx-reference", "--pyargs", "conformance", "-k", "dml-top-k1-example-1",
        "-p", "no:cacheprovider", "-p", "no:randomly", "-q", timeout=300,
    )
    assert result.ret == 0, result.outlines[-5:]
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) >= 8 and "failed" not in outcomes, outcomes
