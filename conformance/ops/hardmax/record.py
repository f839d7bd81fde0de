"""The Hardmax operator record (conformance/operator/record.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from conformance.operator.record import Operator
from conformance.ops.hardmax import build, judge, load, node, profiles, proof, variants
from conformance.ops.hardmax.case import Case
from conformance.ops.hardmax.report import REPORT, input_line
from conformance.ops.hardmax.variants import Variant

if TYPE_CHECKING:
    from conformance.operator.fuzzing import FuzzSupport


def fuzz() -> FuzzSupport:
    from conformance.ops.hardmax.fuzz import support  # hypothesis: imported only when fuzzing

    return support()


HARDMAX: Operator[Case, Variant] = Operator(
    name="hardmax",
    outputs=build.OUTPUTS,
    rules=judge.RULES,
    case_fields=load.CASE_FIELDS,
    required_fields=load.REQUIRED_FIELDS,
    load_case=load.load_case,
    variants=variants.variants,
    build=build.build,
    judge=judge.judge,
    proof=proof.proof,
    describe=input_line,
    fuzz=fuzz,
    directml_dtypes=profiles.DIRECTML_DTYPES,
    report=REPORT,
    onnx_op_type="Hardmax",
    from_node=node.from_node,
)
