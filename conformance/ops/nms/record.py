"""The NonMaxSuppression operator record (conformance/operator/record.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from conformance.operator.record import Operator
from conformance.ops.nms import build, judge, load, node, variants
from conformance.ops.nms.case import Case
from conformance.ops.nms.report import REPORT, input_line
from conformance.ops.nms.variants import Variant

if TYPE_CHECKING:
    from conformance.operator.fuzzing import FuzzSupport


def fuzz() -> FuzzSupport:
    from conformance.ops.nms.fuzz import support  # hypothesis: imported only when fuzzing

    return support()


NMS: Operator[Case, Variant] = Operator(
    name="nms",
    outputs=build.OUTPUTS,
    rules=judge.RULES,
    case_fields=load.CASE_FIELDS,
    required_fields=load.REQUIRED_FIELDS,
    load_case=load.load_case,
    variants=variants.variants,
    build=build.build,
    judge=judge.judge,
    describe=input_line,
    report=REPORT,
    fuzz=fuzz,
    tensor_inputs=load.TENSOR_INPUTS,
    onnx_op_type="NonMaxSuppression",
    from_node=node.from_node,
)
