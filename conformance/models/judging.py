"""Each captured node's output judged by its operator's rules for the input that backend gave
it, and each pair of backends' answers at a node put in a class (contract section 9)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from conformance.cases.loader import case_from_mapping
from conformance.core.text import exception_text
from conformance.models.capture import JudgedNode
from conformance.models.compare import all_equal, differences
from conformance.operator.interfaces import Case, Variant
from conformance.operator.node import NodeCall, NodeUnreadable
from conformance.operator.outcome import Outputs
from conformance.operator.record import CaseFieldError, Operator
from conformance.ops.registry import OPERATORS

CLASSES = ("same", "admitted", "flipped", "fail", "error", "crash", "skip")
_OPSET_GRAPH = re.compile(r"onnx-opset(\d+)")


@dataclass(frozen=True)
class NodeVerdict:
    """One node on one backend."""

    verdict: str  # pass, fail, error, crash, skip
    rules: tuple[str, ...] = ()
    message: str = ""
    case_fields: Mapping[str, Any] | None = None  # the case it was judged as (tensors as arrays)
    inputs: tuple[np.ndarray[Any, Any] | None, ...] = ()
    outputs: tuple[np.ndarray[Any, Any] | None, ...] = ()


def onnx_variant(operator: Operator[Any, Any], opset: int) -> str:
    """The suite's ONNX graph of the operator's version that a model of this opset runs."""
    versions = sorted({int(m.group(1)) for g in operator.graph_names if (m := _OPSET_GRAPH.fullmatch(g))})
    fitting = [version for version in versions if version <= opset]
    if not fitting:
        raise NodeUnreadable(f"opset {opset} is older than every {operator.name} graph the suite builds")
    return f"onnx-opset{fitting[-1]}"


def judge_node(node: JudgedNode, tensors: Mapping[str, np.ndarray[Any, Any]], opset: int, where: Path,
               case_id: str) -> NodeVerdict:
    operator = OPERATORS[node.op]
    inputs = tuple(tensors.get(name) if name else None for name in node.inputs)
    outputs = tuple(tensors.get(name) for name in node.outputs)
    if any(name and name not in tensors for name in (*node.inputs, *node.outputs)):
        missing = next(name for name in (*node.inputs, *node.outputs) if name and name not in tensors)
        return NodeVerdict("error", message=f"the backend did not return tensor {missing!r}", inputs=inputs,
                           outputs=outputs)
    try:
        assert operator.from_node is not None
        graph = onnx_variant(operator, opset)
        fields = {"id": case_id, "source": f"topk-conformance model: node {node.name} of {where.name}",
                  "op": operator.name, "graphs": [graph],
                  **operator.from_node(NodeCall(node.attributes, inputs, opset))}
        case = case_from_mapping(fields, where)
        variant = _variant(operator, case, graph)
    except (NodeUnreadable, CaseFieldError) as exc:
        field = f" ({exc.field})" if isinstance(exc, CaseFieldError) else ""
        return NodeVerdict("skip", message=f"not judged: {exc}{field}", inputs=inputs, outputs=outputs)
    named = Outputs({name: array for name, array in zip(operator.outputs, outputs, strict=False) if array is not None})
    try:
        judgement = operator.judge(case, variant.profile(case), named)
    except Exception as exc:  # a judge that breaks on an output is that node's error, not the command's end
        return NodeVerdict("error", message=f"not judged: {exception_text(exc)}", inputs=inputs, outputs=outputs)
    return NodeVerdict(judgement.verdict, judgement.rules, judgement.message, fields, inputs, outputs)


def _variant(operator: Operator[Any, Any], case: Case, graph: str) -> Variant:
    for variant in operator.variants():
        if variant.graph == graph and variant.runs_on(case) and variant.cannot_express(case) is None:
            return variant  # type: ignore[no-any-return]
    raise NodeUnreadable(f"the suite's {graph} graph cannot express this node")


def rejudged(node: JudgedNode, verdict: NodeVerdict, other: NodeVerdict, opset: int, where: Path) -> bool:
    """Whether `other`'s output is admissible for `verdict`'s input: the inputs' difference
    does not reorder what the node chooses."""
    if verdict.case_fields is None:
        return False
    tensors = {name: array for name, array in zip(node.inputs, verdict.inputs, strict=True)
               if name and array is not None}
    tensors.update({name: array for name, array in zip(node.outputs, other.outputs, strict=True)
                    if name and array is not None})
    return judge_node(node, tensors, opset, where, "rejudged").verdict == "pass"


def pair_class(node: JudgedNode, a: NodeVerdict, b: NodeVerdict, opset: int, where: Path) -> tuple[str, str]:
    """The class of two backends' answers at one node, and what the message adds."""
    for verdict in ("crash", "error", "skip"):
        if verdict in (a.verdict, b.verdict):
            return verdict, ""
    if "fail" in (a.verdict, b.verdict):
        return "fail", ""
    if all_equal(a.outputs, b.outputs):
        return "same", ""
    if all_equal(a.inputs, b.inputs):
        return "admitted", "equal inputs; both outputs admissible: a choice among equal values"
    how = differences(a.inputs, b.inputs)
    either = rejudged(node, a, b, opset, where) and rejudged(node, b, a, opset, where)
    reorders = ("each output is admissible for the other's input too: the difference does not reorder them"
                if either else "the difference reorders them: an output is not admissible for the other's input")
    return "flipped", f"inputs differ ({how}); {reorders}"
