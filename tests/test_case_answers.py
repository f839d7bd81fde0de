"""A case's own answers: `expected` must be the DirectML answer in the case's sort order and each
of `expected_any` a valid output under the documents' loosest rules, checked when the case
loads; `expected` may give indices alone; and the judge says which reference it compared
with: the case's expected output or the DirectML answer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conformance.cases.loader import CaseSet, load_cases
from conformance.ops.topk import profiles
from conformance.ops.topk.case import Case
from conformance.ops.topk.judge import judge, topk_outputs

NEIGHBOUR = """\
  - id: good
    source: "a well-formed neighbour"
    input: {dtype: float32, shape: [2, 3], data: [[1, 2, 3], [4, 5, 6]]}
    axis: 1
    k: 2
    expected: {values: [[3, 2], [6, 5]], indices: [[2, 1], [2, 1]]}
"""

# Three sequences along the last axis of a [1, 3, 4] input (positions [0, 0], [0, 1], [0, 2]):
# DML_TOP_K1 example 3's data.
TIES = "{dtype: float32, shape: [1, 3, 4], data: [[[1, 2, 2, 3], [3, 4, 5, 5], [6, 6, 6, 6]]]}"
TIES_VALUES = "[[[3, 2, 2], [5, 5, 4], [6, 6, 6]]]"
TIES_INDICES = "[[[3, 1, 2], [2, 3, 1], [0, 1, 2]]]"
LINE = "[1, 5, 5, 5, 5, 0]"  # 1-D int32: K=3 takes three of four tied 5s


def case_text(input_: str, rest: str) -> str:
    return f"  - id: bad\n    source: test\n    input: {input_}\n    {rest}\n"


def ties_case(values: str, indices: str, sort: str = "value") -> str:
    return case_text(TIES, f"axis: 2\n    k: 3\n    sort: {sort}\n"
                           f"    expected: {{values: {values}, indices: {indices}}}")


def line_case(answers: str, sort: str) -> str:
    return case_text(f"{{dtype: int32, shape: [6], data: {LINE}}}",
                     f"axis: 0\n    k: 3\n    sort: {sort}\n    {answers}")


def load(tmp_path: Path, text: str) -> CaseSet:
    (tmp_path / "a.yaml").write_text("cases:\n" + text + NEIGHBOUR, encoding="utf-8")
    return load_cases([tmp_path])


# (case text, field named, what the message must say)
WRONG: dict[str, tuple[str, str, list[str]]] = {
    "tie-selected-too-high": (
        ties_case(TIES_VALUES, "[[[3, 1, 2], [2, 3, 1], [0, 1, 3]]]"),
        "expected.indices",
        ["sequence [0, 2]: selection broken under the DirectML rule", "[0, 1, 3]", "[0, 1, 2]"]),
    "tie-order-swapped": (
        ties_case(TIES_VALUES, "[[[3, 2, 1], [2, 3, 1], [0, 1, 2]]]"),
        "expected.indices", ["sequence [0, 0]: tie-order broken under the DirectML rule"]),
    "not-by-value": (
        ties_case("[[[2, 3, 2], [5, 5, 4], [6, 6, 6]]]", "[[[1, 3, 2], [2, 3, 1], [0, 1, 2]]]"),
        "expected.indices", ["sequence [0, 0]: order broken under the DirectML rule"]),
    "value-not-at-index": (
        ties_case("[[[3, 2, 2], [5, 5, 4.5], [6, 6, 6]]]", TIES_INDICES),
        "expected.values",
        ["sequence [0, 1]: gather broken under the DirectML rule", "[5.0, 5.0, 4.5]",
         "[5.0, 5.0, 4.0]"]),
    "repeated-index": (
        ties_case("[[[3, 2, 2], [5, 5, 4], [6, 6, 6]]]", "[[[3, 1, 1], [2, 3, 1], [0, 1, 2]]]"),
        "expected.indices", ["sequence [0, 0]: index-unique"]),
    "sort-index-selection": (
        line_case("expected: {values: [5, 5, 5], indices: [1, 2, 4]}", "index"),
        "expected.indices",
        ["selection broken under the DirectML rule", "[1, 2, 4]", "(sort=index) is [1, 2, 3]"]),
    "sort-index-given-by-value": (
        line_case("expected: {values: [5, 5, 5], indices: [3, 2, 1]}", "index"),
        "expected.indices", ["order broken under the DirectML rule"]),
    "sort-none-other-ties": (
        line_case("expected: {values: [5, 5, 5], indices: [4, 2, 1]}", "none"),
        "expected.indices", ["selection broken under the DirectML rule", "selects [1, 2, 3]"]),
    "indices-only-wrong": (
        line_case("expected: {indices: [2, 3, 4]}", "value"),
        "expected.indices", ["selection broken under the DirectML rule"]),
    "expected-any-not-valid-anywhere": (
        line_case("expected_any:\n      - {values: [5, 5, 5], indices: [1, 2, 3]}\n"
                  "      - {values: [5, 5, 1], indices: [2, 3, 0]}", "index"),
        "expected_any[1].indices", ["selection", "OpenVINO sort=index stable=false"]),
    "expected-any-wrong-values": (
        line_case("expected_any:\n      - {values: [5, 5, 5], indices: [1, 2, 3]}\n"
                  "      - {values: [5, 5, 4], indices: [1, 3, 4]}", "index"),
        "expected_any[1].values", ["gather broken", "[5, 5, 4]"]),
    "expected-any-unordered": (
        line_case("expected_any:\n      - {values: [5, 5, 5], indices: [3, 2, 4]}", "index"),
        "expected_any[0].indices", ["order broken"]),
}


@pytest.mark.parametrize("name", list(WRONG))
def test_expected_output_that_breaks_the_rule_is_a_case_error(tmp_path: Path, name: str) -> None:
    text, field, said = WRONG[name]
    loaded = load(tmp_path, text)
    assert len(loaded.errors) == 1, [str(e) for e in loaded.errors]
    error = loaded.errors[0]
    assert (error.case, error.field) == ("bad", field), str(error)
    line = str(error)
    assert "a.yaml" in line and "\n" not in line
    for words in said:
        assert words in line, line
    assert [case.id for case in loaded.cases] == ["good"]


RIGHT: dict[str, str] = {
    "directml-answer": ties_case(TIES_VALUES, TIES_INDICES),
    "sort-index": line_case("expected: {values: [5, 5, 5], indices: [1, 2, 3]}", "index"),
    "sort-none-any-order": line_case("expected: {values: [5, 5, 5], indices: [3, 1, 2]}", "none"),
    "indices-only": line_case("expected: {indices: [1, 2, 3]}", "value"),
    # Several answers the source accepts, not the DirectML one among them: valid under
    # OpenVINO stable=false, which is all that is asked of them.
    "expected-any-other-ties": line_case(
        "expected_any:\n      - {values: [5, 5, 5], indices: [2, 3, 4]}\n"
        "      - {values: [5, 5, 5], indices: [1, 3, 4]}", "index"),
    "expected-any-sort-none": line_case(
        "expected_any:\n      - {values: [5, 5, 5], indices: [4, 2, 3]}", "none"),
    "k-zero": case_text("{dtype: float32, shape: [2, 3], data: [[1, 2, 3], [4, 5, 6]]}",
                        "axis: 1\n    k: 0\n    expected: {values: [[], []], indices: [[], []]}"),
    "k-equals-n": case_text("{dtype: int8, shape: [3], data: [2, 2, 1]}",
                            "axis: 0\n    k: 3\n    expected: {values: [2, 2, 1], indices: [0, 1, 2]}"),
    "smallest": case_text("{dtype: int8, shape: [4], data: [2, 1, 1, 3]}",
                          "axis: 0\n    k: 2\n    largest: false\n"
                          "    expected: {values: [1, 1], indices: [1, 2]}"),
    # The DirectML rule defines nothing with NaN in the input: not checked.
    "nan-input-unchecked": case_text("{dtype: float32, shape: [3], data: [1, 'nan', 2]}",
                                     "axis: 0\n    k: 1\n    expected: {values: [2], indices: [2]}"),
    "expect-error-unchecked": case_text("{dtype: float32, shape: [3], data: [1, 3, 2]}",
                                        "axis: 0\n    k: 4\n    expect_error: true\n"
                                        "    expected: {values: [1, 1, 1, 1], indices: [0, 0, 0, 0]}"),
}


@pytest.mark.parametrize("name", list(RIGHT))
def test_expected_output_that_keeps_the_rule_loads(tmp_path: Path, name: str) -> None:
    loaded = load(tmp_path, RIGHT[name])
    assert [str(e) for e in loaded.errors] == []
    assert sorted(case.id for case in loaded.cases) == ["bad", "good"]


# --- expected with indices only --------------------------------------------------------------


def loaded_case(tmp_path: Path, text: str) -> Case:
    loaded = load(tmp_path, text)
    assert [str(e) for e in loaded.errors] == []
    return next(case for case in loaded.cases if case.id == "bad")


def test_indices_only_expected_takes_the_inputs_values(tmp_path: Path) -> None:
    case = loaded_case(tmp_path, case_text(TIES, "axis: 2\n    k: 3\n"
                                                 f"    expected: {{indices: {TIES_INDICES}}}"))
    assert case.expected is not None and not case.expected.values_given
    assert case.expected.indices.tolist() == [[[3, 1, 2], [2, 3, 1], [0, 1, 2]]]
    assert case.expected.values.dtype == np.float32
    assert case.expected.values.tolist() == [[[3, 2, 2], [5, 5, 4], [6, 6, 6]]]


def test_indices_only_expected_is_judged_on_indices_and_gather(tmp_path: Path) -> None:
    case = loaded_case(tmp_path, line_case("expected: {indices: [1, 2, 3]}", "index"))
    profile = profiles.openvino("index", stable=False)

    def run(values: list[int], indices: list[int]) -> tuple[str, tuple[str, ...]]:
        judgement = judge(case, profile, topk_outputs(np.array(values, np.int32), np.array(indices, np.int32)))
        return judgement.verdict, judgement.rules

    assert run([5, 5, 5], [1, 2, 3]) == ("pass", ())
    assert run([5, 5, 5], [2, 3, 4]) == ("divergent", ())  # other ties: valid, not the expected
    assert run([5, 5, 4], [1, 2, 3]) == ("fail", ("gather",))  # values only by the gather rule


# --- the judge says what it compared with ----------------------------------------------------


def test_judge_names_the_cases_expected_output_when_it_compared_with_it(tmp_path: Path) -> None:
    case = loaded_case(tmp_path, line_case("expected: {values: [5, 5, 5], indices: [1, 2, 3]}", "index"))
    assert case.reference_source("index") == "the case's expected output"
    unstable = judge(case, profiles.openvino("index", stable=False),
                     topk_outputs(np.array([5, 5, 5], np.int32), np.array([2, 3, 4], np.int32)))
    assert unstable.verdict == "divergent"
    assert "not the case's expected output" in unstable.message
    assert "the case's expected output is [1, 2, 3]" in unstable.message
    assert "DirectML" not in unstable.message
    stable = judge(case, profiles.openvino("index", stable=True),
                   topk_outputs(np.array([5, 5, 5], np.int32), np.array([2, 3, 4], np.int32)))
    assert stable.verdict == "fail"
    assert "the case's expected output is [1, 2, 3]" in stable.message
    assert "DirectML answer" not in stable.message


def test_judge_names_the_directml_answer_when_it_compared_with_that(tmp_path: Path) -> None:
    without = loaded_case(tmp_path, line_case("", "value"))
    assert without.reference_source("value") == "the DirectML answer"
    out = topk_outputs(np.array([5, 5, 5], np.int32), np.array([4, 3, 2], np.int32))
    unstable = judge(without, profiles.openvino("value", stable=False), out)
    assert unstable.verdict == "divergent"
    assert "not the DirectML answer" in unstable.message
    assert "the DirectML answer is [1, 2, 3]" in unstable.message
    assert "expected output" not in unstable.message
    onnx = judge(without, profiles.onnx(True), topk_outputs(out["values"], out["indices"].astype(np.int64)))
    assert onnx.verdict == "fail" and "the DirectML answer is [1, 2, 3]" in onnx.message


def test_sort_index_case_judged_by_value_compares_with_the_directml_answer(tmp_path: Path) -> None:
    # The case's expected output is in index order; a by-value dialect is compared with the
    # DirectML answer, and the message says so.
    case = loaded_case(tmp_path, line_case("expected: {values: [5, 5, 5], indices: [1, 2, 3]}", "index"))
    assert case.reference_source("value") == "the DirectML answer"
    judgement = judge(case, profiles.openvino("value", stable=False),
                      topk_outputs(np.array([5, 5, 5], np.int32), np.array([3, 2, 1], np.int32)))
    assert judgement.verdict == "divergent"
    assert "the DirectML answer is [1, 2, 3]" in judgement.message
