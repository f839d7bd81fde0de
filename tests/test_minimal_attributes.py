"""`attributes: minimal` (contract section 7): a case's ONNX graphs then carry only the
attributes whose values differ from the ONNX default for the opset, under graph names ending
in `-minimal`; every other case's graphs write every attribute, as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import onnx
import pytest
from harness import CASES, baseline, baseline_set, non_pass_set, run_cli
from onnx import helper

from conformance.cases.loader import case_schema, load_cases
from conformance.operator.attributes import MODES
from conformance.operator.interfaces import Case, Variant
from conformance.ops.registry import OPERATORS
from conformance.report.repro import graph_family, variant_for

MINIMAL_FILES = (
    CASES / "documented" / "onnx-backend-node-default-attributes.yaml",
    CASES / "argmax" / "documented" / "onnx-backend-node-default-attributes.yaml",
    CASES / "edge" / "minimal_attributes.yaml",
    CASES / "argmax" / "edge" / "minimal_attributes.yaml",
)
# The ONNX defaults, written out here rather than read from onnx's schemas as the builders do:
# (operator, first opset) -> attribute -> default.
DEFAULTS: dict[str, dict[str, tuple[int, Any]]] = {
    "TopK": {"axis": (1, -1), "largest": (11, 1), "sorted": (11, 1)},
    "ArgMax": {"axis": (1, 0), "keepdims": (1, 1), "select_last_index": (12, 0)},
    "ArgMin": {"axis": (1, 0), "keepdims": (1, 1), "select_last_index": (12, 0)},
}


def minimal_cases() -> list[Case]:
    loaded = load_cases(list(MINIMAL_FILES))
    assert not loaded.errors, [str(e) for e in loaded.errors]
    assert all(case.attributes == "minimal" for case in loaded.cases)
    return loaded.cases


def onnx_graphs(case: Case, minimal: bool) -> list[tuple[Variant, onnx.NodeProto]]:
    """The ONNX variants of the case's operator that are (not) minimal and can express it,
    with the node each builds."""
    record = OPERATORS[case.op]
    built = []
    for variant in record.variants():
        if variant.kind == "onnx" and variant.graph.endswith("-minimal") == minimal \
                and variant.cannot_express(case) is None and not getattr(variant, "dynamic", False):
            model = record.build(case, variant).model
            onnx.checker.check_model(model, full_check=True)
            (node,) = model.graph.node
            built.append((variant, node))
    return built


def written(node: onnx.NodeProto) -> dict[str, Any]:
    return {attribute.name: helper.get_attribute_value(attribute) for attribute in node.attribute}


def every_attribute(case: Any, op_type: str, opset: int) -> dict[str, Any]:
    """What the case's node means, every attribute spelled out (the graphs of `attributes: all`)."""
    if op_type == "TopK":
        meaning = {"axis": case.axis}
        if opset == 1:
            meaning["k"] = case.k
        if opset >= 11:
            meaning |= {"largest": int(case.largest), "sorted": int(case.sort != "none")}
        return meaning
    meaning = {"axis": case.axes[0], "keepdims": int(case.keepdims)}
    if opset >= 12:
        meaning["select_last_index"] = int(case.select_last_index)
    return meaning


@pytest.mark.parametrize("case", minimal_cases(), ids=lambda case: case.id)
def test_minimal_graphs_write_only_what_is_not_the_default(case: Any) -> None:
    graphs = onnx_graphs(case, minimal=True)
    assert graphs, "no minimal ONNX graph expresses the case"
    for variant, node in graphs:
        assert variant.graph == f"onnx-opset{variant.version}-minimal"
        defaults = {name: value for name, (since, value) in DEFAULTS[node.op_type].items() if variant.version >= since}
        meaning = every_attribute(case, node.op_type, variant.version)
        wanted = {name: value for name, value in meaning.items() if name not in defaults or defaults[name] != value}
        assert written(node) == wanted, (variant.label, written(node))
        # What is left out is what the default means: the node means the same as the full one.
        assert {**{n: v for n, v in defaults.items() if n in meaning}, **written(node)} == meaning


@pytest.mark.parametrize("case", minimal_cases(), ids=lambda case: case.id)
def test_the_same_case_written_out_has_every_attribute(case: Any) -> None:
    """The usual graphs of the same case (had it `attributes: all`) write every attribute:
    what the minimal ones leave out is really left out."""
    import dataclasses

    full = dataclasses.replace(case, attributes="all")
    left_out = 0
    for (variant, node), (twin, minimal_node) in zip(onnx_graphs(full, minimal=False), onnx_graphs(case, minimal=True),
                                                     strict=True):
        assert twin.graph == f"{variant.graph}-minimal" and twin.k_label == variant.k_label
        assert written(node) == every_attribute(case, node.op_type, variant.version)
        left_out += len(node.attribute) - len(minimal_node.attribute)
    assert left_out > 0


def test_the_upstream_nodes_are_rebuilt_as_upstream_writes_them() -> None:
    """test_top_k_negative_axis writes axis=-1 only (the default): no attribute from opset 10
    on, only k at opset 1; test_argmax_default_axis_* write keepdims=1 and (the
    _select_last_index ones) select_last_index=1: the latter alone remains."""
    cases = {case.id: case for case in minimal_cases()}
    negative_axis = cases["onnx-test-top-k-negative-axis-minimal"]
    topk = {v.version: written(node) for v, node in onnx_graphs(negative_axis, True)}
    assert topk == {1: {"k": 3}, 10: {}, 11: {}, 24: {}}
    smallest = {v.version: written(node) for v, node in onnx_graphs(cases["onnx-test-top-k-smallest-minimal"], True)}
    assert smallest == {11: {"axis": 1, "largest": 0}, 24: {"axis": 1, "largest": 0}}
    for op in ("argmax", "argmin"):
        plain = onnx_graphs(cases[f"onnx-node-test-{op}-default-axis-random-minimal"], True)
        assert {v.version: written(node) for v, node in plain} == {1: {}, 11: {}, 12: {}, 13: {}}
        last = onnx_graphs(cases[f"onnx-node-test-{op}-default-axis-random-select-last-index-minimal"], True)
        assert {v.version: written(node) for v, node in last} == {12: {"select_last_index": 1},
                                                                  13: {"select_last_index": 1}}


def test_every_operator_and_opset_has_minimal_graphs_in_the_cases() -> None:
    """Over the whole corpus (other operators' minimal cases live in their own folders)."""
    loaded = load_cases([CASES])
    assert not loaded.errors, [str(e) for e in loaded.errors][:5]
    expressed = {(case.op, variant.graph) for case in loaded.cases if case.attributes == "minimal"
                 for variant in OPERATORS[case.op].variants()
                 if variant.runs_on(case) and variant.cannot_express(case) is None}
    for record in OPERATORS.values():
        names = {name for name in record.graph_names if name.startswith("onnx-") and name.endswith("-minimal")}
        assert names, record.name
        assert {(record.name, name) for name in names} <= expressed, record.name


def test_minimal_and_usual_graphs_run_on_their_own_cases_only() -> None:
    cases = minimal_cases()
    usual = load_cases([CASES / "documented" / "onnx-backend-node.yaml"]).cases
    for case in [*cases, *usual]:
        for variant in OPERATORS[case.op].variants():
            if variant.kind != "onnx":
                continue
            minimal = variant.graph.endswith("-minimal")
            if minimal != (case.attributes == "minimal"):
                assert not variant.runs_on(case), (case.id, variant.label)
    native = [v for v in OPERATORS["topk"].variants() if v.kind != "onnx"]
    assert native and all(v.runs_on(cases[0]) for v in native if not getattr(v, "k_type", ""))


def test_minimal_graph_names_map_back_to_their_variants() -> None:
    for record in OPERATORS.values():
        for variant in record.variants():
            if variant.graph.endswith("-minimal"):
                assert variant_for(variant.graph, variant.k_label, record.name) == variant
                assert graph_family(variant.graph) == "onnx"


def test_a_case_without_axis_takes_the_onnx_default(tmp_path: Path) -> None:
    path = tmp_path / "no-axis.yaml"
    path.write_text(
        "cases:\n"
        "  - {id: topk-no-axis, source: s, k: 1, input: {dtype: float32, shape: [2, 3], "
        "data: [[1, 2, 3], [4, 5, 6]]}}\n"
        "  - {id: argmax-no-axis, source: s, op: argmax, input: {dtype: float32, shape: [2, 3], "
        "data: [[1, 2, 3], [4, 5, 6]]}}\n", encoding="utf-8")
    loaded = load_cases([path])
    assert not loaded.errors, [str(e) for e in loaded.errors]
    topk, argmax = loaded.cases
    assert topk.attributes == argmax.attributes == "all"
    assert (topk.axis, argmax.axes) == (-1, (0,))  # type: ignore[attr-defined]
    # Its usual graphs write the default out.
    assert all(written(node)["axis"] == -1 for _, node in onnx_graphs(topk, minimal=False))
    assert all(written(node)["axis"] == 0 for _, node in onnx_graphs(argmax, minimal=False))


@pytest.mark.parametrize(("field", "text", "message"), [
    ("attributes", "attributes: some", "'some' is not one of ['all', 'minimal']"),
    ("attributes", "attributes: [minimal]", "is not one of ['all', 'minimal']"),
    ("graphs[0]", "graphs: [onnx-opset13-minimal]", "is a graph of cases with 'attributes: minimal'"),
])
def test_a_bad_attributes_field_names_file_case_and_field(tmp_path: Path, field: str, text: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        "cases:\n"
        "  - id: bad-attributes\n    source: s\n    op: argmax\n"
        f"    {text}\n"
        "    input: {dtype: float32, shape: [3], data: [1, 2, 3]}\n", encoding="utf-8")
    loaded = load_cases([path])
    assert not loaded.cases
    (error,) = loaded.errors
    assert (error.case, error.field) == ("bad-attributes", field)
    assert message in error.message
    assert str(error).startswith(f"{error.file}: case 'bad-attributes': {field}: ") and "bad.yaml" in error.file


def test_the_shipped_schema_offers_both_modes() -> None:
    for definition in ("common", "topk_case", "argmax_case"):
        assert case_schema()["$defs"][definition]["properties"]["attributes"]["enum"] == list(MODES)


def test_the_new_cases_pass_on_the_reference_and_onnx_runtime(tmp_path: Path) -> None:
    """A run of every minimal case on onnx-reference and ort-cpu: only -minimal ONNX graphs,
    every one a pass on the reference evaluator, on ONNX Runtime a pass or a discrepancy its
    committed baseline records (float16 at opset 1)."""
    cases = minimal_cases()
    selected = [f"--case={case.id}" for case in cases]
    completed = run_cli("run", *selected, "--backend", "onnx-reference", "--backend", "ort-cpu", "--out", tmp_path)
    assert completed.returncode == 0, completed.stderr[-3000:]
    results = json.loads((tmp_path / "results.json").read_text())["results"]
    assert {r["case"] for r in results} == {case.id for case in cases}
    onnx_results = [r for r in results if r["graph"].startswith("onnx-")]
    assert onnx_results and all(r["graph"].endswith("-minimal") for r in onnx_results)
    reference = [r for r in results if r["backend"] == "onnx-reference"]
    assert all(r["verdict"] in ("pass", "skip") for r in reference), [r for r in reference if r["verdict"] != "pass"]
    ort = [r for r in results if r["backend"] == "ort-cpu"]
    assert non_pass_set(ort) <= baseline_set(baseline("ort-cpu")), non_pass_set(ort) - baseline_set(baseline("ort-cpu"))
    for case in cases:
        for backend in ("onnx-reference", "ort-cpu"):
            assert any(r["case"] == case.id and r["backend"] == backend and r["verdict"] == "pass"
                       and r["graph"].endswith("-minimal") for r in results), (case.id, backend)
