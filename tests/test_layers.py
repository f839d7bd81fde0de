"""The folders of the suite form layers: no two folders import each other, through any chain,
and the bottom layer (conformance/core/) imports nothing of the suite above it. Every import
counts: at module level, inside functions, and under TYPE_CHECKING."""

from __future__ import annotations

import ast
import graphlib
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("conformance",)
CORE = "conformance/core"


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imported(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The suite's modules that `module` imports (a name imported from a package counts as
    its submodule where there is one)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            names.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names)
    found = set()
    for name in names:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name:
            found.add(name)
    return found


def folder(path: Path) -> str:
    return path.parent.relative_to(ROOT).as_posix()


def folder_imports() -> dict[str, dict[str, list[str]]]:
    """folder -> imported folder -> the imports that make the edge ("module -> module")."""
    known = modules()
    edges: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for module, path in known.items():
        for target in imported(module, path, known):
            if folder(known[target]) != folder(path):
                edges[folder(path)][folder(known[target])].append(f"{module} -> {target}")
    return edges


def test_no_two_folders_import_each_other() -> None:
    graph = {source: set(targets) for source, targets in folder_imports().items()}
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as cycle:
        raise AssertionError(f"folders import each other: {' -> '.join(cycle.args[1])}") from None


def test_backends_never_import_the_stages_that_run_them() -> None:
    """conformance/backends/ (any folder of it) sits below conformance/running/, which drives it: no module
    of conformance/backends/ imports conformance/running/ (nor results, report or the front ends), so the
    two trees never import each other, whatever the folder granularity."""
    above = ("conformance/running", "conformance/results", "conformance/report", "conformance")
    reaching = {
        source: {target: imports for target, imports in targets.items() if target in above}
        for source, targets in folder_imports().items()
        if source == "conformance/backends" or source.startswith("conformance/backends/")
    }
    assert not {source: targets for source, targets in reaching.items() if targets}, reaching


def test_the_bottom_layer_imports_only_itself() -> None:
    outside = {target: list(imports) for target, imports in folder_imports().get(CORE, {}).items()}
    assert not outside, f"{CORE} imports folders above it: {outside}"


OPERATORS = "conformance/ops"  # the registry; each folder below it is one operator


def operator_folder(folder: str) -> bool:
    return folder.startswith(f"{OPERATORS}/")


def test_no_stage_imports_an_operator_folder() -> None:
    """Every stage (loading, running, judging's frame, results, report, gate, fuzz, CLI, pytest
    plugin, backends) reaches an operator through its record in the registry, never by
    importing the operator's folder; and no operator's folder imports another's."""
    reached = {
        source: {target: list(imports) for target, imports in targets.items() if operator_folder(target)}
        for source, targets in folder_imports().items()
        if source != OPERATORS
    }
    wrong = {source: targets for source, targets in reached.items() if targets and not operator_folder(source)}
    assert not wrong, f"stages import operator folders: {wrong}"
    across = {
        source: {target: imports for target, imports in targets.items() if not target.startswith(source)}
        for source, targets in reached.items() if operator_folder(source)
    }
    assert not any(across.values()), f"operator folders import each other: {across}"


def test_the_registry_lists_every_operator_folder() -> None:
    """An operator folder the registry does not import would be a folder no stage ever runs."""
    folders = {path.parent.relative_to(ROOT).as_posix() for path in (ROOT / OPERATORS).glob("*/__init__.py")}
    assert folders == {target for target in folder_imports()[OPERATORS] if operator_folder(target)}


def test_the_scan_sees_imports_in_functions_and_under_type_checking(tmp_path: Path) -> None:
    """The scan is what the tests above rest on: a function-level import and a TYPE_CHECKING
    one are edges, as module-level ones are."""
    source = tmp_path / "probe.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from conformance.results.records import Result\n"
        "def lazy():\n    from conformance.ops.topk.openvino import build_openvino\n",
        encoding="utf-8",
    )
    found = imported("conformance.probe", source, modules())
    assert {"conformance.results.records", "conformance.ops.topk.openvino"} <= found
    # And on the suite itself: the results stream's Result is imported under TYPE_CHECKING.
    known = modules()
    assert "conformance.results.records" in imported("conformance.results.output",
                                                     known["conformance.results.output"], known)
