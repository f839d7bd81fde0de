"""The ArgMax and ArgMin operator records (conformance/operator/record.py)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from conformance.operator.record import Operator
from conformance.ops.argmax import build, judge, load, node, profiles, proof, variants
from conformance.ops.argmax.case import Case
from conformance.ops.argmax.report import REPORT
from conformance.ops.argmax.variants import Variant

if TYPE_CHECKING:
    from conformance.operator.fuzzing import FuzzSupport


def fuzz(op: str) -> FuzzSupport:
    from conformance.ops.argmax.fuzz import support  # hypothesis: imported only when fuzzing

    return support(op)


def describe(case: Case) -> str:
    """The case's own fields, for repro notes."""
    return (f"axis {case.axis_written if case.axis_written is not None else list(case.axes)}, "
            f"keepdims {case.keepdims}, select_last_index {case.select_last_index}, "
            f"index_type {case.index_type or 'default'}")


def _record(op: str) -> Operator[Case, Variant]:
    return Operator(
        name=op,
        outputs=build.OUTPUTS,
        rules=judge.RULES,
        case_fields=load.CASE_FIELDS,
        required_fields=load.REQUIRED_FIELDS,
        load_case=load.case_loader(op),
        variants=partial(variants.variants, op),
        build=build.build,
        judge=judge.judge,
        proof=partial(proof.proof, op),
        describe=describe,
        fuzz=partial(fuzz, op),
        directml_dtypes=profiles.DIRECTML_DTYPES,
        directml_index_type=variants.directml_index_type,
        report=REPORT,
        onnx_op_type={"argmax": "ArgMax", "argmin": "ArgMin"}[op],
        from_node=node.from_node,
    )


ARGMAX = _record("argmax")
ARGMIN = _record("argmin")
