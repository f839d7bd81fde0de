"""The gate on machines of different instruction sets (issue 15): the machine in every
result, baseline entries scoped to instruction-set tiers, `baseline` writing those scopes
from runs on several tiers, and a gate that still fails on a real regression on each tier."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from harness import BASELINES, CASES, DOCUMENTED, run_cli

from conformance.core import machine
from conformance.core.machine import Scope, ScopeError
from conformance.gate import Baseline, BaselineError, compare, read_baseline, record, write_baseline
from conformance.results.records import Result

AVX2, AVX512 = "avx2", "avx512_core_bf16"


def test_the_tiers_are_onednns_in_its_order() -> None:
    assert machine.tier_of({"sse4_1", "avx", "avx2", "fma"}) == "avx2"
    skylake = {"sse4_1", "avx", "avx2", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}
    assert machine.tier_of(skylake) == "avx512_core"
    assert machine.tier_of(skylake | {"avx512_vnni", "avx512_bf16"}) == "avx512_core_bf16"
    assert machine.tier_of({"sse4_1", "avx", "avx2", "avx_vnni"}) == "avx2_vnni"
    assert machine.capped("avx512_core_bf16", "avx2") == "avx2" and machine.capped("avx", "avx2") == "avx"


def test_this_machine_is_described_in_every_backends_entry(tmp_path: Path) -> None:
    completed = run_cli("run", "--cases", DOCUMENTED, "--case", "dml-top-k1-example-3", "--backend", "ort-cpu",
                        "--backend", "openvino-cpu", "--out", tmp_path)
    assert completed.returncode == 0, completed.stderr
    document = json.loads((tmp_path / "results.json").read_text())
    for name in ("ort-cpu", "openvino-cpu"):
        info = document["backends"][name]
        assert info["isa"] == machine.host_tier() and info["cpu"] == machine.cpu_name()
        assert set(info["cpu_features"].split()) == machine.cpu_features()
    assert "FP32" in document["backends"]["openvino-cpu"]["openvino_capabilities"].split()
    assert {r["isa"] for r in document["results"]} == {machine.host_tier()}


@pytest.mark.parametrize(("scope", "inside", "outside"), [
    ("<avx512_core_bf16", ["sse41", "avx2", "avx512_core_vnni"], ["avx512_core_bf16", "avx512_core_amx", ""]),
    (">=avx512_core <avx512_core_bf16", ["avx512_core", "avx512_core_vnni"], ["avx2_vnni", "avx512_core_bf16"]),
    ("avx2", ["avx2"], ["avx2_vnni", "avx"]),
    ("", ["avx2", "", "aarch64"], []),
])
def test_a_scope_is_a_range_of_tiers(scope: str, inside: list[str], outside: list[str]) -> None:
    parsed = Scope.parse(scope)
    assert all(parsed.holds(tier) for tier in inside)
    assert not any(parsed.holds(tier) for tier in outside)


def test_a_scope_naming_no_tier_is_refused() -> None:
    with pytest.raises(ScopeError, match="'avx3' is not an instruction-set tier"):
        Scope.parse(">=avx3")


@pytest.mark.parametrize(("scope", "said"), [
    ("avx512core", "'avx512core' is neither an instruction-set tier"),  # a misspelt avx512_core
    ("<avx2 >=avx2", "'<avx2 >=avx2' holds on no tier"),
    ("aarch64 <avx2", "'aarch64 <avx2' holds on no tier"),
])
def test_a_scope_that_would_hold_nowhere_is_refused(scope: str, said: str) -> None:
    """Such an entry would never apply and never be reported, even under --strict-baseline."""
    with pytest.raises(ScopeError, match=re.escape(said)):
        Scope.parse(scope)


@pytest.mark.parametrize("scope", ["aarch64", "aarch64+sve", "avx2", ">=avx512_core <avx512_core_bf16"])
def test_architectures_and_tiers_by_name_are_scopes(scope: str) -> None:
    assert Scope.parse(scope).text == scope


def _result(isa: str, verdict: str, rules: tuple[str, ...] = (), case: str = "c") -> Result:
    return Result(case, "openvino-cpu", "onnx-opset11", "constant", verdict, list(rules), isa=isa)  # type: ignore[arg-type]


def _two_machines() -> Baseline:
    """What runs on an AVX2 and an AVX-512 machine record: k1 differs, bf16 differs, nan agrees."""
    return record([
        _result(AVX2, "fail", ("selection",), "k1"), _result(AVX512, "pass", case="k1"),
        _result(AVX2, "pass", case="bf16"), _result(AVX512, "fail", ("gather",), "bf16"),
        _result(AVX2, "fail", ("nan-order",), "nan"), _result(AVX512, "fail", ("nan-order",), "nan"),
    ], {})


def test_baseline_scopes_only_what_the_machines_disagree_on(tmp_path: Path) -> None:
    baseline = _two_machines()
    scopes = {(entry.case, entry.isa) for entry in baseline.entries.values()}
    assert scopes == {("k1", "<avx512_core_bf16"), ("bf16", ">=avx512_core_bf16"), ("nan", "")}
    path = tmp_path / "b.yaml"
    write_baseline(path, baseline)
    assert read_baseline(path).entries == baseline.entries
    assert '- {op: topk, backend: openvino-cpu, case: k1, graph: onnx-opset11, k_source: constant, verdict: fail, ' \
           "rules: [selection], isa: <avx512_core_bf16}" in path.read_text()


@pytest.mark.parametrize("isa", [AVX2, AVX512])
def test_each_machine_holds_its_own_entries_and_never_hears_of_the_others(isa: str) -> None:
    baseline = _two_machines()
    answers = {AVX2: [_result(AVX2, "fail", ("selection",), "k1"), _result(AVX2, "pass", case="bf16")],
               AVX512: [_result(AVX512, "pass", case="k1"), _result(AVX512, "fail", ("gather",), "bf16")]}
    run = [*answers[isa], _result(isa, "fail", ("nan-order",), "nan")]
    comparison = compare(run, baseline)
    assert not comparison.failed(strict=True), comparison
    assert comparison.fixed == [] and comparison.not_run == []


@pytest.mark.parametrize("isa", [AVX2, AVX512])
def test_a_real_regression_fails_the_gate_on_either_machine(isa: str) -> None:
    baseline = _two_machines()
    # The scoped k1 entry gets worse on AVX2; on AVX-512, where none holds, k1 newly fails.
    worse = compare([_result(isa, "crash", case="k1")], baseline)
    assert worse.failed(strict=False)
    assert worse.regressions[0].startswith("worse: " if isa == AVX2 else "new: ")
    new = compare([_result(isa, "fail", ("tie-order",), "nan")], baseline)
    assert new.regressions and new.regressions[0].startswith("worse: ")


def test_a_new_discrepancy_says_where_the_baseline_records_it() -> None:
    comparison = compare([_result(AVX512, "fail", ("selection",), "k1")], _two_machines())
    assert comparison.regressions == [
        "new: topk k1 on openvino-cpu (onnx-opset11, K constant): fail [selection]; recorded only where isa is "
        "'<avx512_core_bf16' (this run: avx512_core_bf16)"]


def test_overlapping_scopes_and_duplicate_entries_are_refused(tmp_path: Path) -> None:
    head = "backends: [openvino-cpu]\nresults:\n"
    entry = "- {backend: openvino-cpu, case: c, graph: g, k_source: constant, verdict: fail, rules: [gather]"
    for body, message in [
        (f"{entry}, isa: '<avx512_core'}}\n{entry}, isa: '<avx2'}}\n", "two entries hold on sse41"),
        (f"{entry}}}\n{entry}}}\n", "results[1]: the same op, backend, case, graph, k_source and isa"),
        (f"{entry}, isa: '>=avx3'}}\n", "results[0].isa: 'avx3' is not an instruction-set tier"),
        (f"{entry}, isa: [avx2]}}\n", "results[0].isa: ['avx2'] is not of type 'string'"),
    ]:
        path = tmp_path / "bad.yaml"
        path.write_text(head + body)
        with pytest.raises(BaselineError, match=message.replace("[", r"\[")):
            read_baseline(path)


def test_a_strict_gate_fails_when_the_baseline_covers_none_of_the_runs_backends(tmp_path: Path) -> None:
    """It used to print "gate: held" having checked nothing."""
    for covered in ("[]", "[openvino-cpu]"):
        baseline = tmp_path / "other.yaml"
        baseline.write_text(f"backends: {covered}\nresults: []\n")
        args = ("run", "--cases", DOCUMENTED, "--case", "dml-top-k1-example-3", "--backend", "ort-cpu",
                "--baseline", baseline)
        lenient = run_cli(*args, "--out", tmp_path / "lenient")
        assert lenient.returncode == 0 and "not covered by" in lenient.stderr
        strict = run_cli(*args, "--strict-baseline", "--out", tmp_path / "strict")
        assert strict.returncode == 1, strict.stderr
        assert "gate: FAILED" in strict.stderr and "a strict gate must check every backend" in strict.stderr


def test_the_committed_openvino_baseline_holds_on_avx2_and_avx512_machines_apart() -> None:
    """tests/baselines/openvino-cpu.yaml scopes what the note from the AVX2 machine listed:
    the K = 1 tie choice and the bfloat16 subnormals."""
    committed = read_baseline(BASELINES / "openvino-cpu.yaml")
    on_avx2, on_avx512 = committed.narrowed(AVX2), committed.narrowed(AVX512)
    k1 = ("topk", "openvino-cpu", "edge-float32-values-k1-largest", "onnx-opset11", "constant")
    assert [(e.verdict, e.rules) for e in on_avx2.scoped(k1) if e.holds_on(AVX2)] == [("fail", ("selection",))]
    assert not [e for e in on_avx512.scoped(k1) if e.holds_on(AVX512)]
    bf16 = ("topk", "openvino-cpu", "edge-bfloat16-values-smallest", "openvino-topk11-stable", "constant")
    assert not [e for e in committed.scoped(bf16) if e.holds_on(AVX2)]
    assert [e.rules for e in committed.scoped(bf16) if e.holds_on(AVX512)] == [("gather",)]


def test_merge_keeps_each_sources_machine(tmp_path: Path) -> None:
    paths = []
    for name, tier in (("avx2-runner", AVX2), ("avx512-runner", AVX512)):
        document = {"environment": {"machine": name, "cpu": f"{name} cpu", "isa": tier},
                    "backends": {"openvino-cpu": {"available": True, "isa": tier}}, "case_errors": [],
                    "results": [{"case": "c", "backend": "openvino-cpu", "graph": "onnx-opset11", "k_source": "input",
                                 "verdict": "pass", "rules": [], "domain": "defined", "message": "", "seconds": 0.1,
                                 "isa": tier}]}
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(document))
    completed = run_cli("merge", *paths, "-o", tmp_path / "all.json")
    assert completed.returncode == 0, completed.stderr
    merged = json.loads((tmp_path / "all.json").read_text())["environment"]["merged"]
    assert [(e["cpu"], e["backend_isa"]) for e in merged] == [
        ("avx2-runner cpu", f"openvino-cpu: {AVX2}"), ("avx512-runner cpu", f"openvino-cpu: {AVX512}")]
    report = tmp_path / "report.html"
    assert run_cli("report", *paths, "-o", report).returncode == 0
    assert f"openvino-cpu: {AVX2}" in report.read_text() and f"openvino-cpu: {AVX512}" in report.read_text()


# The cases whose answers on openvino-cpu depend on the instruction sets (the note from the AVX2
# machine listed exactly these), plus one that does not.
ISA_DEPENDENT = [
    *(f"edge-{t}-values-k1-largest" for t in ("float16", "bfloat16", "float32", "int8", "int16", "int32", "uint8",
                                               "uint16")),
    "edge-bfloat16-values-kn-minus-1-smallest", "edge-bfloat16-values-kn-largest", "edge-bfloat16-values-smallest",
    "fuzz-openvino-cpu-onnx-opset24-gather-bfloat16-bff690cc", "edge-float32-values-kn-largest",
]


def test_openvino_cpu_avx2_gives_the_avx2_machines_answers_here(tmp_path: Path) -> None:
    """Held to AVX2 on any x86-64 machine, OpenVINO's CPU answers as the AVX2 machine did: its
    results, read as openvino-cpu's, hold the committed openvino-cpu baseline strictly on those
    cases (the AVX2 machine's scoped entries apply, the AVX-512 ones are never reported)."""
    case_args = [arg for case in ISA_DEPENDENT for arg in ("--case", case)]
    completed = run_cli("run", "--cases", "cases/edge/dtypes.yaml", "--cases", "cases/edge/wide_types.yaml",
                        "--cases", "cases/fuzz", *case_args,
                        "--backend", "openvino-cpu-avx2", "--out", tmp_path, timeout=1200)
    assert completed.returncode == 0, completed.stderr[-3000:]
    results = [Result(**{**r, "backend": "openvino-cpu"})
               for r in json.loads((tmp_path / "results.json").read_text())["results"]]
    assert {r.isa for r in results} == {AVX2}
    committed = read_baseline(BASELINES / "openvino-cpu.yaml")
    ran = {r.case for r in results}
    assert ran == set(ISA_DEPENDENT)
    of_these = Baseline(committed.backends, {k: e for k, e in committed.entries.items() if e.case in ran},
                        committed.notes)
    comparison = compare(results, of_these)
    assert not comparison.failed(strict=True), comparison
    k1 = [r for r in results if r.case == "edge-float32-values-k1-largest" and r.graph == "onnx-opset11"
          and r.k_source == "constant"]
    assert [(r.verdict, r.rules) for r in k1] == [("fail", ["selection"])], "the AVX2 machine's K = 1 answer"


# --- devices and adapters: a baseline recorded on one Vulkan driver or browser adapter ------

SHADERS = "iree-vulkan-lavapipe"
DRIVER = {"vulkan_device": "llvmpipe (LLVM 15.0.6, 256 bits)", "vulkan_package": "mesa-vulkan-drivers 22.3.6-1"}


def _on_a_driver() -> Baseline:
    recorded = [Result("c", SHADERS, "onnx-opset11", "constant", "fail", ["order"])]  # type: ignore[arg-type]
    return record(recorded, {}, recorded_on={SHADERS: dict(DRIVER)})


def test_a_baseline_records_the_device_its_backend_ran_on(tmp_path: Path) -> None:
    path = tmp_path / "b.yaml"
    write_baseline(path, _on_a_driver())
    assert read_baseline(path).recorded_on == {SHADERS: DRIVER}
    assert "recorded_on:" in path.read_text()


def test_on_another_driver_a_difference_is_told_and_does_not_fail_the_gate() -> None:
    baseline = _on_a_driver()
    run = [Result("c", SHADERS, "onnx-opset11", "constant", "fail", ["order", "selection"]),  # type: ignore[arg-type]
           Result("d", SHADERS, "onnx-opset11", "constant", "divergent")]  # type: ignore[arg-type]
    same = compare(run, baseline, described={SHADERS: {**DRIVER, "device": "IREE vulkan: llvmpipe"}})
    assert same.failed(strict=False) and len(same.regressions) == 2 and same.moved == {}
    newer = compare(run, baseline, described={SHADERS: {**DRIVER, "vulkan_package": "mesa-vulkan-drivers 24.2.8-1"}})
    assert not newer.failed(strict=True), newer
    assert newer.moved == {SHADERS: "vulkan_package 'mesa-vulkan-drivers 22.3.6-1' recorded, "
                                    "'mesa-vulkan-drivers 24.2.8-1' here"}
    assert [line.split(":")[0] for line in newer.elsewhere] == ["worse", "new"]


def test_the_baseline_command_records_what_the_backends_record_says_they_depend_on(tmp_path: Path) -> None:
    results = {"environment": {"packages": {}}, "case_errors": [], "results": [],
               "backends": {SHADERS: {"available": True, **DRIVER, "vulkan_driver_version": "0.0.1 (0x00000001)",
                                      "iree_compiler": "3.13.0"},
                            "ort-cpu": {"available": True, "onnxruntime": "1.31.1"}}}
    (tmp_path / "results.json").write_text(json.dumps(results))
    completed = run_cli("baseline", tmp_path / "results.json", "-o", tmp_path / "b.yaml")
    assert completed.returncode == 0, completed.stderr
    assert read_baseline(tmp_path / "b.yaml").recorded_on == {SHADERS: DRIVER}


def test_the_judge_under_the_emulator_gives_the_native_answer(tmp_path: Path) -> None:
    """The judge runs in the worker, under QEMU too: numpy there is held to its baseline loops, whose
    answers QEMU gets right (its AVX2-level float32 loops gave two boxes of cases/nms that do not meet
    an IoU of 0.57, and NonMaxSuppression's judge then failed OpenVINO's right answer)."""
    from conformance.backends import isa_limit

    qemu = shutil.which(isa_limit.QEMU)
    if qemu is None or machine.capped(machine.host_tier(), "avx2") != "avx2" or machine.host_tier() == "avx2":
        pytest.skip("no emulated AVX2 worker here (QEMU missing, or the CPU is AVX2 or less)")
    launch = isa_limit.launch("avx2")
    assert launch.env.get("NPY_DISABLE_CPU_FEATURES"), launch.env
    script = tmp_path / "answer.py"
    script.write_text(
        "from pathlib import Path\n"
        "from conformance.cases.loader import load_cases\n"
        "from conformance.ops.nms import profiles\n"
        "from conformance.ops.nms.judge import common_answer\n"
        f"cases = load_cases([Path({str(CASES / 'nms' / 'edge' / 'grid_and_detectors.yaml')!r})]).cases\n"
        "case = next(c for c in cases if c.id == 'nms-grid-60-quarters')\n"
        "print(common_answer(case, profiles.onnx(11)).tolist())\n", encoding="utf-8")
    native = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=True)
    emulated = subprocess.run([*launch.emulator, sys.executable, str(script)], capture_output=True, text=True,
                              timeout=900, check=True, env={**os.environ, **launch.env})
    assert emulated.stdout == native.stdout
