"""The NonMaxSuppression operator record (conformance/operator/record.py)."""

from __future__ import annotations

from conformance.operator.record import Operator
from conformance.ops.nms import build, judge, load, variants
from conformance.ops.nms.case import Case
from conformance.ops.nms.report import REPORT, input_line
from conformance.ops.nms.variants import Variant

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
    tensor_inputs=load.TENSOR_INPUTS,
)
