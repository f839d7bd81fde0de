"""The operators the suite runs, by the name a case's `op` gives (contract section 6). The
stages find an operator here and never import its folder."""

from __future__ import annotations

from functools import cache
from typing import Any

from conformance.operator.interfaces import Variant, variant_key
from conformance.operator.record import Operator
from conformance.ops.argmax.record import ARGMAX, ARGMIN
from conformance.ops.hardmax.record import HARDMAX
from conformance.ops.nms.record import NMS
from conformance.ops.topk.record import TOPK

OPERATORS: dict[str, Operator[Any, Any]] = {op.name: op for op in (TOPK, ARGMAX, ARGMIN, HARDMAX, NMS)}
DEFAULT = "topk"  # a case file without `op`


def operator(name: str) -> Operator[Any, Any]:
    return OPERATORS[name]


def by_onnx_op_type() -> dict[str, Operator[Any, Any]]:
    """The operators judged inside a user's model, by the ONNX op type of their nodes."""
    return {record.onnx_op_type: record for record in OPERATORS.values() if record.onnx_op_type and record.from_node}


@cache
def all_variants() -> tuple[Variant, ...]:
    """Every graph variant of every operator, in the order results are given."""
    return tuple(variant for op in OPERATORS.values() for variant in op.variants())


def variant_by_key(key: str) -> Variant | None:
    """The variant whose variant_key this is."""
    return next((v for v in all_variants() if variant_key(v) == key), None)
