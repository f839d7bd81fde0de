"""The vendor's tools under hostile input (issue 16): baselines, results files, outputs,
concurrent runs, signals, numeric options. Every bad input is exit 2 with one line naming
the file and the field; no traceback reaches the user; a strict gate never holds with a
backend it did not check. (Plugins: tests/test_plugin_containment.py; case files:
tests/test_broken_input.py.)"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from harness import DOCUMENTED, REPO, run_cli

from conformance import cli
from conformance.results.output import LOCK_NAME, STREAM_NAME, FolderInUse, OutputFolder

CASE = "dml-top-k1-example-1"
RESULT = {"case": "c", "backend": "ort-cpu", "graph": "onnx-opset11", "k_source": "input", "verdict": "pass",
          "rules": [], "domain": "defined", "message": "", "seconds": 0.1, "op": "topk"}
# As files from before operators were recorded wrote it.
WITHOUT_OP = {key: value for key, value in RESULT.items() if key != "op"}


def main(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str]:
    """The command line in this process: its exit status and what it wrote on stderr."""
    status = cli.main([str(arg) for arg in args])
    return status, capsys.readouterr().err


def results_file(path: Path, document: Any) -> Path:
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return path


def good_results(path: Path, verdict: str = "pass") -> Path:
    return results_file(path, {"environment": {"machine": path.stem}, "backends": {}, "case_errors": [],
                               "results": [dict(RESULT, verdict=verdict)]})


def test_a_cliff_record_without_its_fields_is_refused_by_name_not_a_template_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`cliff` is an object of known fields: one without them was a Jinja UndefinedError, exit 1."""
    bad = results_file(tmp_path / "r.json", {"environment": {}, "backends": {}, "case_errors": [],
                                             "results": [dict(RESULT, cliff={"a": {"a": 1}})]})
    for command in ("report", "merge", "baseline"):
        status, stderr = main(capsys, command, bad, "-o", tmp_path / f"out.{command}")
        assert status == 2, stderr
        assert stderr.strip().splitlines() == [f"topk-conformance: cannot read results: {bad}: results[0].cliff: "
                                               "'ratio' is a required property"], stderr


def test_a_shard_count_beyond_what_run_takes_is_refused_before_merge_counts_it(tmp_path: Path) -> None:
    """A shard record claiming 10^9 shards made merge build a set of 10^9 numbers (3 GB)."""
    huge = results_file(tmp_path / "r.json", {"environment": {"shard": {"index": 1, "count": 10**9}}, "backends": {},
                                              "case_errors": [], "results": [RESULT]})
    # A process of its own, held to 4 GB (10^9 numbers would not fit): this test process may
    # already map more than that on another machine (runtimes' threads and pools).
    completed = subprocess.run(
        [sys.executable, "-m", "conformance", "merge", str(huge), "-o", str(tmp_path / "m.json")],
        capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL, cwd=REPO,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (4 << 30, resource.RLIM_INFINITY)),
    )
    assert completed.returncode == 2, completed.stderr[-2000:]
    assert "environment.shard.count: 1000000000 is greater than the maximum of 1000" in completed.stderr


@pytest.mark.parametrize("component", ["directml", "web"])
def test_a_setup_whose_cache_cannot_be_written_stops_with_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, component: str) -> None:
    """TOPK_CONFORMANCE_CACHE under a regular file (or read-only, or no home): was a
    NotADirectoryError / PermissionError traceback."""
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("TOPK_CONFORMANCE_CACHE", str(tmp_path / "a-file" / "cache"))
    completed = run_cli("setup", component, timeout=600)
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "Traceback" not in completed.stdout + completed.stderr
    stopped = [line for line in completed.stderr.splitlines() if f"setup {component} stopped" in line]
    assert len(stopped) == 1 and str(tmp_path / "a-file") in stopped[0], completed.stderr


def test_two_files_that_disagree_on_one_result_are_a_conflict_for_baseline_too(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same result (key and tier) passing in one file and failing in another: baseline
    kept the later one silently, exit 0; now exit 1, nothing written, unless --prefer later."""
    passing, failing = good_results(tmp_path / "a.json"), good_results(tmp_path / "b.json", verdict="fail")
    out = tmp_path / "baseline.yaml"
    status, stderr = main(capsys, "baseline", passing, failing, "-o", out)
    assert status == 1 and not out.exists(), stderr
    assert "conflict: c on ort-cpu (onnx-opset11, K input, isa -): pass [] from a, fail [] from b" in stderr, stderr
    status, stderr = main(capsys, "baseline", passing, failing, "-o", out, "--prefer", "later")
    assert status == 0 and "verdict: fail" in out.read_text(), stderr


def _shard(path: Path, index: int, ran: list[str]) -> Path:
    return results_file(path, {
        "environment": {"machine": path.stem, "shard": {"index": index, "count": 2, "backends": [], "ran": ran,
                                                        "plan": "p"}},
        "backends": {}, "case_errors": [],
        "results": [dict(RESULT, case=f"c{index}", backend=backend) for backend in ran]})


def test_shards_where_one_machine_lacked_a_default_backend_are_not_complete(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Shards run with the default backends on two machines, one without tract: merge said
    `complete` while tract's results of shard 2 were missing; baseline said nothing."""
    one, two = _shard(tmp_path / "one.json", 1, ["ort-cpu", "tract"]), _shard(tmp_path / "two.json", 2, ["ort-cpu"])
    said = "shards of 2: tract did not run in shard 2; its results of those shards' cases are missing"
    for command in ("merge", "baseline"):
        status, stderr = main(capsys, command, one, two, "-o", tmp_path / f"out.{command}")
        assert status == 0 and said in stderr and "complete" not in stderr, (command, stderr)  # a warning


def test_a_results_file_without_tiers_beside_one_with_is_refused_naming_the_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = good_results(tmp_path / "old.json")  # no `isa`: older than the field
    new = results_file(tmp_path / "new.json", {"environment": {}, "backends": {}, "case_errors": [],
                                                "results": [dict(RESULT, isa="avx2")]})
    status, stderr = main(capsys, "baseline", old, new, "-o", tmp_path / "b.yaml")
    assert status == 2, stderr
    assert stderr.startswith(f"topk-conformance: {old}: results[].isa: ort-cpu's results there have no "), stderr


def test_setup_isa_limits_fails_where_its_backends_stay_unavailable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its table said `no` and it exited 0: here QEMU is off PATH (the package stays installed)."""
    if shutil.which("dpkg-query") is None or os.geteuid() != 0:
        pytest.skip("needs Debian and root, as `setup isa-limits` does")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("dpkg-query",):
        (bin_dir / tool).symlink_to(shutil.which(tool) or tool)
    monkeypatch.setenv("PATH", f"{bin_dir}:{Path(sys.executable).parent}")
    completed = run_cli("setup", "isa-limits", timeout=300)
    assert completed.returncode == 1, completed.stdout + completed.stderr
    line = next(line for line in completed.stderr.splitlines() if "setup isa-limits: not available" in line)
    # The backend held to a tier below this CPU's: openvino-cpu-avx2 on a CPU with AVX-512,
    # openvino-cpu-avx on one whose best is AVX2 (an AMD EPYC without AVX-512, 2026-12-07).
    assert "not available: openvino-cpu-avx" in line and "qemu-x86_64 not found" in line, line


def test_a_new_run_removes_the_last_runs_results_before_it_streams_its_own(tmp_path: Path) -> None:
    """A run killed with SIGKILL never writes results.json: the folder must not keep the
    earlier run's results.json and report.html beside the killed run's stream."""
    for name in ("results.json", "report.html"):
        (tmp_path / name).write_text("an earlier run's")
    with OutputFolder(tmp_path) as folder:
        folder.header({}, {}, [])
        assert not (tmp_path / "results.json").exists() and not (tmp_path / "report.html").exists()
        assert (tmp_path / STREAM_NAME).exists()


def test_a_run_refused_before_it_starts_leaves_the_last_runs_results(tmp_path: Path) -> None:
    (tmp_path / "results.json").write_text("an earlier run's")
    completed = run_cli("run", "--backend", "no-such-backend", "--out", tmp_path)
    assert completed.returncode == 2
    assert (tmp_path / "results.json").read_text() == "an earlier run's"


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize("where", ["environment", "discrepancy", "unknown-field"])
@pytest.mark.parametrize("command", ["merge", "report", "baseline"])
def test_a_results_file_nested_200_deep_is_read_or_refused_never_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str, command: str) -> None:
    result = dict(RESULT)
    environment: dict[str, Any] = {}
    if where == "environment":
        environment["x"] = _nested(200)
    else:
        result["discrepancy" if where == "discrepancy" else "energy"] = _nested(200)
    path = results_file(tmp_path / "deep.json", {"environment": environment, "backends": {}, "case_errors": [],
                                                 "results": [result]})
    status, stderr = main(capsys, command, path, "-o", tmp_path / f"out.{command}")
    assert status in (0, 2) and "Traceback" not in stderr, stderr


def _environment_merged(levels: int) -> dict[str, Any]:
    """An environment whose `merged` holds an environment whose `merged` holds ...: each
    level valid, as merging merged files makes them (2 levels of nesting a merge)."""
    environment: dict[str, Any] = {"machine": "m"}
    for _ in range(levels):
        environment = {"machine": "m", "merged": [environment]}
    return environment


def _lists(depth: int, inner: Any = 1) -> Any:
    value = inner
    for _ in range(depth):
        value = [value]
    return value


def _dicts_in_lists(depth: int) -> Any:
    value: Any = {}
    for _ in range(depth):
        value = [{"a": value}]
    return value


# (where, what), the field the error names. Each ended merge and report in a RecursionError
# traceback (jsonschema's validator, dataclasses.asdict) or was read.
NESTED = {
    "environments-in-merged-200": ({"environment": _environment_merged(200)}, "environment.merged[0].merged…"),
    "lists-in-merged-200": ({"environment": {"merged": [_lists(200)]}}, "environment.merged[0][0]…"),
    "dicts-in-lists-in-discrepancy-250": ({"results": [dict(RESULT, discrepancy={"a": _dicts_in_lists(125)})]},
                                          "results[0].discrepancy.a…"),
    "lists-in-discrepancy-250": ({"results": [dict(RESULT, discrepancy={"a": _lists(250)})]},
                                 "results[0].discrepancy.a…"),
    "dicts-in-lists-in-backends-300": ({"backends": {"x": {"a": _dicts_in_lists(150)}}}, "backends.x.a[0]…"),
}


@pytest.mark.parametrize("command", ["merge", "report", "baseline"])
@pytest.mark.parametrize("name", sorted(NESTED))
def test_a_results_file_nested_too_deep_is_one_line_naming_the_field(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, command: str) -> None:
    shape, field = NESTED[name]
    document = {"environment": {}, "backends": {}, "case_errors": [], "results": [RESULT], **shape}
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(document))
    extra = ["--out", tmp_path / "out"] if command == "report" else ["-o", tmp_path / "written"]
    status, stderr = main(capsys, command, path, *extra)
    assert status == 2
    assert stderr.strip().splitlines() == [f"topk-conformance: cannot read results: {path}: {field}: nested more "
                                           "than 64 levels deep (lists and objects in one another, counted from "
                                           "the top of the file); a file of this kind is a few levels deep"]


# --- baseline --as: every rename does what it says -------------------------------------------------

@pytest.mark.parametrize(("renames", "said"), [
    (["ort-cpx=openvino-cpu"], "--as ort-cpx=openvino-cpu: no result of backend ort-cpx in the results files "
                               "(they hold ort-cpu)"),
    (["ort-cpu=a=b"], "--as ort-cpu=a=b: want NAME=OTHER, two backend names"),
    (["ort-cpu="], "--as ort-cpu=: want NAME=OTHER"),
    (["ort-cpu=openvino-cpu", "ort-cpu=tract"], "--as ort-cpu=tract: ort-cpu is already recorded as openvino-cpu"),
])
def test_a_rename_that_would_do_nothing_or_two_things_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], renames: list[str], said: str) -> None:
    """`baseline --as NAME=OTHER` naming no backend of the results (a typo), with two '=',
    or NAME twice: exit 2 saying so, and no baseline written."""
    out = tmp_path / "baseline.yaml"
    status, stderr = main(capsys, "baseline", good_results(tmp_path / "r.json"), "-o", out,
                          *[arg for rename in renames for arg in ("--as", rename)])
    assert status == 2 and said in stderr, stderr
    assert not out.exists()


# --- the gate never holds without checking ------------------------------------------------------


@pytest.mark.parametrize("covered", ["[]", "[openvino-cpu]"], ids=["no-backend", "another-backend"])
def test_a_strict_gate_fails_on_a_backend_its_baseline_does_not_cover(tmp_path: Path, covered: str) -> None:
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text(f"backends: {covered}\nresults:\n")
    completed = run_cli("run", "--cases", DOCUMENTED, "--case", CASE, "--backend", "onnx-reference",
                        "--out", tmp_path / "out", "--baseline", baseline, "--strict-baseline")
    assert completed.returncode == 1, completed.stderr
    assert "not covered by" in completed.stderr and "onnx-reference" in completed.stderr
    assert "gate: FAILED" in completed.stderr


# --- baselines --------------------------------------------------------------------------------------

BAD_BASELINES = {
    "notes-a-list": ("backends: [ort-cpu]\nnotes: [1, 2]\nresults: []\n", "notes", "not of type"),
    "results-a-number": ("backends: [ort-cpu]\nresults: 5\n", "results", "not of type"),
    "rules-a-string": ("backends: [ort-cpu]\nresults:\n- {backend: ort-cpu, case: x, graph: g, k_source: input, "
                       "verdict: fail, rules: error}\n", "results[0].rules", "not of type"),
    "verdict-pass": ("backends: [ort-cpu]\nresults:\n- {backend: ort-cpu, case: x, graph: g, k_source: input, "
                     "verdict: pass}\n", "results[0].verdict", "is not one of"),
    "case-a-number": ("backends: [ort-cpu]\nresults:\n- {backend: ort-cpu, case: 7, graph: g, k_source: input, "
                      "verdict: fail}\n", "results[0].case", "not of type"),
    "key-twice": ("backends: [ort-cpu]\nresults:\n- {backend: ort-cpu, case: x, graph: g, k_source: input, "
                  "verdict: fail, verdict: error}\n", "results[0].verdict", "given twice"),
    "entry-twice": ("backends: [ort-cpu]\nresults:\n" + "- {backend: ort-cpu, case: x, graph: g, k_source: input, "
                    "verdict: fail}\n" * 2, "results[1]", "earlier entry"),
    "unknown-field": ("backends: [ort-cpu]\nresult: []\n", "the top level", "'result' was unexpected"),
    "not-a-mapping": ("- ort-cpu\n", "", "a baseline is a mapping"),
    "python-tag": ("backends: !!python/object/apply:os.system [echo]\n", "", "not valid YAML"),
    "bad-scope": ("backends: [ort-cpu]\nresults:\n- {backend: ort-cpu, case: x, graph: g, k_source: input, "
                  "verdict: fail, isa: '<pentium'}\n", "results[0].isa", "pentium"),
}


@pytest.mark.parametrize("name", sorted(BAD_BASELINES))
def test_a_bad_baseline_is_exit_2_naming_file_and_field(tmp_path: Path, name: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    text, field, words = BAD_BASELINES[name]
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    status, stderr = main(capsys, "run", "--cases", DOCUMENTED, "--case", CASE, "--backend", "onnx-reference",
                          "--out", tmp_path / "out", "--baseline", path)
    assert status == 2, stderr
    assert (f"{path}: {field}: " if field else f"{path}: ") in stderr
    assert words in stderr and "Traceback" not in stderr
    assert not (tmp_path / "out" / STREAM_NAME).exists(), "refused before anything ran"


def test_a_bad_baseline_under_pytest_is_a_usage_error_not_an_internal_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_BASELINES["rules-a-string"][0])
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "--backend", "onnx-reference",
         "--cases", str(DOCUMENTED), "--baseline", str(path), "-q", "-p", "no:cacheprovider"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )
    assert completed.returncode == 4, completed.stdout + completed.stderr  # pytest's usage error
    assert "INTERNALERROR" not in completed.stdout + completed.stderr
    assert f"{path}: results[0].rules: 'error' is not of type" in completed.stderr


def test_a_baseline_beyond_its_limits_is_refused_quickly(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    entry = "- {backend: ort-cpu, case: c%d, graph: onnx-opset11, k_source: input, verdict: fail, rules: [order]}\n"
    path = tmp_path / "big.yaml"
    path.write_text("backends: [ort-cpu]\nresults:\n" + "".join(entry % i for i in range(20_000)))
    monkeypatch.setenv("TOPK_MAX_BASELINE_NODES", "50000")
    started = time.monotonic()
    status, stderr = main(capsys, "baseline", good_results(tmp_path / "r.json"), "-o", path)
    assert status == 2 and "the limit is TOPK_MAX_BASELINE_NODES=50000" in stderr
    monkeypatch.setenv("TOPK_MAX_BASELINE_BYTES", "1000")
    status, stderr = main(capsys, "baseline", good_results(tmp_path / "r.json"), "-o", path)
    assert status == 2 and "more than 1000; the limit is TOPK_MAX_BASELINE_BYTES=1000" in stderr
    assert time.monotonic() - started < 30


# --- results files (merge, report, baseline) --------------------------------------------------------

BAD_RESULTS = {
    "a-list": ("[1, 2]", "", "not a results file"),
    "results-a-string": ({"results": "x"}, "results", "not of type 'array'"),
    "truncated": ('{"results": [{"case": "c"', "", "not JSON"),
    "foreign": ({"name": "package.json"}, "the top level", "'results' is a required property"),
    "bad-verdict": ({"results": [dict(RESULT, verdict="great")]}, "results[0].verdict", "is not one of"),
    "seconds-a-string": ({"results": [dict(RESULT, seconds="fast")]}, "results[0].seconds", "not of type"),
    "seconds-nan": ('{"results": [{"case": "c", "backend": "b", "graph": "g", "k_source": "input", '
                    '"verdict": "pass", "seconds": NaN}]}', "", "NaN is not a JSON number"),
    "deep": ('{"results": [], "environment": ' + "[" * 100_000 + "]" * 100_000 + "}", "", "nested too deep"),
    "binary": (b"\x89PNG\r\n\x1a\n\x00".decode("latin-1"), "", "not UTF-8"),
    # Text that would end a comment line of the report's repro and become code.
    "case-id-with-a-newline": ({"results": [dict(RESULT, case="c\nimport os; os.system('id')")]}, "results[0].case",
                               "does not match"),
    "backend-with-a-newline": ({"results": [dict(RESULT, backend="ort-cpu\nprint(1)")]}, "results[0].backend",
                               "does not match"),
    # A result without `op` is TopK's only through a TopK graph; ArgMax's (K none) is not.
    "argmax-without-op": ({"results": [dict(WITHOUT_OP, graph="onnx-opset13", k_source="none")]}, "results[0].op",
                          "missing, and graph 'onnx-opset13' with K 'none' is not a TopK graph"),
}


@pytest.mark.parametrize("command", ["merge", "report", "baseline"])
@pytest.mark.parametrize("name", sorted(BAD_RESULTS))
def test_a_bad_results_file_is_exit_2_naming_file_and_field(tmp_path: Path, name: str, command: str,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    document, field, words = BAD_RESULTS[name]
    path = tmp_path / f"{name}.json"
    if name == "binary":
        path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    else:
        results_file(path, document)
    out = tmp_path / "out"
    extra = ["--out", out] if command == "report" else ["-o", out / "written"]
    status, stderr = main(capsys, command, good_results(tmp_path / "good.json"), path, *extra)
    assert status == 2, stderr
    assert (f"{path}: {field}: " if field else f"{path}: ") in stderr and words in stderr
    assert "Traceback" not in stderr
    assert not out.exists(), "nothing is written from a file that could not be read"


def test_a_results_stream_cut_short_keeps_its_whole_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stream = tmp_path / "results.jsonl"
    header = json.dumps({"environment": {"machine": "m"}, "backends": {}, "case_errors": []})
    stream.write_text(f"{header}\n{json.dumps({'result': RESULT})}\n{{\"result\": {{\"case\"")
    status, _ = main(capsys, "merge", stream, "-o", tmp_path / "merged.json")
    assert status == 0
    assert len(json.loads((tmp_path / "merged.json").read_text())["results"]) == 1
    stream.write_text(f"{header}\n[1]\n{json.dumps({'result': RESULT})}\n")
    status, stderr = main(capsys, "merge", stream, "-o", tmp_path / "merged.json")
    assert status == 2 and f"{stream}: line 2: a record of results.jsonl is a JSON object" in stderr


@pytest.mark.parametrize("case_file", ["x" * 4000, "a\u0000b", "/", "/dev/zero"], ids=["long", "nul", "root", "device"])
def test_a_report_of_results_naming_odd_case_files_is_written(tmp_path: Path, case_file: str,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    named = results_file(tmp_path / "odd.json", {"results": [dict(RESULT, case_file=case_file)]})
    started = time.monotonic()
    status, stderr = main(capsys, "report", named, "--out", tmp_path / "out")
    assert status == 0, stderr
    assert "case file not found" in (tmp_path / "out" / "report.html").read_text()
    assert time.monotonic() - started < 60, "the report does not walk a folder it is named"


def test_fields_this_version_does_not_know_are_named_not_dropped_silently(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    newer = results_file(tmp_path / "newer.json", {"results": [dict(RESULT, energy_joules=3.5)], "fleet": "x"})
    status, stderr = main(capsys, "merge", newer, "-o", tmp_path / "merged.json")
    assert status == 0
    assert f"{newer}: results[0].energy_joules: a field this topk-conformance does not know" in stderr
    assert f"{newer}: fleet: a top-level field" in stderr


# --- outputs ------------------------------------------------------------------------------------------


def test_an_output_path_that_is_a_folder_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "taken"
    folder.mkdir()
    good = good_results(tmp_path / "good.json")
    for args in (("merge", good, "-o", folder), ("report", good, "-o", folder), ("baseline", good, "-o", folder)):
        status, stderr = main(capsys, *args)
        assert status == 2, args
        assert f"cannot write {folder}: it is a folder" in stderr and "Traceback" not in stderr


def test_a_file_where_the_output_folder_should_be_is_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("mine")
    status, stderr = main(capsys, "run", "--cases", DOCUMENTED, "--case", CASE, "--backend", "onnx-reference",
                          "--out", blocker / "out")
    assert status == 2 and "a file stands there" in stderr and "nothing was run" in stderr
    status, stderr = main(capsys, "report", good_results(tmp_path / "good.json"), "--out", blocker)
    assert status == 2 and "a file stands where its folder" in stderr
    assert blocker.read_text() == "mine"


def test_outputs_replace_a_symlink_and_never_write_through_it(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me")
    good = good_results(tmp_path / "good.json")
    for name, args in {"report.html": ("report", good, "-o"), "merged.json": ("merge", good, "-o"),
                       "baseline.yaml": ("baseline", good, "-o")}.items():
        link = tmp_path / name
        link.symlink_to(precious)
        if name == "baseline.yaml":
            link.unlink()  # an existing -o baseline is read for its notes: the link's target is no baseline
            link.symlink_to(tmp_path / "nowhere.yaml")
        status, stderr = main(capsys, *args, link)
        assert status == 0, stderr
        assert not link.is_symlink() and link.stat().st_size > 0
    assert precious.read_text() == "keep me"


def test_the_run_stream_and_lock_are_never_followed_through_a_symlink(tmp_path: Path) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me")
    out = tmp_path / "out"
    out.mkdir()
    (out / STREAM_NAME).symlink_to(precious)
    completed = run_cli("run", "--cases", DOCUMENTED, "--case", CASE, "--backend", "onnx-reference", "--out", out)
    assert completed.returncode == 0, completed.stderr
    assert precious.read_text() == "keep me" and not (out / STREAM_NAME).is_symlink()
    (out / LOCK_NAME).unlink(missing_ok=True)  # a finished run removes it
    (out / LOCK_NAME).symlink_to(precious)
    completed = run_cli("run", "--cases", DOCUMENTED, "--case", CASE, "--backend", "onnx-reference", "--out", out)
    assert completed.returncode == 2 and "is a symbolic link; remove it" in completed.stderr
    assert precious.read_text() == "keep me"


def _file_size_limit(limit: int) -> None:
    """The disk fills at `limit` bytes a file (RLIMIT_FSIZE: what a full disk does to a write,
    without needing one); the signal it raises is ignored, so the write fails with EFBIG."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_a_full_disk_during_a_run_stops_it_with_whole_lines_and_one_clear_line(tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = dict(os.environ, CI="true")
    completed = subprocess.run(
        [sys.executable, "-m", "conformance", "run", "--cases", str(DOCUMENTED), "--backend", "onnx-reference",
         "--out", str(out), "--jobs", "1"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False,
        preexec_fn=lambda: _file_size_limit(20_000),
    )
    assert completed.returncode == 2, completed.stderr
    assert "Traceback" not in completed.stderr
    assert "cannot write" in completed.stderr and "File too large" in completed.stderr
    # The file that could not be written is named first, and how far the run got.
    assert completed.stderr.strip().splitlines()[-1].startswith(f"topk-conformance: cannot write {out / STREAM_NAME}")
    assert re.search(r"the run stopped there, after \d+ of \d+ results", completed.stderr), completed.stderr
    lines = (out / STREAM_NAME).read_text().splitlines(keepends=True)
    assert lines and all(line.endswith("\n") for line in lines)
    records = [json.loads(line) for line in lines]  # every line whole
    kept = len(records) - 1
    assert f"kept: {out / STREAM_NAME} holds {kept} results, each on a whole line" in completed.stderr
    assert not (out / "results.json").exists() or json.loads((out / "results.json").read_text())["results"]


def test_a_full_disk_writing_a_merge_keeps_the_old_file(tmp_path: Path) -> None:
    good = good_results(tmp_path / "good.json")
    target = tmp_path / "merged.json"
    target.write_text("old")
    big = results_file(tmp_path / "big.json", {"results": [dict(RESULT, case=f"c{i}") for i in range(2000)]})
    completed = subprocess.run(
        [sys.executable, "-m", "conformance", "merge", str(good), str(big), "-o", str(target)],
        cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
        preexec_fn=lambda: _file_size_limit(big.stat().st_size),
    )
    assert completed.returncode == 2, completed.stderr
    assert f"cannot write {target}: File too large; nothing was written" in completed.stderr
    assert target.read_text() == "old"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")], "no temporary file left behind"


# --- concurrency and signals -----------------------------------------------------------------------


def test_run_takes_the_out_lock_before_any_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    real = cli.load_cases
    seen: list[str] = []

    def loading(*args: Any, **kwargs: Any) -> Any:
        try:
            with OutputFolder(out):
                seen.append("free")
        except FolderInUse:
            seen.append("locked")
        return real(*args, **kwargs)

    monkeypatch.setattr(cli, "load_cases", loading)
    status, _ = main(capsys, "run", "--cases", DOCUMENTED, "--case", CASE, "--backend", "onnx-reference",
                     "--out", out, "--in-process")
    assert status == 0 and seen == ["locked"], "cases were loaded before --out was locked"


def test_a_second_run_or_fuzz_on_one_out_is_refused_and_leaves_it_alone(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / STREAM_NAME).write_text("the first run's\n")
    with OutputFolder(out):
        run = run_cli("run", "--cases", DOCUMENTED, "--case", CASE, "--backend", "onnx-reference", "--out", out)
        fuzzed = run_cli("fuzz", "--backend", "onnx-reference", "--budget", "5", "--out", out)
    for completed in (run, fuzzed):
        assert completed.returncode == 2 and "is in use by another run" in completed.stderr
    assert (out / STREAM_NAME).read_text() == "the first run's\n"
    assert not (out / "fuzz.json").exists()


@pytest.mark.parametrize("delay", [0.5, 2.0])
def test_fuzz_on_sigint_writes_its_summary_and_exits_130_without_a_traceback(tmp_path: Path, delay: float) -> None:
    out = tmp_path / "fuzz"
    process = subprocess.Popen(
        [sys.executable, "-m", "conformance", "fuzz", "--backend", "onnx-reference", "--budget", "120",
         "--seed", "1", "--out", str(out)],
        cwd=REPO, env=dict(os.environ, CI="true"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert process.stdout is not None
    shown = ""
    while "search 1" not in shown:  # "fuzz onnx-reference: search 1, ...": it is searching
        line = process.stdout.readline()
        assert line, f"fuzz ended before it searched: {shown}"
        shown += line
    time.sleep(delay)  # a signal raised into hypothesis while it draws was a "flaky strategy"
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr and "fuzz stopped by SIGINT" in stderr
    summary = json.loads((out / "fuzz.json").read_text())
    assert summary["stopped"] == "stopped by SIGINT" and summary["examples"] >= 0


def test_a_fuzz_database_that_is_not_hypothesiss_is_refused_by_name(tmp_path: Path) -> None:
    examples = tmp_path / "fuzz" / ".hypothesis" / "examples"
    (examples / "key").mkdir(parents=True)
    os.mkfifo(examples / "key" / "entry")  # hypothesis would block reading it
    completed = run_cli("fuzz", "--backend", "onnx-reference", "--budget", "5", "--out", tmp_path / "fuzz",
                        timeout=120)
    assert completed.returncode == 2, completed.stderr
    assert f"{examples / 'key' / 'entry'}: not a regular file of hypothesis's example database" in completed.stderr


# --- small ------------------------------------------------------------------------------------------------


def test_fuzz_help_prints(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(["fuzz", "--help"])
    assert exited.value.code == 0
    assert "25% more" in capsys.readouterr().out


@pytest.mark.parametrize("option", [("run", "--timeout"), ("fuzz", "--timeout"), ("fuzz", "--budget")],
                         ids=lambda o: "-".join(o))
@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1", "soon"])
def test_a_time_that_is_not_finite_and_positive_is_a_usage_error(
    option: tuple[str, str], value: str, capsys: pytest.CaptureFixture[str],
) -> None:
    command, flag = option
    extra = ["--backend", "onnx-reference"] if command == "fuzz" else []
    with pytest.raises(SystemExit) as exited:
        cli.main([command, *extra, f"{flag}={value}"])
    assert exited.value.code == 2
    assert f"argument {flag}: " in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0", "-3", "257", "1e9", "many"])
def test_jobs_outside_1_to_256_is_a_usage_error(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(["run", f"--jobs={value}"])
    assert exited.value.code == 2
    assert "argument --jobs/-j: " in capsys.readouterr().err


def test_the_repro_command_of_a_case_id_that_looks_like_an_option_pastes(tmp_path: Path) -> None:
    from conformance.report.repro import command_line

    cases = tmp_path / "-odd.yaml"
    cases.write_text("cases:\n  - id: -rf\n    source: hostile\n    input: {dtype: float32, shape: [3], "
                     "data: [1, 3, 2]}\n    axis: 0\n    k: 1\n")
    line = command_line("-rf", str(cases), "onnx-reference")
    completed = subprocess.run(line.replace("topk-conformance", f"{sys.executable} -m conformance", 1)
                               .replace("reports/repro", str(tmp_path / "out")),
                               shell=True, cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    assert completed.returncode == 0, completed.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())["results"]
    assert {r["case"] for r in results} == {"-rf"} and all(r["verdict"] == "pass" for r in results)


def test_a_result_without_op_through_a_topk_graph_is_topk_and_said(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A file from before operators were recorded merges with a current one: its result is the
    current file's TopK result (one result, a conflict at most), never a second copy."""
    old = results_file(tmp_path / "old.json", {"results": [WITHOUT_OP]})
    current = results_file(tmp_path / "current.json", {"results": [RESULT]})
    status, stderr = main(capsys, "merge", old, current, "-o", tmp_path / "merged.json")
    assert status == 0, stderr
    assert "1 results without `op`" in stderr and "read as TopK's" in stderr
    merged = json.loads((tmp_path / "merged.json").read_text())["results"]
    assert [(r["case"], r["op"]) for r in merged] == [("c", "topk")]


def test_the_reports_repro_keeps_every_field_in_its_comment() -> None:
    """Whatever a field holds, the snippet's comment stays one line and the code stays the code."""
    import ast

    from conformance.report.repro import repro_snippet

    plain = repro_snippet("c", "cases/x.yaml", "ort-cpu", "onnx-opset11", "input", "fail", ["selection"])
    hostile = repro_snippet("c\nimport os\u2028x", "cases/x.yaml", "ort-cpu\r\nprint(1)", "g\n#", "k\x0c\nq",
                            "fail\nboom()", ["selection\nboom()"])
    assert len(hostile.splitlines()) == len(plain.splitlines())
    assert ast.dump(ast.parse(hostile).body[-1]) == ast.dump(ast.parse(plain).body[-1])
    assert len(ast.parse(hostile).body) == len(ast.parse(plain).body)



def test_a_run_with_no_room_on_its_disk_is_refused_before_any_backend_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The device of --out full (statvfs says 0 bytes: a full disk cannot be made here without
    root): one line, exit 2, no backend asked, no lock left."""
    from conformance.results import output

    real = os.statvfs

    def full(path: Any) -> Any:
        stats = real(path)
        return os.statvfs_result((stats.f_bsize, stats.f_frsize, stats.f_blocks, 0, 0, stats.f_files,
                                  stats.f_ffree, stats.f_favail, stats.f_flag, stats.f_namemax))

    monkeypatch.setattr(output.os, "statvfs", full)
    out = tmp_path / "out"
    status = cli.main(["run", "--cases", str(DOCUMENTED), "--backend", "onnx-reference", "--out", str(out)])
    captured = capsys.readouterr()
    assert status == 2
    assert f"cannot write in {out}: 0 bytes free on its device" in captured.err and "nothing was run" in captured.err
    assert "asking" not in captured.out, "no backend was asked"
    assert list(out.iterdir()) == []


def test_a_baseline_and_a_finding_record_are_read_within_the_limits_the_environment_sets(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The limit a too-long string's message names (TOPK_MAX_TEXT_CHARS) is the one that applies
    to baselines and finding records too, so the message's advice works."""
    from conformance.findings.records import FindingError, load_record
    from conformance.gate import BaselineError, read_baseline

    baseline = tmp_path / "b.yaml"
    baseline.write_text("backends: [ort-cpu]\nnotes: {n: " + "x" * 50 + "}\nresults: []\n", encoding="utf-8")
    record = tmp_path / "finding.yaml"
    record.write_text("id: OV1\ntext: " + "x" * 50 + "\n", encoding="utf-8")
    monkeypatch.setenv("TOPK_MAX_TEXT_CHARS", "20")
    with pytest.raises(BaselineError, match="TOPK_MAX_TEXT_CHARS"):
        read_baseline(baseline)
    with pytest.raises(FindingError, match="TOPK_MAX_TEXT_CHARS"):
        load_record(record)
    monkeypatch.setenv("TOPK_MAX_TEXT_CHARS", "many")
    with pytest.raises(BaselineError, match="TOPK_MAX_TEXT_CHARS='many' is not a whole number"):
        read_baseline(baseline)
    monkeypatch.setenv("TOPK_MAX_TEXT_CHARS", "100")
    assert read_baseline(baseline).notes == {"n": "x" * 50}
