"""The examples the three documents print, as shipped in cases/: the oracle reproduces every
printed answer exactly, and the judge reads OpenVINO's 'several correct answers' example the
way the spec does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conformance.cases.loader import load_cases
from conformance.operator.outcome import Outputs
from conformance.ops.topk import profiles
from conformance.ops.topk.case import Case
from conformance.ops.topk.judge import judge, topk_outputs
from conformance.ops.topk.oracle import directml_answer, in_order

CASES_DIR = Path(__file__).resolve().parent.parent / "cases"
DOCUMENTED_DIR = CASES_DIR / "documented"

DOCUMENTED_IDS = {
    "dml-top-k-example-1",
    "dml-top-k-example-2",
    "dml-top-k-example-3",
    "dml-top-k1-example-1",
    "dml-top-k1-example-2",
    "dml-top-k1-example-3",
    "dml-top-k1-example-4",
    "ov-topk11-spec-example-unstable",
    "ov-topk11-spec-example-stable",
    "ov-topk11-ir-example",
    "onnx-test-top-k",
    "onnx-test-top-k-uint64",
    "onnx-test-top-k-negative-axis",
    "onnx-test-top-k-same-values",
    "onnx-test-top-k-same-values-largest",
    "onnx-test-top-k-same-values-2d",
    "onnx-test-top-k-smallest",
    # The same upstream nodes with their defaults left out (attributes: minimal, section 7).
    "onnx-test-top-k-minimal",
    "onnx-test-top-k-negative-axis-minimal",
    "onnx-test-top-k-smallest-minimal",
}

LOADED = load_cases([CASES_DIR])
# TopK's documented examples (ArgMax's and ArgMin's: tests/test_argmax_rules.py and the gate).
WITH_EXPECTED = [case for case in LOADED.cases if case.op == "topk" and case.expected is not None]


def bits(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The raw bits of every element, so that -0.0 / +0.0 and NaN payloads count."""
    return np.ascontiguousarray(a).view(np.dtype(f"u{a.dtype.itemsize}"))


def by_id(case_id: str) -> Case:
    return next(case for case in LOADED.cases if case.id == case_id)


def test_cases_tree_loads_without_errors() -> None:
    assert [str(error) for error in LOADED.errors] == []
    assert LOADED.cases, "cases/ holds no case at all"


def test_documented_ids_are_exactly_the_transcribed_examples() -> None:
    documented = {
        case.id for case in LOADED.cases if DOCUMENTED_DIR in case.file.resolve().parents
    }
    assert documented == DOCUMENTED_IDS


@pytest.mark.parametrize("case_id", sorted(DOCUMENTED_IDS))
def test_documented_case_names_its_source(case_id: str) -> None:
    case = by_id(case_id)
    assert case.source.strip(), f"{case_id} has an empty source"
    assert "documented" in case.tags


def test_every_printed_example_has_an_answer_to_check() -> None:
    # Guards the parametrization below against silently checking nothing.
    assert {case.id for case in WITH_EXPECTED} >= DOCUMENTED_IDS - {
        "ov-topk11-spec-example-unstable",  # expected_any: checked by the judge below
        "ov-topk11-ir-example",  # generated input; the spec prints no output
    }


@pytest.mark.parametrize("case", WITH_EXPECTED, ids=[case.id for case in WITH_EXPECTED])
def test_oracle_reproduces_printed_answer(case: Case) -> None:
    assert case.expected is not None
    got = in_order(directml_answer(case.x, case.axis, case.k, case.largest), case.axis, case.sort)
    assert got.values.dtype == case.x.dtype
    assert case.expected.values.dtype == case.x.dtype
    assert got.values.shape == case.expected.values.shape
    np.testing.assert_array_equal(got.indices, case.expected.indices)
    np.testing.assert_array_equal(bits(got.values), bits(case.expected.values))


@pytest.mark.parametrize("case", WITH_EXPECTED, ids=[case.id for case in WITH_EXPECTED])
def test_printed_answer_passes_the_strict_dialects(case: Case) -> None:
    # The printed answers are the DirectML answer, which every strict dialect must accept.
    assert case.expected is not None
    for profile in (profiles.onnx(True), profiles.openvino("value", True), profiles.directml()):
        if case.sort == "index" and profile.order == "value":
            answer = in_order(
                directml_answer(case.x, case.axis, case.k, case.largest), case.axis, "value"
            )
        else:
            answer = case.expected
        outputs = topk_outputs(answer.values, answer.indices.astype(profile.index_dtype))
        judgement = judge(case, profile, outputs)
        assert (judgement.verdict, judgement.rules) == ("pass", ()), (profile.label, judgement)


OV_UNSTABLE = "ov-topk11-spec-example-unstable"


def ov_outputs(answer_index: int, index_type: str = "int32") -> Outputs:
    answer = by_id(OV_UNSTABLE).expected_any[answer_index]
    return topk_outputs(answer.values, answer.indices.astype(np.dtype(index_type)))


def test_openvino_example_lists_three_answers() -> None:
    case = by_id(OV_UNSTABLE)
    assert len(case.expected_any) == 3
    assert [answer.indices.tolist() for answer in case.expected_any] == [
        [0, 1, 2, 3], [1, 2, 3, 4], [1, 2, 3, 5],
    ]


@pytest.mark.parametrize("answer_index", [0, 1, 2], ids=["answer-1", "answer-2", "answer-3"])
def test_openvino_unstable_accepts_every_listed_answer(answer_index: int) -> None:
    case = by_id(OV_UNSTABLE)
    judgement = judge(case, profiles.openvino("index", False), ov_outputs(answer_index))
    assert judgement.rules == ()
    assert judgement.verdict in ("pass", "divergent")
    # Only the lowest-indexed answer is the DirectML answer.
    assert judgement.verdict == ("pass" if answer_index == 0 else "divergent")


@pytest.mark.parametrize("answer_index", [0, 1, 2], ids=["answer-1", "answer-2", "answer-3"])
def test_openvino_stable_accepts_only_the_first_answer(answer_index: int) -> None:
    case = by_id(OV_UNSTABLE)
    judgement = judge(case, profiles.openvino("index", True), ov_outputs(answer_index))
    if answer_index == 0:
        assert (judgement.verdict, judgement.rules) == ("pass", ())
    else:
        assert judgement.verdict == "fail"
        assert judgement.rules == ("selection",)


def test_openvino_stable_example_is_the_first_unstable_answer() -> None:
    stable = by_id("ov-topk11-spec-example-stable")
    first = by_id(OV_UNSTABLE).expected_any[0]
    assert stable.expected is not None
    np.testing.assert_array_equal(stable.expected.indices, first.indices)
    np.testing.assert_array_equal(bits(stable.expected.values), bits(first.values))


def test_openvino_ir_example_generates_its_declared_input() -> None:
    case = by_id("ov-topk11-ir-example")
    assert case.x.shape == (1, 3, 224, 224)
    assert case.x.dtype == np.float32
    assert (case.axis, case.k, case.largest, case.sort, case.stable, case.index_type) == (
        3, 10, True, "value", True, "int64",
    )
    assert float(case.x.min()) >= -1.0 and float(case.x.max()) < 1.0
