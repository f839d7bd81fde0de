"""Shards (issue 20, point 3): `run --shard I/N` on N machines, then `merge`, is the
unsharded run; every shard's results.json says which shard it holds, and merge says when
shards are missing or repeated; a bad --shard is a usage error; the sharded workflow is valid."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from harness import DOCUMENTED, REPO, documented_cases, run_cli

from conformance.cli import _parser
from conformance.running.shards import plan

BACKENDS = ("--backend", "ort-cpu", "--backend", "onnx-reference")
# What a result says that does not depend on the process or machine that ran it. Not `cliff`:
# it compares a backend's run time with the others' on the same case, so a loaded machine
# flags the slow onnx-reference in one run and not in the next (CI failed on it).
SAME = ("op", "case", "backend", "graph", "k_source", "verdict", "rules", "domain", "message",
        "profile", "placement", "x_shape", "checker", "tags", "case_file", "isa")


@dataclass
class Runs:
    whole: dict[str, Any]
    shards: list[dict[str, Any]]
    folder: Path

    def shard_file(self, index: int) -> Path:
        return self.folder / f"shard-{index}" / "results.json"


def _run(out: Path, *args: str | Path) -> dict[str, Any]:
    completed = run_cli("run", "--cases", DOCUMENTED, *BACKENDS, "--jobs", "1", *args, "--out", out)
    assert completed.returncode == 0, completed.stderr
    document: dict[str, Any] = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return document


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    folder = tmp_path_factory.mktemp("shards")
    whole = _run(folder / "whole")
    shards = [_run(folder / f"shard-{i}", "--shard", f"{i}/3") for i in (1, 2, 3)]
    return Runs(whole, shards, folder)


def _comparable(results: list[dict[str, Any]]) -> set[tuple[str, ...]]:
    return {tuple(json.dumps(result.get(name), sort_keys=True) for name in SAME) for result in results}


def _cases(document: dict[str, Any]) -> set[str]:
    return {result["case"] for result in document["results"]}


def test_merged_shards_are_the_unsharded_run_and_render(runs: Runs, tmp_path: Path) -> None:
    files = [runs.shard_file(i) for i in (1, 2, 3)]
    completed = run_cli("merge", *files, "-o", tmp_path / "all.json")
    assert completed.returncode == 0, completed.stderr
    assert "shards 1-3 of 3 (onnx-reference, ort-cpu): complete" in completed.stderr
    assert "warning" not in completed.stderr
    merged = json.loads((tmp_path / "all.json").read_text(encoding="utf-8"))
    assert len(merged["results"]) == len(runs.whole["results"])
    assert _comparable(merged["results"]) == _comparable(runs.whole["results"])
    assert merged["case_errors"] == runs.whole["case_errors"]
    report = run_cli("report", tmp_path / "all.json", "-o", tmp_path / "all.html")
    assert report.returncode == 0, report.stderr
    html = (tmp_path / "all.html").read_text(encoding="utf-8")
    for case in documented_cases():
        assert case.id in html


def test_shards_are_disjoint_balanced_and_say_which_they_are(runs: Runs) -> None:
    parts = [_cases(shard) for shard in runs.shards]
    assert all(parts)
    assert sum(len(part) for part in parts) == len(set().union(*parts)) == len(documented_cases())
    records = [shard["environment"]["shard"] for shard in runs.shards]
    assert [(r["index"], r["count"]) for r in records] == [(1, 3), (2, 3), (3, 3)]
    assert len({r["plan"] for r in records}) == 1
    assert [r["cases"] for r in records] == [len(part) for part in parts]
    assert {r["of"] for r in records} == {len(documented_cases())}
    # By graph variants: no shard runs more than the largest case's results over another.
    sizes = [len(shard["results"]) for shard in runs.shards]
    per_case = Counter(result["case"] for result in runs.whole["results"])
    assert max(sizes) - min(sizes) <= max(per_case.values()), sizes


def test_the_split_is_the_same_whatever_order_the_cases_come_in(runs: Runs, tmp_path: Path) -> None:
    files = sorted(DOCUMENTED.glob("*.yaml"), reverse=True)
    listed = [arg for path in files for arg in ("--cases", path)]
    again = run_cli("run", *listed, *BACKENDS, "--jobs", "1", "--shard", "2/3", "--out", tmp_path)
    assert again.returncode == 0, again.stderr
    document = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert _cases(document) == _cases(runs.shards[1])
    assert document["environment"]["shard"]["plan"] == runs.shards[1]["environment"]["shard"]["plan"]
    cases = list(documented_cases())
    forward = plan(cases, 1, 3, ["ort-cpu"]).assignment
    assert plan(cases[::-1], 1, 3, ["ort-cpu"]).assignment == forward


def test_merge_names_missing_and_repeated_shards(runs: Runs, tmp_path: Path) -> None:
    completed = run_cli("merge", runs.shard_file(1), runs.shard_file(3), runs.shard_file(3),
                        "-o", tmp_path / "some.json")
    assert completed.returncode == 0, completed.stderr  # a warning: what is there merges
    warnings = [line for line in completed.stderr.splitlines() if "warning" in line]
    assert any("shards of 3 (onnx-reference, ort-cpu): missing 2" in line for line in warnings), completed.stderr
    assert any("shard 3/3 (onnx-reference, ort-cpu) given 2 times" in line for line in warnings), completed.stderr
    assert "complete" not in completed.stderr


def test_timings_balance_by_the_previous_runs_seconds(runs: Runs, tmp_path: Path) -> None:
    timings = runs.folder / "whole" / "results.json"
    parts = [_run(tmp_path / f"t{i}", "--shard", f"{i}/2", "--shard-timings", timings) for i in (1, 2)]
    assert all("timings from" in part["environment"]["shard"]["by"] for part in parts)
    merged = run_cli("merge", *(tmp_path / f"t{i}" / "results.json" for i in (1, 2)), "-o", tmp_path / "all.json")
    assert "shards 1-2 of 2 (onnx-reference, ort-cpu): complete" in merged.stderr, merged.stderr
    assert _comparable(json.loads((tmp_path / "all.json").read_text(encoding="utf-8"))["results"]) == \
        _comparable(runs.whole["results"])
    # Longest first: a case that took most of the time alone in one shard, the rest in the
    # other; a case the timings lack weighs their mean.
    cases = list(documented_cases())
    slow, rest = cases[3].id, [case.id for case in cases if case.id != cases[3].id]
    seconds = {slow: 100.0, **{case_id: 1.0 for case_id in rest[1:]}}
    split = plan(cases, 1, 2, ["ort-cpu"], seconds).assignment
    assert [case_id for case_id, shard in split.items() if shard == split[slow]] == [slow]


def test_each_shards_gate_holds_the_cases_it_runs(runs: Runs, tmp_path: Path) -> None:
    whole = runs.folder / "whole" / "results.json"
    recorded = run_cli("baseline", whole, "-o", tmp_path / "baseline.yaml")
    assert recorded.returncode == 0, recorded.stderr
    for index in (1, 2, 3):
        completed = run_cli("run", "--cases", DOCUMENTED, *BACKENDS, "--jobs", "1", "--shard", f"{index}/3",
                            "--baseline", tmp_path / "baseline.yaml", "--strict-baseline", "--out", tmp_path / "o")
        assert completed.returncode == 0, completed.stderr  # the others' entries are not "not run"
        assert "gate: held" in completed.stderr


TWO_CASES = ("--cases", DOCUMENTED, "--case", "dml-top-k1-example-1", "--case", "dml-top-k1-example-3")


def test_a_shard_with_no_case_writes_its_file_for_merge(tmp_path: Path) -> None:
    for index in (1, 2, 3):
        completed = run_cli("run", *TWO_CASES, "--backend", "onnx-reference", "--shard", f"{index}/3",
                            "--out", tmp_path / str(index))
        assert completed.returncode == 0, completed.stderr
    empty = json.loads((tmp_path / "3" / "results.json").read_text(encoding="utf-8"))
    assert empty["results"] == [] and empty["environment"]["shard"]["cases"] == 0
    merged = run_cli("merge", *(tmp_path / str(i) / "results.json" for i in (1, 2, 3)), "-o", tmp_path / "all.json")
    assert "shards 1-3 of 3 (onnx-reference): complete" in merged.stderr, merged.stderr


def test_two_backends_sharded_apart_merge_as_two_complete_splits(tmp_path: Path) -> None:
    files = []
    for backend in ("onnx-reference", "ort-cpu"):
        for index in (1, 2):
            out = tmp_path / f"{backend}-{index}"
            completed = run_cli("run", *TWO_CASES, "--backend", backend, "--shard", f"{index}/2", "--out", out)
            assert completed.returncode == 0, completed.stderr
            files.append(out / "results.json")
    merged = run_cli("merge", *files, "-o", tmp_path / "all.json")
    assert merged.returncode == 0, merged.stderr
    assert "shards 1-2 of 2 (onnx-reference): complete" in merged.stderr, merged.stderr
    assert "shards 1-2 of 2 (ort-cpu): complete" in merged.stderr, merged.stderr
    assert "warning" not in merged.stderr


@pytest.mark.parametrize("value", ["0/3", "4/3", "3", "a/b", "1/0", "-1/2"])
def test_a_bad_shard_is_a_usage_error_naming_the_option(value: str, tmp_path: Path) -> None:
    completed = run_cli("run", f"--shard={value}", "--out", tmp_path)
    assert completed.returncode == 2
    assert "--shard" in completed.stderr and value in completed.stderr
    assert not (tmp_path / "results.json").exists()


def test_shard_timings_without_a_shard_is_a_usage_error(tmp_path: Path) -> None:
    completed = run_cli("run", "--shard-timings", tmp_path / "x.json", "--out", tmp_path)
    assert completed.returncode == 2 and "--shard-timings" in completed.stderr


# --- the sharded workflow ---------------------------------------------------------------

SHARDED = REPO / ".github" / "workflows" / "sharded.yml"


def test_sharded_workflow_matches_the_github_workflow_schema() -> None:
    checker = Path(sys.executable).parent / "check-jsonschema"
    completed = subprocess.run([checker, "--builtin-schema", "vendor.github-workflows", SHARDED],
                               capture_output=True, text=True, timeout=120, check=False)
    assert completed.returncode == 0, completed.stdout + completed.stderr


def test_sharded_workflow_runs_every_shard_and_merges_them() -> None:
    workflow = yaml.safe_load(SHARDED.read_text(encoding="utf-8"))
    shard, merge = workflow["jobs"]["shard"], workflow["jobs"]["merge"]
    numbers = shard["strategy"]["matrix"]["shard"]
    scripts = [step["run"] for step in shard["steps"] if "run" in step]
    lines = [" ".join(script.split()) for script in scripts]
    runs = [line for line in lines if line.startswith("topk-conformance run")]
    assert len(runs) == 1
    count = int(re.search(r"--shard \$\{\{ matrix.shard \}\}/(\d+)", runs[0]).group(1))  # type: ignore[union-attr]
    assert numbers == list(range(1, count + 1))
    parser = _parser()
    for number in numbers:
        args = shlex.split(runs[0].replace("${{ matrix.shard }}", str(number)))[1:]
        parsed = parser.parse_args(args)
        assert parsed.shard == (number, count) and parsed.out == Path(f"reports/shard-{number}")
    uploads = [step["with"]["name"] for step in shard["steps"] if step.get("uses", "").startswith("actions/upload")]
    downloads = [step["with"]["pattern"] for step in merge["steps"] if step.get("uses", "").startswith("actions/down")]
    assert uploads == ["shard-${{ matrix.shard }}"] and downloads == ["shard-*"]
    assert merge["needs"] == ["shard"]
    merge_text = " ".join(step.get("run", "") for step in merge["steps"])
    assert "topk-conformance merge" in merge_text and "topk-conformance report" in merge_text
