"""Backends are records the stages consult: each record is whole and true of its adapter, the
stages name no backend, and the suite's backends cannot be shadowed by a `backends` package of
someone else's."""

from __future__ import annotations

import ast
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from conformance.backends.record import ISOLATIONS, record_of
from conformance.backends.registry import GRAPH_KINDS, RECORDS, builtin_backends, set_up_by, setup_steps, valid_name
from conformance.ops.registry import OPERATORS
from conformance.running.suite import Executors

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PINS = {line.split("==")[0].strip().lower() for line in (ROOT / "constraints.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")}


def test_every_record_is_whole_and_unique() -> None:
    names = [record.name for record in RECORDS]
    assert len(names) == len(set(names)), names
    for record in RECORDS:
        assert valid_name(record.name), record.name
        assert record.runtime and record.kernels and record.packages, record.name
        assert record.kinds and set(record.kinds) <= set(GRAPH_KINDS), record.name
        assert record.operators and set(record.operators) <= set(OPERATORS), record.name
        assert record.isolation in ISOLATIONS, record.name


def test_a_records_extra_exists_and_is_pinned() -> None:
    """`pip install topk-conformance[EXTRA] -c constraints.txt` is what makes it available:
    the extra exists and every package it brings is pinned."""
    extras = PYPROJECT["project"]["optional-dependencies"]
    for record in RECORDS:
        if record.extra is None:
            continue
        assert record.extra in extras, (record.name, record.extra)
        for requirement in extras[record.extra]:
            package = re.split(r"[<>=\[ ;]", requirement)[0].lower()
            assert package in PINS, f"{record.name}: [{record.extra}] brings {package}, not in constraints.txt"


def test_every_backend_is_made_from_its_record_and_travels_to_its_worker() -> None:
    made = builtin_backends()
    assert [backend.name for backend in made] == [record.name for record in RECORDS]
    for record, backend in zip(RECORDS, made, strict=True):
        assert record_of(backend) is record
        assert (backend.kinds, backend.operators, backend.packs, backend.by_default) == \
            (record.kinds, record.operators, record.packs, record.by_default), record.name
        # Workers are spawned: the adapter, and the record it carries, must pickle.
        assert pickle.loads(pickle.dumps(backend)).name == record.name
    held = [record for record in RECORDS if record.isolation == "emulator"]
    assert held and all(not record.by_default for record in held), "emulated rows run when named"


def test_setup_steps_come_from_the_records() -> None:
    steps = setup_steps()
    assert set(steps) == {"directml", "isa-limits", "web", "vulkan", "tinygrad", "litert"}
    for step in steps.values():
        assert set_up_by(step), step.name
    completed = subprocess.run([sys.executable, "-m", "conformance", "setup", "--help"], capture_output=True,
                               text=True, cwd=ROOT, timeout=120, check=False)
    assert completed.returncode == 0, completed.stderr
    for name, step in steps.items():
        assert name in completed.stdout
        for backend in set_up_by(step):
            assert backend.name in " ".join(completed.stdout.split())


def test_a_probe_is_carried_with_its_record() -> None:
    """What a run carries: the record, the answer, the variants taken, the description the
    results and the report show (the record's words first, the suite's availability last)."""
    (reference,) = [record for record in RECORDS if record.name == "onnx-reference"]
    executors = Executors(timeout=60)
    try:
        (probed,) = executors.probe([reference.make()])
    finally:
        executors.close()
    assert probed.record is reference and probed.available
    assert probed.takes and all(key.split(":")[0] in OPERATORS for key in probed.takes)
    assert {v.kind for v in probed.variants()} == {"onnx"}
    description = probed.description()
    assert description["kernels"] == reference.kernels and description["isolation"] == "worker"
    assert description["available"] is True and "onnx" in description


# --- the stages name no backend ------------------------------------------------------------------

STAGES = [ROOT / "conformance" / "running", ROOT / "conformance" / "report", ROOT / "conformance" / "cli.py",
          *sorted((ROOT / "conformance" / "ops").glob("*/judge.py"))]
# What a stage may import of the backends package: the interface, the record, the registry.
INTERFACE = {"conformance.backends", "conformance.backends.base", "conformance.backends.record",
             "conformance.backends.registry", "conformance.backends.setup_steps"}


def _stage_modules() -> list[Path]:
    return [p for stage in STAGES for p in ([stage] if stage.is_file() else sorted(stage.rglob("*.py")))]


def _strings(tree: ast.AST) -> list[str]:
    """The string constants of a module, less docstrings."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def test_no_stage_names_a_backend() -> None:
    names = [record.name for record in RECORDS]
    named = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, names)) + r")(?![\w-])")
    found = []
    for path in _stage_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{path.relative_to(ROOT)}: {text!r}" for text in _strings(tree) if named.search(text)]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("conformance.backends"):
                modules = {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
                if not modules & INTERFACE or (node.module not in INTERFACE):
                    found.append(f"{path.relative_to(ROOT)}: imports {node.module}")
    # The template too: a backend's words come from its record, through the results.
    template = (ROOT / "conformance" / "report" / "templates" / "report.html").read_text(encoding="utf-8")
    found += [f"report.html: {match}" for match in named.findall(template)]
    assert not found, found


def test_the_suites_backends_run_beside_a_folder_named_backends(tmp_path: Path) -> None:
    """A vendor's repository often has a `backends/` package; run from there, the suite runs
    its own."""
    (tmp_path / "backends").mkdir()
    (tmp_path / "backends" / "__init__.py").write_text(
        "raise SystemExit('the unrelated backends package was imported')\n", encoding="utf-8")
    (tmp_path / "backends" / "registry.py").write_text("RECORDS = ()\n", encoding="utf-8")
    out = tmp_path / "out"
    completed = subprocess.run(
        [sys.executable, "-m", "conformance", "run", "--backend", "onnx-reference", "--case",
         "dml-top-k-example-1", "--out", str(out)],
        capture_output=True, text=True, cwd=tmp_path, timeout=300, check=False,
    )
    assert completed.returncode == 0, completed.stdout[-2000:] + completed.stderr[-2000:]
    assert "unrelated backends package" not in completed.stdout + completed.stderr
    assert (out / "results.json").is_file()


@pytest.mark.parametrize("record", RECORDS, ids=lambda record: record.name)
def test_a_records_rows_are_in_the_docs(record: object) -> None:
    """The checklist's last step: contract section 4 lists every backend."""
    name = getattr(record, "name", "")
    assert f"`{name}`" in (ROOT / "docs" / "contract.md").read_text(encoding="utf-8"), f"{name} not in the contract"
