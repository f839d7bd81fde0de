"""From a result back to what produced it: the graph variant named by its `graph` and
`k_source`, and a Python snippet that rebuilds that graph and runs it on the backend."""

from __future__ import annotations

from functools import cache

from conformance.operator.interfaces import Variant
from conformance.ops.registry import all_variants


def result_k_source(variant: Variant) -> str:
    """The `k_source` field the variant's results carry (with the suffix that tells K's type
    or symbolic input dimensions apart, where variants have one)."""
    return variant.k_label


def variant_for(graph: str, k_source: str, op: str = "topk") -> Variant | None:
    """The variant of the operator whose results carry this `graph` and `k_source`, or None
    (a minimal ONNX graph, `onnx-opset13-minimal`, is a variant of its own)."""
    return next((v for v in all_variants() if (v.op, v.graph, result_k_source(v)) == (op, graph, k_source)), None)


@cache
def graph_family(graph: str) -> str:
    """onnx / openvino / directml: the dialect a `graph` field belongs to (minimal ONNX
    graphs, `onnx-opset13-minimal`, are onnx: the report groups them with the others)."""
    for variant in all_variants():
        if variant.graph == graph:
            return variant.kind
    return graph.split("-", 1)[0] or "?"


def command_line(case_id: str, case_file: str, backend: str) -> str:
    """The CLI line that runs the case again (every graph variant of the backend), into
    reports/repro/ so that it leaves reports/latest/ alone. `--case=ID`, not `--case ID`:
    an id or a path may begin with a dash (`-rf`), which argparse would take for an option."""
    where = f"{_shell('--cases=' + case_file)} " if case_file else ""
    return (f"topk-conformance run {where}{_shell('--case=' + case_id)} {_shell('--backend=' + backend)} "
            "--out reports/repro")


def repro_snippet(
    case_id: str, case_file: str, backend: str, graph: str, k_source: str, verdict: str = "",
    rules: tuple[str, ...] | list[str] = (), op: str = "topk",
) -> str:
    """Python that loads the case by id from its file, rebuilds the graph variant and runs it
    on the backend in this process, printing the verdict the judge gives. Run it from the
    repository root (case file paths are as the run recorded them)."""
    said = verdict + (f" [{', '.join(rules)}]" if rules else "")
    file_line = (
        f"CASE_FILE = Path({case_file!r})" if case_file
        else "CASE_FILE = Path('cases')  # the case file was not recorded: set the file that defines the case"
    )
    return "\n".join([
        # Each field as a literal (repr): from a results file of another machine, none may end
        # the comment and become a line of code.
        f"# case {case_id!r} on {backend!r} through {graph!r} (K {k_source!r}); the report says: {said or '?'!r}",
        "# Run with the suite's python, from where the run was made (CASE_FILE is relative to it).",
        "from pathlib import Path",
        "",
        "from conformance.backends.registry import by_name",
        "from conformance.cases.loader import load_cases",
        "from conformance.report.repro import variant_for",
        "from conformance.running.runner import GraphCache, execute",
        "",
        file_line,
        f"case = next(c for c in load_cases([CASE_FILE]).cases if c.id == {case_id!r})",
        f"variant = variant_for({graph!r}, {k_source!r}, {op!r})",
        f"(backend,) = by_name([{backend!r}])",
        "try:",
        "    result = execute(case, backend, variant, GraphCache())",
        "finally:",
        "    backend.close()",
        "print(result.verdict, result.rules, result.domain)",
        "print(result.message)",
    ])


def _shell(text: str) -> str:
    import shlex

    return shlex.quote(text)
