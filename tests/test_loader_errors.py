"""Malformed case files: one error line naming file, case and field, while every other case
and file still loads; and values that must survive loading bit for bit."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from conformance.cases.loader import CaseSet, load_cases

GOOD_CASE = """\
  - id: good
    source: "a well-formed neighbour"
    input: {dtype: float32, shape: [2, 3], data: [[1, 2, 3], [4, 5, 6]]}
    axis: 1
    k: 2
"""

OTHER_FILE = """\
cases:
  - id: other-file
    source: "a well-formed case in another file"
    input: {dtype: int32, shape: [4], data: [4, 1, 3, 2]}
    axis: 0
    k: 2
"""


def one_case(
    input_: str = "{dtype: float32, shape: [2, 3], data: [[1, 2, 3], [4, 5, 6]]}",
    rest: str = "axis: 1\n    k: 2",
    case_id: str = "bad",
) -> str:
    return f"  - id: {case_id}\n    source: test\n    input: {input_}\n    {rest}\n"


def load(tmp_path: Path, files: dict[str, str]) -> CaseSet:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return load_cases([tmp_path])


# (case text, field named in the error)
MALFORMED: dict[str, tuple[str, str]] = {
    "row-too-short": (
        one_case("{dtype: float32, shape: [2, 3], data: [[1, 2, 3], [4, 5]]}"), "input.data[1]"),
    "row-too-long": (
        one_case("{dtype: float32, shape: [2, 3], data: [[1, 2, 3, 4], [4, 5, 6]]}"),
        "input.data[0]"),
    "too-deep": (
        one_case("{dtype: float32, shape: [2], data: [[1], [2]]}", "axis: 0\n    k: 1"),
        "input.data[0]"),
    "uint8-300": (
        one_case("{dtype: uint8, shape: [1, 3], data: [[1, 300, 2]]}"), "input.data[0][1]"),
    "int8-negative-129": (
        one_case("{dtype: int8, shape: [1, 3], data: [[1, 2, -129]]}"), "input.data[0][2]"),
    "uint32-negative": (
        one_case("{dtype: uint32, shape: [1, 3], data: [[-1, 2, 3]]}"), "input.data[0][0]"),
    "int64-2**64": (
        one_case("{dtype: int64, shape: [1, 3], data: [[1, 18446744073709551616, 3]]}"),
        "input.data[0][1]"),
    "int64-2**63": (
        one_case("{dtype: int64, shape: [1, 3], data: [[1, 9223372036854775808, 3]]}"),
        "input.data[0][1]"),
    "int32-fraction": (
        one_case("{dtype: int32, shape: [1, 3], data: [[1, 1.5, 3]]}"), "input.data[0][1]"),
    "int32-nan-string": (
        one_case("{dtype: int32, shape: [1, 3], data: [[1, 'nan', 3]]}"), "input.data[0][1]"),
    "float16-overflow": (
        one_case("{dtype: float16, shape: [1, 3], data: [[1, 70000.0, 3]]}"), "input.data[0][1]"),
    "float64-overflow-int": (
        one_case(f"{{dtype: float64, shape: [1, 2], data: [[1, {2**1024}]]}}", "axis: 1\n    k: 1"),
        "input.data[0][1]"),
    "float-bad-string": (
        one_case("{dtype: float32, shape: [1, 3], data: [[1, 'big', 3]]}"), "input.data[0][1]"),
    "axis-out-of-range": (one_case(rest="axis: 2\n    k: 2"), "axis"),
    "axis-negative-out-of-range": (one_case(rest="axis: -3\n    k: 2"), "axis"),
    "axis-float": (one_case(rest="axis: 1.0\n    k: 2"), "axis"),
    "k-float": (one_case(rest="axis: 1\n    k: 2.0"), "k"),
    "shape-float": (
        one_case("{dtype: float32, shape: [2.0, 3], data: [[1, 2, 3], [4, 5, 6]]}"),
        "input.shape[0]"),
    "unknown-dtype": (
        one_case("{dtype: float8, shape: [2, 3], data: [[1, 2, 3], [4, 5, 6]]}"), "input.dtype"),
    "unknown-field-in-case": (one_case(rest="axis: 1\n    k: 2\n    colour: red"), "colour"),
    "unknown-field-in-input": (
        one_case("{dtype: float32, shape: [2, 3], data: [[1, 2, 3], [4, 5, 6]], seed: 1}"),
        "input.seed"),
    "missing-k": (one_case(rest="axis: 1"), "k"),
    "missing-dtype": (one_case("{shape: [2, 3], data: [[1, 2, 3], [4, 5, 6]]}"), "input.dtype"),
    "data-and-generator": (
        one_case("{dtype: float32, shape: [2, 3], data: [[1, 2, 3], [4, 5, 6]], "
                 "generator: {name: uniform}}"),
        "input"),
    "k-above-n": (one_case(rest="axis: 1\n    k: 4"), "k"),
    "k-negative": (one_case(rest="axis: 1\n    k: -1"), "k"),
    "generator-bad-count": (
        one_case("{dtype: float32, shape: [2, 3], generator: {name: few_distinct, count: 0}}"),
        "input.generator.count"),
    "generator-unknown-param": (
        one_case("{dtype: float32, shape: [2, 3], generator: {name: uniform, count: 3}}"),
        "input.generator.count"),
    "generator-unknown-name": (
        one_case("{dtype: float32, shape: [2, 3], generator: {name: gaussian}}"),
        "input.generator.name"),
    "generator-special-for-ints": (
        one_case("{dtype: int32, shape: [2, 3], generator: {name: special}}"),
        "input.generator.name"),
    "generator-iota-leaves-int8": (
        one_case("{dtype: int8, shape: [2, 3], generator: {name: iota, start: 126}}"),
        "input.generator"),
    "generator-iota-not-exact-in-float16": (
        one_case("{dtype: float16, shape: [2, 3], generator: {name: iota, start: 2048}}"),
        "input.generator"),
    "generator-iota-fractional-step-for-ints": (
        one_case("{dtype: int32, shape: [2, 3], generator: {name: iota, step: 0.5}}"),
        "input.generator.step"),
    "generator-negative-seed": (
        one_case("{dtype: float32, shape: [2, 3], generator: {name: uniform, seed: -1}}"),
        "input.generator.seed"),
    "largest-not-bool": (one_case(rest="axis: 1\n    k: 2\n    largest: 'yes'"), "largest"),
    "sort-unknown": (one_case(rest="axis: 1\n    k: 2\n    sort: descending"), "sort"),
    "index-type-unknown": (one_case(rest="axis: 1\n    k: 2\n    index_type: uint32"),
                           "index_type"),
    "expected-wrong-shape": (
        one_case(rest="axis: 1\n    k: 2\n    expected: "
                      "{values: [[3, 2], [6]], indices: [[2, 1], [2, 1]]}"),
        "expected.values[1]"),
    "expected-index-out-of-range": (
        one_case(rest="axis: 1\n    k: 2\n    expected: "
                      "{values: [[3, 2], [6, 5]], indices: [[2, 1], [3, 1]]}"),
        "expected.indices"),
    "expected-and-expected-any": (
        one_case(rest="axis: 1\n    k: 2\n"
                      "    expected: {values: [[3, 2], [6, 5]], indices: [[2, 1], [2, 1]]}\n"
                      "    expected_any: [{values: [[3, 2], [6, 5]], indices: [[2, 1], [2, 1]]}]"),
        "expected_any"),
    "expected-any-bad-value": (
        one_case(rest="axis: 1\n    k: 2\n    expected_any:\n"
                      "      - {values: [[3, 2], [6, 5]], indices: [[2, 1], [2, 1]]}\n"
                      "      - {values: [[3, 2], [6, x]], indices: [[2, 1], [2, 1]]}"),
        "expected_any[1].values[1][1]"),
    "graphs-unknown": (one_case(rest="axis: 1\n    k: 2\n    graphs: [onnx-opset11, openvino-topk12]"), "graphs[1]"),
    # Hostile input (tests/test_broken_input.py has the whole corpus): still one line, naming the field.
    "duplicate-key": (one_case(rest="axis: 1\n    k: 1\n    k: 3"), "k"),
    "duplicate-key-in-input": (
        one_case("{dtype: float32, dtype: int8, shape: [2, 3], data: [[1, 2, 3], [4, 5, 6]]}"), "input.dtype"),
    "k-2**70-expecting-an-error": (one_case(rest=f"axis: 1\n    k: {2**70}\n    expect_error: true"), "k"),
    "alias-in-data": (
        one_case("{dtype: float32, shape: [2, 3], data: [&row [1, 2, 3], *row]}"), "input.data[1]"),
    "generator-shape-2**63": (
        one_case(f"{{dtype: float32, shape: [2, {2**63}], generator: {{name: uniform}}}}"), "input.shape[1]"),
    "generator-10**9-elements": (
        one_case("{dtype: float32, shape: [1000, 1000000], generator: {name: uniform}}"), "input.shape"),
    "generator-uniform-infinite-bounds": (
        one_case("{dtype: float32, shape: [2, 3], generator: {name: uniform, low: -.inf, high: .inf}}"),
        "input.generator.low"),
    # Contract section 6: `op` names the operator, whose fields the case takes, and only those.
    "topk-field-on-argmax": (one_case(rest="op: argmax\n    axis: 1\n    k: 2"), "k"),
    "argmax-field-on-topk": (one_case(rest="axis: 1\n    k: 2\n    keepdims: true"), "keepdims"),
    "op-unknown": (one_case(rest="op: relu\n    axis: 1\n    k: 2"), "op"),
    "op-not-a-string": (one_case(rest="op: [topk]\n    axis: 1\n    k: 2"), "op"),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_case_gives_one_error_line(tmp_path: Path, name: str) -> None:
    text, field = MALFORMED[name]
    loaded = load(tmp_path, {"a.yaml": "cases:\n" + text + GOOD_CASE, "b.yaml": OTHER_FILE})
    assert len(loaded.errors) == 1, [str(e) for e in loaded.errors]
    line = str(loaded.errors[0])
    assert "\n" not in line
    assert "a.yaml" in line
    assert "case 'bad'" in line
    assert f"'bad': {field}: " in line, line
    assert loaded.errors[0].field == field
    assert sorted(case.id for case in loaded.cases) == ["good", "other-file"]


def test_an_out_of_range_axis_is_never_taken_for_a_repeated_one(tmp_path: Path) -> None:
    """ArgMax axis [5, 1] on a rank-2 input: 5 is out of range (refused, or, in a case that
    expects an error, kept for the runtime to refuse), not "one axis twice" (5 mod 2 = 1)."""
    loaded = load(tmp_path, {"a.yaml": "cases:\n" + one_case(rest="op: argmax\n    axis: [5, 1]")
                             + one_case(rest="op: argmax\n    axis: [5, 1]\n    expect_error: true", case_id="kept")})
    said = [str(error).split(": ", 2)[2] for error in loaded.errors]
    assert said == ["axis[0]: 5 is out of range for rank 2 (valid: -2..1)"]
    assert [case.id for case in loaded.cases] == ["kept"]


def test_error_line_format(tmp_path: Path) -> None:
    text, _ = MALFORMED["uint8-300"]
    loaded = load(tmp_path, {"a.yaml": "cases:\n" + text})
    line = str(loaded.errors[0])
    assert line.startswith(str(tmp_path / "a.yaml") + ": case 'bad': input.data[0][1]: ")
    assert "300" in line and "uint8" in line


def test_case_without_id_is_named_by_position(tmp_path: Path) -> None:
    text = GOOD_CASE + "  - source: s\n    input: {dtype: int8, shape: [1], data: [1]}\n" \
        "    axis: 0\n    k: 1\n"
    loaded = load(tmp_path, {"a.yaml": "cases:\n" + text})
    assert [str(e).split(": ", 1)[1] for e in loaded.errors] == [
        "case '#2': id: required field is missing"
    ]
    assert [case.id for case in loaded.cases] == ["good"]


def test_bad_id_pattern(tmp_path: Path) -> None:
    loaded = load(tmp_path, {"a.yaml": "cases:\n" + one_case(case_id="Bad_ID") + GOOD_CASE})
    assert len(loaded.errors) == 1
    assert "case 'Bad_ID': id: " in str(loaded.errors[0])


def test_duplicate_id_across_files(tmp_path: Path) -> None:
    first = "cases:\n" + one_case(case_id="dup")
    second = "cases:\n" + one_case(case_id="dup") + GOOD_CASE
    loaded = load(tmp_path, {"a.yaml": first, "b.yaml": second})
    assert len(loaded.errors) == 1
    line = str(loaded.errors[0])
    assert "b.yaml" in line and "case 'dup'" in line and "'dup': id: " in line
    assert "a.yaml" in line  # says where the id was first defined
    assert sorted(case.id for case in loaded.cases) == ["dup", "good"]
    dup = next(case for case in loaded.cases if case.id == "dup")
    assert dup.file.name == "a.yaml"


def test_duplicate_id_in_one_file(tmp_path: Path) -> None:
    loaded = load(tmp_path, {"a.yaml": "cases:\n" + GOOD_CASE + GOOD_CASE})
    assert len(loaded.errors) == 1
    assert "case 'good': id: duplicate id" in str(loaded.errors[0])
    assert [case.id for case in loaded.cases] == ["good"]


def test_yaml_syntax_error_spares_other_files(tmp_path: Path) -> None:
    broken = "cases:\n  - id: broken\n    input: {dtype: float32, shape: [2\n"
    loaded = load(tmp_path, {"a.yaml": broken, "b.yaml": OTHER_FILE})
    assert len(loaded.errors) == 1
    line = str(loaded.errors[0])
    assert "a.yaml" in line and "YAML" in line and "\n" not in line
    assert [case.id for case in loaded.cases] == ["other-file"]


@pytest.mark.parametrize(
    "text, field",
    [("[1, 2]\n", "cases"), ("cases: 3\n", "cases"), ("{}\n", "cases"),
     ("cases: []\nversion: 2\n", "version")],
    ids=["list", "cases-not-list", "empty", "unknown-top-level"],
)
def test_bad_file_structure(tmp_path: Path, text: str, field: str) -> None:
    loaded = load(tmp_path, {"a.yaml": text, "b.yaml": OTHER_FILE})
    assert len(loaded.errors) == 1
    assert loaded.errors[0].field == field
    assert "a.yaml" in str(loaded.errors[0])
    assert [case.id for case in loaded.cases] == ["other-file"]


def test_k_above_n_with_expect_error_loads(tmp_path: Path) -> None:
    loaded = load(tmp_path, {"a.yaml": "cases:\n" + one_case(rest="axis: 1\n    k: 4\n"
                                                                  "    expect_error: true")})
    assert loaded.errors == []
    assert loaded.cases[0].expect_error and loaded.cases[0].k == 4


def test_yml_suffix_and_nested_folders_are_found(tmp_path: Path) -> None:
    (tmp_path / "deep" / "er").mkdir(parents=True)
    (tmp_path / "deep" / "er" / "c.yml").write_text(OTHER_FILE)
    (tmp_path / "notes.txt").write_text("not a case file")
    loaded = load_cases([tmp_path])
    assert loaded.errors == []
    assert [case.id for case in loaded.cases] == ["other-file"]


# --- values that must load exactly ---------------------------------------------------------


def bits_of(a: np.ndarray[Any, Any]) -> list[int]:
    return np.ascontiguousarray(a).view(np.dtype(f"u{a.dtype.itemsize}")).ravel().tolist()


def load_values(tmp_path: Path, dtype: str, data: str) -> np.ndarray[Any, Any]:
    count = data.count(",") + 1
    text = f"""\
cases:
  - id: values
    source: test
    input: {{dtype: {dtype}, shape: [{count}], data: {data}}}
    axis: 0
    k: 1
"""
    loaded = load(tmp_path, {"a.yaml": text})
    assert [str(e) for e in loaded.errors] == []
    x = loaded.cases[0].x
    assert x.dtype == np.dtype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype)
    return x


def test_int64_extremes_round_trip(tmp_path: Path) -> None:
    x = load_values(tmp_path, "int64", f"[{-(2**63)}, {2**63 - 1}, -1, 0]")
    assert x.tolist() == [-(2**63), 2**63 - 1, -1, 0]


def test_uint64_max_round_trips(tmp_path: Path) -> None:
    x = load_values(tmp_path, "uint64", f"[{2**64 - 1}, {2**63}, {2**53 + 1}, 0]")
    assert x.tolist() == [2**64 - 1, 2**63, 2**53 + 1, 0]


def test_int_values_do_not_pass_through_float(tmp_path: Path) -> None:
    x = load_values(tmp_path, "int64", f"[{2**53 + 1}, {-(2**62) - 1}]")
    assert x.tolist() == [2**53 + 1, -(2**62) - 1]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_special_float_strings(tmp_path: Path, dtype: str) -> None:
    x = load_values(tmp_path, dtype, '["nan", "inf", "-inf", "-0.0", 0.0, "+inf", "NaN", .nan]')
    wide = x.astype(np.float64)
    assert math.isnan(wide[0]) and math.isnan(wide[6]) and math.isnan(wide[7])
    assert wide[1] == math.inf and wide[5] == math.inf
    assert wide[2] == -math.inf
    assert wide[3] == 0.0 and np.signbit(x[3])  # the sign bit is kept
    assert wide[4] == 0.0 and not np.signbit(x[4])
    sign = 1 << (8 * x.dtype.itemsize - 1)
    assert bits_of(x)[3] == sign and bits_of(x)[4] == 0


def test_float16_limits(tmp_path: Path) -> None:
    x = load_values(tmp_path, "float16", "[65504, 6e-08, -65504.0, 6.103515625e-05]")
    # max, smallest subnormal (6e-08 rounds to 2**-24), -max, smallest normal
    assert bits_of(x) == [0x7BFF, 0x0001, 0xFBFF, 0x0400]


def test_bfloat16_values(tmp_path: Path) -> None:
    data = "[1.0078125, 3.3895313892515355e+38, -2.0, 9.183549615799121e-41, 0.1, 1.1754943508222875e-38]"
    x = load_values(tmp_path, "bfloat16", data)
    # 1 + 2**-7, max, -2, smallest subnormal, 0.1 rounded to nearest, smallest normal
    assert bits_of(x) == [0x3F81, 0x7F7F, 0xC000, 0x0001, 0x3DCD, 0x0080]


def test_float32_rounds_to_nearest(tmp_path: Path) -> None:
    x = load_values(tmp_path, "float32", "[0.1, 16777217, 3.4028234663852886e+38]")
    assert bits_of(x) == bits_of(np.array([0.1, 16777216.0, 3.4028234663852886e38],
                                          dtype=np.float32))


def test_float64_exact(tmp_path: Path) -> None:
    x = load_values(tmp_path, "float64", "[0.1, 5e-324, 1.7976931348623157e+308, -0.0]")
    assert bits_of(x) == [0x3FB999999999999A, 0x1, 0x7FEFFFFFFFFFFFFF, 0x8000000000000000]


def test_generated_input_matches_its_generator(tmp_path: Path) -> None:
    from conformance.cases.generators import generate

    text = """\
cases:
  - id: generated
    source: test
    input: {dtype: bfloat16, shape: [3, 5], generator: {name: special, seed: 7, rate: 0.5}}
    axis: -1
    k: 2
"""
    loaded = load(tmp_path, {"a.yaml": text})
    assert loaded.errors == []
    x = loaded.cases[0].x
    want = generate({"name": "special", "seed": 7, "rate": 0.5}, np.dtype(ml_dtypes.bfloat16),
                    (3, 5))
    assert bits_of(x) == bits_of(want)
    assert loaded.cases[0].input_spec["generator"]["seed"] == 7


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_iota_runs_along_the_cases_axis(tmp_path: Path, axis: int) -> None:
    text = f"""\
cases:
  - id: ramp
    source: test
    input: {{dtype: int32, shape: [2, 3, 4], generator: {{name: iota, start: 10, step: -1}}}}
    axis: {axis}
    k: 1
"""
    loaded = load(tmp_path, {"a.yaml": text})
    assert [str(e) for e in loaded.errors] == []
    x = loaded.cases[0].x
    n = x.shape[axis]
    for j in range(n):
        assert (np.take(x, j, axis=axis) == 10 - j).all()


def test_exponent_without_a_dot_is_a_number(tmp_path: Path) -> None:
    # JSON and YAML 1.2 write 1e3; PyYAML's YAML 1.1 rules alone would read it as a string.
    x = load_values(tmp_path, "float32", "[1e3, -2E-2, 5e+1, 1.5e1]")
    assert x.tolist() == [1000.0, np.float32(-0.02), 50.0, 15.0]


def test_exponent_in_an_integer_tensor_is_rejected(tmp_path: Path) -> None:
    loaded = load(tmp_path, {"a.yaml": "cases:\n" + one_case(
        "{dtype: int32, shape: [1, 3], data: [[1, 1e3, 3]]}") + GOOD_CASE})
    assert [e.field for e in loaded.errors] == ["input.data[0][1]"]
    assert "not an integer" in str(loaded.errors[0])


def test_op_topk_written_out_is_the_case_without_it(tmp_path: Path) -> None:
    written = load(tmp_path, {"a.yaml": "cases:\n" + one_case(rest="op: topk\n    axis: 1\n    k: 2")})
    (tmp_path / "a.yaml").unlink()
    absent = load(tmp_path, {"b.yaml": "cases:\n" + one_case()})
    assert not written.errors and not absent.errors
    assert [case.op for case in written.cases] == [case.op for case in absent.cases] == ["topk"]
    one, other = written.cases[0], absent.cases[0]
    assert np.array_equal(one.x, other.x)
    fields = ("axis", "k", "largest", "sort", "stable", "index_type")
    assert [getattr(one, name) for name in fields] == [getattr(other, name) for name in fields]


def test_the_shipped_schema_holds_every_operators_own_fields() -> None:
    """Editors validate case files with conformance/cases/schema/case.schema.json; the loader
    composes each operator's schema from the record's fields. The two must agree."""
    from conformance.cases.loader import case_schema, operator_case_schema
    from conformance.ops.registry import OPERATORS

    definitions = {"topk": "topk_case", "argmax": "argmax_case", "argmin": "argmax_case", "hardmax": "hardmax_case",
                   "nms": "nms_case"}
    assert set(definitions) == set(OPERATORS)
    for record in OPERATORS.values():
        shipped = case_schema()["$defs"][definitions[record.name]]
        composed = operator_case_schema(record)["$defs"]["case"]
        for name, field_schema in composed["properties"].items():
            if name != "op":
                assert shipped["properties"].get(name) == field_schema, (record.name, name)
        assert set(record.required_fields) <= set(shipped["required"]), record.name
