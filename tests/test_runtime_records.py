"""A runtime's facts are one record (conformance/findings/runtimes.py): the findings tooling names no
runtime itself, and a finding that does not fit its runtime's record is refused by file and
field while the others still load."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest
import yaml
from harness import REPO, run_cli

from conformance.findings.records import load_findings
from conformance.findings.runtimes import RUNTIMES, id_prefixes, runtime
from conformance.findings.upstream import issue_body

FINDINGS = REPO / "findings"


def _keys_and_comparisons(tree: ast.AST) -> list[str]:
    """The string literals a table is keyed by, or a value is told apart by: dict keys,
    subscripts and the sides of == and !=."""
    found: list[ast.expr | None] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            found += node.keys
        elif isinstance(node, ast.Subscript):
            found.append(node.slice)
        elif isinstance(node, ast.Compare) and any(isinstance(op, ast.Eq | ast.NotEq) for op in node.ops):
            found += [node.left, *node.comparators]
    return [each.value for each in found if isinstance(each, ast.Constant) and isinstance(each.value, str)]


def test_the_findings_code_keeps_no_table_of_runtimes() -> None:
    """Nothing in conformance/findings/ keys a table by a runtime, its tracker, a distribution
    it releases or an id prefix, or tells a finding apart by one: each fact comes from the
    runtime's record."""
    facts = {fact for record in RUNTIMES for fact in (
        record.name, record.tracker, *record.prefixes,
        *((record.releases.distribution, record.releases.module, *record.releases.together)
          if record.releases else ()))} - {""}
    found = []
    for path in sorted((REPO / "conformance" / "findings").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{path.name}: {text!r}" for text in _keys_and_comparisons(tree) if text in facts]
    assert not found, found


def test_every_runtime_has_its_own_prefixes_and_a_tracker() -> None:
    prefixes = id_prefixes()
    assert len(prefixes) == len(set(prefixes))
    assert len({record.name for record in RUNTIMES}) == len(RUNTIMES)
    for record in RUNTIMES:
        assert record.tracker.count("/") == 1, record.name
        if record.releases and record.releases.measured:
            assert record.releases.module, f"{record.name}: a release is checked by importing its module"
    used = {finding.runtime for finding in load_findings(FINDINGS).findings.values()}
    assert used == {record.name for record in RUNTIMES}, "a runtime record no finding uses, or the reverse"


def _copy(tmp_path: Path, source: str, target: str, **changes: object) -> Path:
    root = tmp_path / "findings"
    shutil.copytree(FINDINGS / source, root / target)
    path = root / target / "finding.yaml"
    record = yaml.safe_load(path.read_text(encoding="utf-8"))
    for key, value in changes.items():
        if "." in key:
            outer, inner = key.split(".")
            record[outer][inner] = value
        else:
            record[key] = value
    path.write_text(yaml.safe_dump(record, sort_keys=False), encoding="utf-8")
    return root


@pytest.mark.parametrize(("target", "changes", "said"), [
    ("TG5", {"runtime": "newrt"}, "TG5/finding.yaml: runtime: no runtime 'newrt'"),
    ("OV99", {"id": "OV99"}, "OV99/finding.yaml: id: 'OV99' does not begin with one of tinygrad's prefixes (TG)"),
    ("TG5", {"repro.history": "tinygrad-nightly"},
     "TG5/finding.yaml: repro.history: 'tinygrad-nightly' is no runtime's distribution"),
])
def test_a_finding_that_does_not_fit_its_runtime_is_refused_and_the_others_list(
        tmp_path: Path, target: str, changes: dict[str, object], said: str) -> None:
    root = _copy(tmp_path, "TG5", target, **changes)
    shutil.copytree(FINDINGS / "OV3", root / "OV3")
    done = run_cli("findings", "--records", root, "list")
    assert done.returncode == 2
    assert said in done.stderr.replace("\n", " ")
    assert "OV3" in done.stdout


def test_the_issue_form_and_provider_come_from_the_runtime_record() -> None:
    loaded = load_findings(FINDINGS).findings
    web = next(f for f in loaded.values() if f.runtime == "onnxruntime-web" and "webgpu" in f.section)
    body = issue_body(web, None)
    assert body.tracker == runtime("onnxruntime-web").tracker
    assert "### Execution Provider\n\nWebGPU (onnxruntime-web)" in body.body
    assert "### ONNX Runtime API\n\nJavaScript" in body.body and "### Platform\n\nWeb Browser" in body.body
    ov = issue_body(loaded["OV3"], None)
    assert ov.tracker == "openvinotoolkit/openvino" and ov.title.startswith("[Bug]: ")
    tinygrad = issue_body(loaded["TG5"], None)
    assert tinygrad.tracker == "tinygrad/tinygrad" and "## To reproduce" in tinygrad.body
