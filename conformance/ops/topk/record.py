"""TopK's operator record: what the stages consult (conformance/operator/record.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from conformance.operator.record import Operator
from conformance.ops.topk import build, judge, load, node, proof, variants
from conformance.ops.topk.case import Case
from conformance.ops.topk.profiles import DIRECTML_DTYPES
from conformance.ops.topk.report import REPORT
from conformance.ops.topk.variants import Variant, directml_index_type

if TYPE_CHECKING:
    from conformance.operator.fuzzing import FuzzSupport


def fuzz() -> FuzzSupport:
    from conformance.ops.topk.fuzz import SUPPORT  # hypothesis: imported only when fuzzing

    return SUPPORT


def describe(case: Case) -> str:
    """The case's TopK fields, for repro notes."""
    return (f"axis {case.axis}, k {case.k}, largest {case.largest}, sort {case.sort}, "
            f"stable {case.stable}")


TOPK: Operator[Case, Variant] = Operator(
    name="topk",
    outputs=build.OUTPUTS,
    rules=judge.RULES,
    case_fields=load.CASE_FIELDS,
    required_fields=load.REQUIRED_FIELDS,
    load_case=load.load_case,
    variants=variants.all_variants,
    build=build.build,
    judge=judge.judge,
    proof=proof.proof,
    describe=describe,
    fuzz=fuzz,
    directml_dtypes=DIRECTML_DTYPES,
    directml_index_type=directml_index_type,
    report=REPORT,
    onnx_op_type="TopK",
    from_node=node.from_node,
)
