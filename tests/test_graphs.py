"""The graphs the suite builds are the graphs a user means: for every documented case and
every graph variant, either a skip for the reason the dialect's spec gives, or one TopK
with the case's axis, direction, order and K in the place the variant names. ONNX graphs
must pass onnx.checker with full shape inference; OpenVINO graphs are inspected op by op."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import onnx
import openvino as ov
import pytest
from harness import cases_from_yaml, documented, documented_cases
from onnx import TensorProto, helper, numpy_helper

from conformance.graphs.directml import DirectMLDescription, InputTensor, OutputTensor, UInt, UIntArray
from conformance.graphs.errors import RuntimeRefused
from conformance.operator.graph import graph_matches, unknown_graph_entries
from conformance.ops.topk.case import Case
from conformance.ops.topk.directml import build_directml
from conformance.ops.topk.onnx import build_onnx, onnx_feeds
from conformance.ops.topk.openvino import K_NUMPY_TYPES, build_openvino, openvino_feed_types, openvino_feeds
from conformance.ops.topk.record import TOPK
from conformance.ops.topk.variants import (
    OPENVINO_K_TYPES,
    Variant,
    directml_variants,
    onnx_topk_versions,
    onnx_variants,
    openvino_variants,
)

known_graph_names = lambda: TOPK.graph_names  # noqa: E731

ONNX_FLOATS = ("float16", "float32", "float64")


def expected_onnx_skip(case: Case, opset: int) -> str | None:
    """A fragment of the skip reason the ONNX TopK spec implies, or None if it can express it."""
    if case.sort == "index":
        return "no sort-by-index"
    if case.index_type == "int32":
        return "always int64"
    if opset < 11 and not case.largest:
        return "selects the largest only"
    if opset < 11 and case.sort == "none":
        return "always sorts"
    if opset < 11 and case.dtype_name not in ONNX_FLOATS:
        return "float16/float/double only"
    if opset < 24 and case.dtype_name == "bfloat16":
        return "no bfloat16"
    return None


def expected_openvino_skip(case: Case, variant: Variant) -> str | None:
    if variant.k_type:
        bits, signed = OPENVINO_K_TYPES[variant.k_type]
        low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
        if not low <= case.k <= high:
            return f"does not fit OpenVINO's {variant.k_type}"
    if variant.version == 11:
        if case.stable is not None and case.stable != variant.stable:
            return f"asks for stable={str(case.stable).lower()}"
        return None
    if case.stable:
        return f"TopK-{variant.version} has no 'stable' attribute"
    if variant.version == 1 and case.index_type == "int64":
        return "int32 indices only"
    return None


def check_onnx_model(case: Case, variant: Variant, model: onnx.ModelProto) -> None:
    onnx.checker.check_model(model, full_check=True)
    assert [(o.domain, o.version) for o in model.opset_import] == [("", variant.version)]
    graph = model.graph
    topk = [node for node in graph.node if node.op_type == "TopK"]
    assert len(topk) == 1 and len(graph.node) == 1, [n.op_type for n in graph.node]
    node = topk[0]
    attributes = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    assert attributes["axis"] == case.axis  # as written, negative kept

    initializers = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    inputs = {i.name: i for i in graph.input}
    x_name = node.input[0]
    assert x_name in inputs and x_name not in initializers
    assert inputs[x_name].type.tensor_type.elem_type == helper.np_dtype_to_tensor_dtype(case.x.dtype)
    dims = inputs[x_name].type.tensor_type.shape.dim
    if variant.dynamic:
        # Every dimension a symbol of its own: nothing of X's shape is known before the run.
        assert len(dims) == case.x.ndim
        assert all(d.dim_param and not d.HasField("dim_value") for d in dims)
        assert len({d.dim_param for d in dims}) == case.x.ndim
    else:
        assert [d.dim_value for d in dims] == list(case.x.shape)

    feeds = onnx_feeds(case, variant)
    assert set(feeds) == set(inputs), "every graph input is fed, and nothing else"
    assert feeds[x_name] is case.x

    if variant.k_source == "attribute":
        assert attributes["k"] == case.k
        assert list(node.input) == [x_name]
        assert not initializers
    else:
        assert "k" not in attributes
        assert len(node.input) == 2
        k_name = node.input[1]
        if variant.k_source == "constant":
            assert k_name in initializers and k_name not in inputs
            k_value = initializers[k_name]
        else:
            assert k_name in inputs and k_name not in initializers
            k_type = inputs[k_name].type.tensor_type
            assert k_type.elem_type == TensorProto.INT64
            assert [d.dim_value for d in k_type.shape.dim] == [1]
            k_value = feeds[k_name]
        assert k_value.dtype == np.int64 and k_value.tolist() == [case.k]

    if variant.version >= 11:
        assert attributes["largest"] == int(case.largest)
        assert attributes["sorted"] == int(case.sort != "none")
    else:
        assert "largest" not in attributes and "sorted" not in attributes

    outputs = {o.name: o.type.tensor_type.elem_type for o in graph.output}
    assert list(outputs) == list(node.output)
    assert outputs[node.output[0]] == helper.np_dtype_to_tensor_dtype(case.x.dtype)
    assert outputs[node.output[1]] == TensorProto.INT64


def openvino_type_name(dtype_name: str) -> str:
    """float32 -> f32, bfloat16 -> bf16, int8 -> i8, uint64 -> u64."""
    if dtype_name == "bfloat16":
        return "bf16"
    return dtype_name.replace("float", "f").replace("uint", "u").replace("int", "i")


def topk_op(model: Any) -> Any:
    ops = [op for op in model.get_ordered_ops() if op.get_type_name() == "TopK"]
    assert len(ops) == 1, [op.get_type_name() for op in model.get_ordered_ops()]
    return ops[0]


# What OpenVINO 2026.4's opset API refuses while the suite builds a native graph (the
# runtime's verdict, never a skip): stable=true with sort=none, and a constant K of a
# sub-byte type its shape inference cannot read.
REFUSED_CONSTANT_K_TYPES = ("u1", "u2", "u3", "u6")


def expected_openvino_refusal(case: Case, variant: Variant) -> str | None:
    if variant.version == 11 and variant.stable and case.sort == "none":
        return "Stable sort can only be used when TopK's sorting mode is set to 'VALUE' or 'INDEX'"
    if variant.k_source == "constant" and variant.k_type in REFUSED_CONSTANT_K_TYPES:
        return "Element not supported"
    return None


def k_constant_value(node: Any, k_type: str) -> int:
    if k_type in K_NUMPY_TYPES:
        return int(np.asarray(node.get_data()))
    if k_type == "i4":  # get_vector() has no i4: the low nibble, sign-extended
        nibble = int(np.asarray(node.get_data()).ravel()[0]) & 0xF
        return nibble - 16 if nibble & 0x8 else nibble
    return int(node.get_vector()[0])


def check_openvino_model(case: Case, variant: Variant, model: Any) -> None:
    op = topk_op(model)
    assert op.get_type_info().version_id == f"opset{variant.version}"
    attributes = op.get_attributes()
    index_type = {"int32": "i32", "int64": "i64"}[case.index_type or "int32"]
    expected = {
        "axis": case.axis, "mode": "max" if case.largest else "min", "sort": case.sort,
        "index_element_type": index_type,
    }
    if variant.version == 11:
        expected["stable"] = variant.stable
    assert attributes == expected
    assert op.get_output_element_type(1) == {"i32": ov.Type.i32, "i64": ov.Type.i64}[index_type]
    assert op.get_output_element_type(0) == op.get_input_element_type(0)

    parameters = {p.get_friendly_name(): p for p in model.get_parameters()}
    data = op.input_value(0).get_node()
    assert data.get_type_name() == "Parameter"
    assert list(data.get_partial_shape().to_shape()) == list(case.x.shape)
    assert data.get_element_type().get_type_name() == openvino_type_name(case.dtype_name)
    k = op.input_value(1).get_node()
    k_type = variant.k_type or "i64"
    assert k.get_output_element_type(0).get_type_name() == k_type
    feeds = openvino_feeds(case, variant)
    feed_types = openvino_feed_types(variant)
    assert set(feeds) == set(parameters), "every parameter is fed, and nothing else"
    if variant.k_source == "constant":
        assert k.get_type_name() == "Constant"
        assert k_constant_value(k, k_type) == case.k
        assert set(parameters) == {data.get_friendly_name()}
        assert feed_types == {}
    else:
        assert variant.k_source == "input"
        assert k.get_type_name() == "Parameter"
        assert k.get_friendly_name() in parameters
        k_feed = feeds[k.get_friendly_name()]
        assert k_feed.tolist() == case.k and k_feed.shape == ()
        if k_type in K_NUMPY_TYPES:
            assert k_feed.dtype == K_NUMPY_TYPES[k_type] and feed_types == {}
        else:  # no numpy type: the backend packs the number into OpenVINO's type
            assert feed_types == {k.get_friendly_name(): k_type}


DOCUMENTED_ONNX = [
    pytest.param(case, variant, id=f"{case.id}-{variant.label}")
    for case in documented_cases() for variant in onnx_variants()
]
DOCUMENTED_OPENVINO = [
    pytest.param(case, variant, id=f"{case.id}-{variant.label}")
    for case in documented_cases() for variant in openvino_variants()
]


def test_onnx_variants_cover_every_topk_opset() -> None:
    assert onnx_topk_versions() == (1, 10, 11, 24)
    assert {v.label for v in onnx_variants()} == {
        "onnx-opset1-attribute",
        *(f"onnx-opset{o}-{k}" for o in (10, 11, 24) for k in ("constant", "input")),
        "onnx-opset11-constant-dynamic-shape", "onnx-opset11-input-dynamic-shape",
    }


@pytest.mark.parametrize(("case", "variant"), DOCUMENTED_ONNX)
def test_documented_case_onnx_graph(case: Case, variant: Variant) -> None:
    reason = variant.cannot_express(case)
    expected = expected_onnx_skip(case, variant.version)
    if expected is not None:
        assert reason is not None and expected in reason, reason
        return
    assert reason is None
    check_onnx_model(case, variant, build_onnx(case, variant))


@pytest.mark.parametrize(("case", "variant"), DOCUMENTED_OPENVINO)
def test_documented_case_openvino_graph(case: Case, variant: Variant) -> None:
    reason = variant.cannot_express(case)
    expected = expected_openvino_skip(case, variant)
    if expected is not None:
        assert reason is not None and expected in reason, reason
        return
    assert reason is None
    build_and_check_openvino(case, variant)


def build_and_check_openvino(case: Case, variant: Variant) -> None:
    """The graph as built, or OpenVINO's refusal where OpenVINO is known to refuse it."""
    refusal = expected_openvino_refusal(case, variant)
    if refusal is None:
        check_openvino_model(case, variant, build_openvino(case, variant))
        return
    with pytest.raises(RuntimeRefused) as refused:
        build_openvino(case, variant)
    assert str(refused.value).startswith("openvino.opset11.topk refused the graph: ")
    assert refusal in str(refused.value)


def test_documented_cases_exercise_every_skip_kind() -> None:
    """The parametrized tests above see both sides of each documented-case skip rule."""
    cases = documented_cases()
    assert any(c.sort == "index" for c in cases)
    assert any(not c.largest for c in cases)
    assert any(c.stable is True for c in cases) and any(c.stable is False for c in cases)
    assert any(c.axis < 0 for c in cases)


def test_negative_axis_is_kept_in_both_dialects() -> None:
    case = documented("onnx-test-top-k-negative-axis")
    assert case.axis == -1
    model = build_onnx(case, Variant("onnx", 11, "constant"))
    assert helper.get_attribute_value(model.graph.node[0].attribute[0]) == -1
    ov_model = build_openvino(case, Variant("openvino", 11, "input", True))
    assert topk_op(ov_model).get_attributes()["axis"] == -1


SYNTHETIC = """
cases:
  - id: syn-bfloat16
    source: test_graphs
    input: {dtype: bfloat16, shape: [5], data: [1.5, -2, "nan", 0.25, 3]}
    axis: 0
    k: 2
  - id: syn-int32-indices
    source: test_graphs
    input: {dtype: float32, shape: [2, 3], data: [[1, 2, 3], [6, 5, 4]]}
    axis: -1
    k: 2
    index_type: int32
  - id: syn-int64-indices
    source: test_graphs
    input: {dtype: float32, shape: [2, 3], data: [[1, 2, 3], [6, 5, 4]]}
    axis: 1
    k: 2
    index_type: int64
  - id: syn-unsorted
    source: test_graphs
    input: {dtype: float32, shape: [4], data: [4, 1, 3, 2]}
    axis: 0
    k: 2
    sort: none
  - id: syn-int8
    source: test_graphs
    input: {dtype: int8, shape: [4], data: [4, -1, 3, 2]}
    axis: 0
    k: 2
"""


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Case]:
    path: Path = tmp_path_factory.mktemp("graphs") / "synthetic.yaml"
    return {case.id: case for case in cases_from_yaml(path, SYNTHETIC)}


@pytest.mark.parametrize(
    ("case_id", "opset", "fragment"),
    [
        ("syn-bfloat16", 10, "float16/float/double only"),
        ("syn-bfloat16", 11, "no bfloat16"),
        ("syn-bfloat16", 24, None),
        ("syn-int32-indices", 11, "always int64"),
        ("syn-int32-indices", 24, "always int64"),
        ("syn-int64-indices", 11, None),
        ("syn-unsorted", 10, "always sorts"),
        ("syn-unsorted", 11, None),
        ("syn-int8", 10, "float16/float/double only"),
        ("syn-int8", 11, None),
    ],
)
def test_onnx_skip_reasons(synthetic: dict[str, Case], case_id: str, opset: int, fragment: str | None) -> None:
    case = synthetic[case_id]
    for k_source in ("constant", "input"):
        variant = Variant("onnx", opset, k_source)
        reason = variant.cannot_express(case)
        if fragment is None:
            assert reason is None
            model = build_onnx(case, variant)
            check_onnx_model(case, variant, model)
        else:
            assert reason is not None and fragment in reason, reason


def test_onnx_sort_index_skip_reason() -> None:
    case = documented("ov-topk11-spec-example-stable")
    for variant in onnx_variants():
        reason = variant.cannot_express(case)
        assert reason is not None and "no sort-by-index" in reason


def test_bfloat16_onnx_graph_is_typed_bfloat16(synthetic: dict[str, Case]) -> None:
    model = build_onnx(synthetic["syn-bfloat16"], Variant("onnx", 24, "constant"))
    assert model.graph.input[0].type.tensor_type.elem_type == TensorProto.BFLOAT16
    assert model.graph.output[0].type.tensor_type.elem_type == TensorProto.BFLOAT16


def test_unsorted_case_sets_sorted_0(synthetic: dict[str, Case]) -> None:
    model = build_onnx(synthetic["syn-unsorted"], Variant("onnx", 11, "input"))
    attributes = {a.name: helper.get_attribute_value(a) for a in model.graph.node[0].attribute}
    assert attributes["sorted"] == 0


@pytest.mark.parametrize("case_id", ["syn-int32-indices", "syn-int64-indices", "syn-bfloat16", "syn-int8"])
def test_openvino_index_types_and_skips(synthetic: dict[str, Case], case_id: str) -> None:
    case = synthetic[case_id]
    for variant in openvino_variants():
        reason = variant.cannot_express(case)
        expected = expected_openvino_skip(case, variant)
        if expected is not None:
            assert reason is not None and expected in reason, reason
            continue
        assert reason is None, reason
        build_and_check_openvino(case, variant)


def test_openvino_topk1_skips_int64_indices(synthetic: dict[str, Case]) -> None:
    case = synthetic["syn-int64-indices"]
    reason = Variant("openvino", 1, "constant").cannot_express(case)
    assert reason is not None and "int32 indices only" in reason
    assert Variant("openvino", 3, "constant").cannot_express(case) is None


def test_openvino_stable_variants_follow_the_case() -> None:
    stable, unstable = documented("ov-topk11-spec-example-stable"), documented("ov-topk11-spec-example-unstable")
    either = documented("dml-top-k1-example-3")  # no 'stable': built both ways
    for k_source in ("constant", "input"):
        topk11_stable = Variant("openvino", 11, k_source, True)
        topk11_unstable = Variant("openvino", 11, k_source, False)
        assert topk11_stable.cannot_express(stable) is None
        assert "stable=false" in (topk11_stable.cannot_express(unstable) or "")
        assert topk11_unstable.cannot_express(unstable) is None
        assert "stable=true" in (topk11_unstable.cannot_express(stable) or "")
        assert topk11_stable.cannot_express(either) is None
        assert topk11_unstable.cannot_express(either) is None
        for version in (3, 1):
            older = Variant("openvino", version, k_source)
            assert "no 'stable' attribute" in (older.cannot_express(stable) or "")
            assert older.cannot_express(unstable) is None
        assert topk_op(build_openvino(either, topk11_stable)).get_attributes()["stable"] is True
        assert topk_op(build_openvino(either, topk11_unstable)).get_attributes()["stable"] is False


CONTRACT_GRAPH_NAMES = {
    "onnx-opset1", "onnx-opset10", "onnx-opset11", "onnx-opset24",
    "openvino-topk11-stable", "openvino-topk11-unstable", "openvino-topk3", "openvino-topk1",
    "directml-topk1", "directml-topk",
}


def test_graph_names_follow_the_contract() -> None:
    """New variants (symbolic dims, K types) keep the contract's graph names."""
    names = {v.graph for v in onnx_variants() + openvino_variants() + directml_variants()}
    assert names == CONTRACT_GRAPH_NAMES


def test_every_variant_has_a_graph_and_k_source_of_its_own() -> None:
    """(case, backend, graph, k_source) names one result: merging, baselines and the gate
    key on it, so no two variants may share a (graph, k_source) pair."""
    variants = onnx_variants() + openvino_variants() + directml_variants()
    pairs = [(v.graph, v.k_label) for v in variants]
    assert len(pairs) == len(set(pairs)), sorted(p for p in pairs if pairs.count(p) > 1)
    assert len({v.label for v in variants}) == len(variants)


# --- symbolic input dimensions (ONNX opset 11) --------------------------------------

def test_dynamic_shape_variants_are_onnx_opset11_only() -> None:
    dynamic = [v for v in onnx_variants() + openvino_variants() if v.dynamic]
    assert {(v.graph, v.k_label, v.x_shape) for v in dynamic} == {
        ("onnx-opset11", "constant-dynamic-shape", "dynamic"),
        ("onnx-opset11", "input-dynamic-shape", "dynamic"),
    }
    assert all(v.x_shape == "static" for v in onnx_variants() + openvino_variants() if not v.dynamic)


@pytest.mark.parametrize("k_source", ["constant", "input"])
def test_dynamic_shape_graph_is_the_static_graph_with_symbols(k_source: str) -> None:
    """Only X's dimensions differ from the static graph; ONNX's shape inference still
    derives the outputs' rank and, for a constant K, the K axis."""
    case = documented("dml-top-k1-example-3")
    static = build_onnx(case, Variant("onnx", 11, k_source))
    dynamic = build_onnx(case, Variant("onnx", 11, k_source, dynamic=True))
    assert static.graph.node == dynamic.graph.node
    assert static.graph.initializer == dynamic.graph.initializer
    inferred = onnx.shape_inference.infer_shapes(dynamic, strict_mode=True)
    for output in inferred.graph.output:
        dims = output.type.tensor_type.shape.dim
        assert len(dims) == case.x.ndim
        assert [bool(d.dim_param) for i, d in enumerate(dims) if i != case.axis_index] == [True] * 3
        axis_dim = dims[case.axis_index]
        if k_source == "constant":
            assert axis_dim.dim_value == case.k
        else:
            assert not axis_dim.HasField("dim_value")


def test_dynamic_shapes_leave_k_larger_than_the_axis_to_the_runtime(tmp_path: Path) -> None:
    """With X's dimensions symbolic, onnx.checker cannot see that a constant K exceeds the
    axis: the dynamic constant-K graph of a K > n case is valid ONNX."""
    text = """
cases:
  - id: k-too-large
    source: test_graphs
    input: {dtype: float32, shape: [2, 5], data: [[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]]}
    axis: 1
    k: 6
    expect_error: true
"""
    (case,) = cases_from_yaml(tmp_path / "k.yaml", text)
    onnx.checker.check_model(build_onnx(case, Variant("onnx", 11, "constant", dynamic=True)), full_check=True)


# --- K in every integer type OpenVINO has (TopK-11 stable=true) ---------------------

def test_k_types_are_every_integer_type_openvino_has() -> None:
    """Derived from OpenVINO itself: every element type it calls an integral number, less
    i64 (the plain variants' K), nf4 (4-bit normal float), string and dynamic."""
    integral = {
        t.get_type_name() for t in (getattr(ov.Type, name) for name in dir(ov.Type))
        if isinstance(t, ov.Type) and t.is_integral_number()
    }
    assert set(OPENVINO_K_TYPES) == integral - {"i64", "nf4", "string", "dynamic"}
    typed = [v for v in openvino_variants() if v.k_type]
    assert {(v.version, v.stable) for v in typed} == {(11, True)}, "TopK-11 stable=true only"
    assert {(v.k_type, v.k_source) for v in typed} == {
        (t, k) for t in OPENVINO_K_TYPES for k in ("constant", "input")
    }
    assert {v.k_label for v in typed} == {f"{k}-{t}" for t in OPENVINO_K_TYPES for k in ("constant", "input")}


@pytest.mark.parametrize(("k_type", "k", "range_"), [
    ("u1", 1, None), ("u1", 2, "0..1"), ("u2", 3, None), ("u2", 4, "0..3"), ("i4", 7, None),
    ("i4", 8, "-8..7"), ("i4", -1, None), ("u8", -1, "0..255"), ("i8", 127, None), ("i8", 128, "-128..127"),
])
def test_k_outside_its_type_is_a_skip(k_type: str, k: int, range_: str | None) -> None:
    x = np.arange(300, dtype=np.float32)
    case = Case(id="k-type", source="test", file=Path("<test>"), x=x, axis=0, k=k, expect_error=k < 0)
    reason = Variant("openvino", 11, "input", True, k_type).cannot_express(case)
    assert reason == (None if range_ is None else f"K = {k} does not fit OpenVINO's {k_type} ({range_})")


# --- graphs: [...] -------------------------------------------------------------------

def test_known_graph_names_are_every_graph_the_suite_builds() -> None:
    # With the ONNX graphs' minimal twins (contract section 7).
    minimal = {f"{name}-minimal" for name in CONTRACT_GRAPH_NAMES if name.startswith("onnx-")}
    assert set(known_graph_names()) == CONTRACT_GRAPH_NAMES | minimal


@pytest.mark.parametrize(("entry", "selected"), [
    # An ONNX graph's name selects its minimal twin too (contract section 7).
    ("onnx-opset1", {"onnx-opset1", "onnx-opset1-minimal"}),
    ("onnx-opset11", {"onnx-opset11", "onnx-opset11-minimal"}),
    ("onnx-opset11-minimal", {"onnx-opset11-minimal"}),
    ("onnx", {f"onnx-opset{o}{m}" for o in (1, 10, 11, 24) for m in ("", "-minimal")}),
    ("openvino-topk11", {"openvino-topk11-stable", "openvino-topk11-unstable"}),
    ("openvino-topk11-stable", {"openvino-topk11-stable"}),
    ("openvino", {"openvino-topk11-stable", "openvino-topk11-unstable", "openvino-topk3", "openvino-topk1"}),
    ("directml-topk1", {"directml-topk1"}),
    ("directml", {"directml-topk1", "directml-topk"}),
    ("onnx-opset2", set()), ("openvino-topk", set()), ("onnx-opset11-constant", set()),
])
def test_a_graphs_entry_selects_whole_names_or_dash_prefixes(entry: str, selected: set[str]) -> None:
    assert {name for name in known_graph_names() if graph_matches(entry, name)} == selected
    assert unknown_graph_entries([entry], known_graph_names()) == ([] if selected else [entry])


def test_an_unchecked_graph_declares_no_negative_dimension(tmp_path: Path) -> None:
    """A case expecting an error may have K = -1: its graphs leave the K axis of the
    outputs symbolic rather than declare a dimension of -1, which is no shape at all (a
    runtime, or the Wine bridge reading the declared outputs, would refuse the declaration
    instead of judging K)."""
    text = """
cases:
  - id: k-negative
    source: test_graphs
    input: {dtype: float32, shape: [2, 5], data: [[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]]}
    axis: 1
    k: -1
    expect_error: true
"""
    (case,) = cases_from_yaml(tmp_path / "k.yaml", text)
    for variant in onnx_variants():
        model = build_onnx(case, variant, check=False)
        for output in model.graph.output:
            dims = output.type.tensor_type.shape.dim
            assert all(d.dim_value >= 0 for d in dims), (variant.label, dims)
            assert dims[1].dim_param == "k" and not dims[1].HasField("dim_value")


def test_directml_descriptions_list_the_desc_structs_members_in_order() -> None:
    """DML_TOP_K1_OPERATOR_DESC and DML_TOP_K_OPERATOR_DESC, member for member (the bridge lays
    the struct out from this order)."""
    x = np.zeros((2, 5, 3), dtype=np.int8)
    case = Case(id="dml", source="test", file=Path("<test>"), x=x, axis=-2, k=4, largest=False, index_type="int64")
    top_k1, top_k = (build_directml(case, variant) for variant in directml_variants())
    assert (top_k1.operator, top_k1.type) == ("DML_OPERATOR_TOP_K1", 112)
    assert (top_k.operator, top_k.type) == ("DML_OPERATOR_TOP_K", 71)
    assert top_k1.members == (
        InputTensor("InputTensor", "X"),
        OutputTensor("OutputValueTensor", "values", "int8", (2, 4, 3)),
        OutputTensor("OutputIndexTensor", "indices", "uint64", (2, 4, 3)),
        UInt("Axis", 1), UInt("K", 4), UInt("AxisDirection", 0),
    )
    assert top_k.members == top_k1.members[:-1]
    assert [o.output for o in top_k1.outputs] == ["values", "indices"]


def test_a_directml_description_refuses_what_its_struct_cannot_hold() -> None:
    with pytest.raises(ValueError, match="K is a UINT"):
        UInt("K", 2**32)
    with pytest.raises(ValueError, match="Axes holds UINTs"):
        UIntArray("Axes", "AxisCount", (-1,))
    with pytest.raises(ValueError, match="appears twice"):
        DirectMLDescription("DML_OPERATOR_ARGMAX", 138, (UInt("Axis", 0), UInt("Axis", 1)))
