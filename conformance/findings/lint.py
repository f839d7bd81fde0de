"""`findings lint`: what keeps a finding's report from standing on its own, found without running
anything: the suite's own words in the report, a repro longer than a reader should have to read,
an import its record's `needs` does not cover, a `see_also` naming no finding."""

from __future__ import annotations

import ast
import sys
from collections.abc import Mapping
from functools import cache
from importlib import metadata
from pathlib import Path

from conformance.findings.isolated import closure, normal
from conformance.findings.plain import WORKING_LINES, Vocabulary, working_lines
from conformance.findings.records import Finding
from conformance.findings.runtimes import releases_of
from conformance.findings.upstream import issue_body

# The one variable a repro reads for the DirectML setup is the suite's cache, as the docs say.
_OTHER_SETUP_VARIABLES = ("DIRECTML_WINE_ROOT",)


def problems(finding: Finding, known: Mapping[str, Finding], vocabulary: Vocabulary) -> list[str]:
    said: list[str] = []
    source = finding.script.read_text(encoding="utf-8")
    lines = working_lines(source)
    if lines > WORKING_LINES:
        said.append(f"{finding.repro.script}: {lines} working lines (at most {WORKING_LINES}: not counting the "
                    "docstring, comments and blank lines)")
    words = vocabulary.suite_words(issue_body(finding, None).body)
    if words:
        said.append("its report uses the suite's own words: " + "; ".join(words))
    beside = {name.removesuffix(".py") for name in finding.repro.files if name.endswith(".py")}
    said += [f"{finding.repro.script} imports {module}, which its needs do not provide ({why})"
             for module, why in _uncovered_imports(source, finding.repro.needs) if module not in beside]
    for name in (finding.repro.script, *finding.repro.files, *filter(None, [finding.repro.windows])):
        text = (finding.folder / name).read_text(encoding="utf-8", errors="replace")
        said += [f"{name} reads {variable}; the DirectML setup's one variable is TOPK_CONFORMANCE_CACHE"
                 for variable in _OTHER_SETUP_VARIABLES if variable in text]
    said += [f"see_also names {other}, which is no finding" for other in finding.see_also if other not in known]
    return said


def _uncovered_imports(source: str, needs: tuple[str, ...]) -> list[tuple[str, str]]:
    provided = set(closure(needs))
    # A need not installed here cannot be asked what it provides: take its module's usual name
    # (onnxruntime-openvino installs `onnxruntime`).
    absent = {_module_of(need) for need in needs if normal(need) not in provided}
    missing: list[tuple[str, str]] = []
    for module in sorted(_imported(source)):
        if module in sys.stdlib_module_names or module == "__future__" or module in absent:
            continue
        distributions = {normal(name) for name in _providers().get(module, [])}
        if not distributions:
            missing.append((module, "nothing installed here provides it"))
        elif not distributions & provided:
            missing.append((module, f"it comes from {', '.join(sorted(distributions))}"))
    return missing


def _module_of(distribution: str) -> str:
    known = releases_of(distribution)
    return known.module if known and known.module else distribution.replace("-", "_")


def _imported(source: str) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@cache
def _providers() -> Mapping[str, list[str]]:
    return metadata.packages_distributions()


def vocabulary_here(root: Path) -> Vocabulary:
    """The suite's words: the cases beside the findings folder (a checkout) and every backend."""
    from conformance.backends.registry import all_backends  # the registry imports every backend: only when linting

    return Vocabulary.of(root.parent / "cases", [backend.name for backend in all_backends()])
