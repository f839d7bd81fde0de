"""ArgMax and ArgMin judged by contract section 6: each rule breaks where it should and holds
where it should, the DirectML answer is the yardstick, and the loader checks the fields."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from harness import cases_from_yaml

from conformance.operator.outcome import Judgement, Outputs, Raised
from conformance.ops.argmax import profiles
from conformance.ops.argmax.case import Case
from conformance.ops.argmax.judge import judge

EXAMPLE = np.array([[1, 2, 3], [3, 0, 4], [2, 5, 2]], dtype=np.float32)  # DirectML's examples
DIRECTML = profiles.directml("ARGMAX", "uint32", last=False)


def case(x: Any, axes: tuple[int, ...] = (0,), op: str = "argmax", **fields: Any) -> Case:
    return Case(id="t", source="test", file=Path("<test>"), x=np.asarray(x), axes=axes, op=op, **fields)


def indices(values: Any, dtype: str = "uint32") -> Outputs:
    return Outputs({"indices": np.asarray(values, dtype=dtype)})


def verdict(judgement: Judgement) -> tuple[str, tuple[str, ...]]:
    return judgement.verdict, judgement.rules


@pytest.mark.parametrize(("axes", "op", "answer"), [
    ((0,), "argmax", [[1, 2, 1]]), ((1,), "argmax", [[2], [2], [1]]), ((0, 1), "argmax", [[7]]),
    ((0,), "argmin", [[0, 1, 2]]), ((1,), "argmin", [[0], [1], [0]]), ((0, 1), "argmin", [[4]]),
])
def test_the_directml_answer_is_the_documented_one(axes: tuple[int, ...], op: str, answer: list[Any]) -> None:
    documented = case(EXAMPLE, axes, op)
    assert documented.directml_answer.reshape(documented.output_shape(True)).tolist() == answer
    assert verdict(judge(documented, DIRECTML, indices(answer))) == ("pass", ())


def test_ties_go_to_the_first_index_or_with_select_last_index_the_last() -> None:
    row = [3, 2, 1, 2, 3]
    assert case(np.array(row, np.float32)).directml_answer.tolist() == [0]
    assert case(np.array(row, np.float32), select_last_index=True).directml_answer.tolist() == [4]
    valleys = np.array([1, 2, 3, 2, 1], np.int32)
    assert case(valleys, op="argmin", select_last_index=True).directml_answer.tolist() == [4]


def test_another_maximum_breaks_selection_where_ties_are_strict_and_diverges_where_not() -> None:
    ties = case(np.array([3, 2, 1, 2, 3], np.float32), keepdims=False)
    strict = profiles.onnx("ArgMax", 12, select_last_index=False)
    loose = profiles.onnx("ArgMax", 11, select_last_index=False)
    assert verdict(judge(ties, strict, indices(4, "int64"))) == ("fail", ("selection",))
    assert verdict(judge(ties, loose, indices(4, "int64"))) == ("divergent", ())
    assert verdict(judge(ties, loose, indices(1, "int64"))) == ("fail", ("selection",))  # 2 is no maximum
    assert verdict(judge(ties, strict, indices(0, "int64"))) == ("pass", ())


def test_shape_dtype_and_range_break_by_name() -> None:
    documented = case(EXAMPLE, (1,))
    assert verdict(judge(documented, DIRECTML, indices([2, 2, 1])))[1] == ("shape",)  # keepdims lost
    assert verdict(judge(documented, DIRECTML, indices([[2], [2], [1]], "int64"))) == ("fail", ("dtype",))
    assert verdict(judge(documented, DIRECTML, indices([[2], [3], [1]])))[1] == ("index-range",)


def test_nan_needs_one_placement_for_every_index() -> None:
    x = np.array([[1, np.nan, 3], [np.nan, 5, 4]], np.float32)
    nan_case = case(x, (1,), keepdims=False)
    assert verdict(judge(nan_case, DIRECTML, indices([1, 0]))) == ("pass", ())  # NaN above all, both rows
    assert judge(nan_case, DIRECTML, indices([2, 1])).verdict == "divergent"  # NaN below all, both rows
    mixed = judge(nan_case, DIRECTML, indices([1, 1]))  # above in one row, below in the other
    assert mixed.verdict == "fail" and "nan-order" in mixed.rules
    assert mixed.domain == "undefined"


def test_an_expected_error_passes_when_raised_and_fails_on_outputs() -> None:
    wants_error = case(EXAMPLE, (5,), expect_error=True)
    assert judge(wants_error, DIRECTML, Raised("bad axis")).verdict == "pass"
    assert verdict(judge(wants_error, DIRECTML, indices([[1, 2, 1]]))) == ("fail", ("error",))


ARGMAX_CASE = """cases:
  - id: a
    source: test
    op: argmax
    input: {dtype: float32, shape: [3], data: [1, 3, 3]}
    axis: 0
"""


@pytest.mark.parametrize(("extra", "field"), [
    ("    k: 1\n", "k"),  # a TopK field on an ArgMax case
    ("    expected: {indices: [2]}\n", "expected.indices"),  # the last maximum, not the first
    ("    expected: {indices: [3]}\n", "expected.indices"),  # out of range
])
def test_the_loader_names_the_wrong_field(tmp_path: Path, extra: str, field: str) -> None:
    from conformance.cases.loader import load_cases

    (tmp_path / "a.yaml").write_text(ARGMAX_CASE + extra, encoding="utf-8")
    loaded = load_cases([tmp_path])
    assert [error.field for error in loaded.errors] == [field], [str(e) for e in loaded.errors]


def test_a_case_loads_with_its_operator(tmp_path: Path) -> None:
    (loaded,) = cases_from_yaml(tmp_path / "a.yaml", ARGMAX_CASE + "    select_last_index: true\n"
                                "    expected: {indices: [2]}\n")
    assert (loaded.op, loaded.select_last_index) == ("argmax", True)
