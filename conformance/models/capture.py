"""The nodes of a model the suite judges, and a copy of the model in which each one's inputs
and outputs are graph outputs, so that a backend's run hands them back (contract section 9).
The copy is made in memory; the user's file is never written."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from conformance.ops.registry import by_onnx_op_type

SUBGRAPH_ATTRIBUTES = ("then_branch", "else_branch", "body")


@dataclass(frozen=True)
class JudgedNode:
    """One node of a judged operator, in the order the model runs them."""

    position: int  # among the judged nodes, in the order the model lists (and so runs) them
    name: str  # the node's name, or one made from its op type and position where it has none
    op: str  # the operator record's name
    op_type: str
    where: str  # "main graph", or the If branch or Loop body that holds it
    inputs: tuple[str, ...]  # "" for an input left out
    outputs: tuple[str, ...]
    attributes: Mapping[str, Any] = field(default_factory=dict)
    not_captured: str = ""  # why its tensors are not captured ("": they are)
    # In an If branch (of the main graph, or of a branch of one, at any depth): each If around
    # it, the outermost first, as its condition tensor and whether the node's branch is the one
    # a true condition runs.
    conditions: tuple[tuple[str, bool], ...] = ()
    # In a Loop body of the main graph: its tensors come back stacked, one row per iteration,
    # and each iteration is judged on its own.
    per_iteration: bool = False


@dataclass(frozen=True)
class Capture:
    """The copy of the model, its outputs in order (the model's own first), and where each
    captured tensor comes back: tensor name -> output name."""

    model: onnx.ModelProto
    outputs: tuple[str, ...]
    tensors: Mapping[str, str]
    # Tensors of Loop bodies, whose outputs hold one row per iteration: each one's shape in one
    # iteration, as inference found it (None where it did not; a dimension None where symbolic).
    stacked: Mapping[str, tuple[int | None, ...] | None] = field(default_factory=dict)


def judged_nodes(model: onnx.ModelProto) -> list[JudgedNode]:
    """Every node of a judged operator, in the main graph and in the branches and bodies of its
    If and Loop nodes, depth first in the order the graphs list them. The main graph's, the
    branches of its If nodes (and of If nodes inside those, at any depth) and its Loop nodes'
    bodies' are captured; others (an If in a Loop body, a Loop in a branch, a Scan body) are
    listed, with why not."""
    operators = by_onnx_op_type()
    found: list[JudgedNode] = []

    def visit(graph: onnx.GraphProto, where: str, around: tuple[str, ...],
              conditions: tuple[tuple[str, bool], ...]) -> None:
        captured = all(kind == "If" for kind in around) or around == ("Loop",)
        for number, node in enumerate(graph.node):
            if node.domain in ("", "ai.onnx") and node.op_type in operators:
                found.append(JudgedNode(
                    len(found), node.name or f"{node.op_type}_{len(found)}", operators[node.op_type].name,
                    node.op_type, where, tuple(node.input), tuple(node.output),
                    {a.name: helper.get_attribute_value(a) for a in node.attribute
                     if a.type != onnx.AttributeProto.GRAPH},
                    "" if captured else (f"inside {where}: this version captures the main graph, the branches "
                                         "of its If nodes (and of the If nodes inside them) and the bodies of "
                                         "its Loop nodes"),
                    conditions if captured else (), around == ("Loop",),
                ))
            for attribute in node.attribute:
                if attribute.type == onnx.AttributeProto.GRAPH and attribute.name in SUBGRAPH_ATTRIBUTES:
                    label = f"{node.op_type} {node.name or '#' + str(number)} {attribute.name}"
                    inner = (*conditions, (node.input[0], attribute.name == "then_branch")) \
                        if node.op_type == "If" else conditions
                    visit(attribute.g, label if not around else f"{where} / {label}", (*around, node.op_type), inner)

    visit(model.graph, "main graph", (), ())
    return found


def constants(model: onnx.ModelProto, wanted: set[str]) -> dict[str, np.ndarray[Any, Any]]:
    """The main graph's initializers among `wanted`: inputs a node gets that no run returns
    (only those: a detector's weights are 100 MB and more)."""
    return {initializer.name: numpy_helper.to_array(initializer) for initializer in model.graph.initializer
            if initializer.name in wanted}


def captured_model(model: onnx.ModelProto, nodes: list[JudgedNode]) -> Capture:
    """A copy with the model's own outputs first, then each captured node's inputs and outputs
    (those not already outputs, not initializers, not graph inputs) as outputs typed as shape
    inference finds them. A tensor made inside an If branch leaves the branch as an extra
    output of the If (the other branch gives an empty tensor of its type in that place), and of
    each If around that one; the Ifs' conditions are captured too, to tell which branch ran."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    _name_nodes(copy.graph, nodes)
    inferred = _inferred(model)
    given = {value.name for value in (*model.graph.initializer, *model.graph.input)}
    outputs = [value.name for value in model.graph.output]
    tensors: dict[str, str] = {name: name for name in outputs}
    types = _types(inferred.graph)
    made_in_branches = _branch_tensors(inferred, types)
    made_in_loops = _loop_tensors(inferred, types)
    stacked: dict[str, tuple[int | None, ...] | None] = {}
    for node in nodes:
        if node.not_captured:
            continue
        for name in (*node.inputs, *node.outputs, *(condition for condition, _ in node.conditions)):
            if not name or name in given or name in tensors:
                continue
            if name in made_in_loops:
                tensors[name] = _through_loop(copy.graph, made_in_loops[name], name)
                stacked[name] = _shape(made_in_loops[name][1])
            elif name in made_in_branches:
                tensors[name] = _through_ifs(copy.graph, made_in_branches[name], name)
            else:
                tensors[name] = name
                copy.graph.output.append(types.get(name) or helper.make_empty_tensor_value_info(name))
            outputs.append(tensors[name])
    return Capture(copy, tuple(outputs), tensors, stacked)


def _shape(value: onnx.ValueInfoProto | None) -> tuple[int | None, ...] | None:
    if value is None or not value.type.tensor_type.HasField("shape"):
        return None
    return tuple(dim.dim_value if dim.HasField("dim_value") else None for dim in value.type.tensor_type.shape.dim)


def _name_nodes(graph: onnx.GraphProto, nodes: list[JudgedNode]) -> None:
    """Main-graph judged nodes without a name get the one the results give them, so that a
    runtime's record of where each node ran can be matched to them."""
    named = {node.outputs: node.name for node in nodes if node.where == "main graph"}
    for node in graph.node:
        if not node.name and tuple(node.output) in named:
            node.name = named[tuple(node.output)]


def _inferred(model: onnx.ModelProto) -> onnx.ModelProto:
    """The model as ONNX's shape inference types it (as it is where it cannot: a model over
    2 GB, an operator it does not know)."""
    try:
        return onnx.shape_inference.infer_shapes(model)
    except Exception:
        return model


def _types(graph: onnx.GraphProto) -> dict[str, onnx.ValueInfoProto]:
    found = {}
    for value in (*graph.input, *graph.value_info, *graph.output):
        if value.type.HasField("tensor_type") and value.type.tensor_type.elem_type:
            kept = onnx.ValueInfoProto()
            kept.CopyFrom(value)
            found[value.name] = kept
    return found


# Where a tensor made inside If branches is made: each If around it, the outermost first, as
# (its position in the graph that holds it, the branch), and the tensor's type where inference
# found one.
BranchPath = tuple[tuple[tuple[int, str], ...], "onnx.ValueInfoProto | None"]


def _branch_tensors(inferred: onnx.ModelProto, outer: dict[str, onnx.ValueInfoProto]) -> dict[str, BranchPath]:
    """Tensors made inside a branch of one of the main graph's If nodes, or inside a branch of
    an If in such a branch, at any depth."""
    found: dict[str, BranchPath] = {}

    def visit(graph: onnx.GraphProto, path: tuple[tuple[int, str], ...], known: dict[str, onnx.ValueInfoProto]) -> None:
        for position, node in enumerate(graph.node):
            if node.op_type != "If":
                continue
            for attribute in node.attribute:
                if attribute.name in ("then_branch", "else_branch"):
                    types = _branch_types(attribute.g, inferred, known)
                    inner = (*path, (position, attribute.name))
                    for made in attribute.g.node:
                        for name in made.output:
                            if name:
                                found[name] = (inner, types.get(name))
                    visit(attribute.g, inner, {**known, **types})

    visit(inferred.graph, (), outer)
    return found


def _loop_tensors(inferred: onnx.ModelProto, outer: dict[str, onnx.ValueInfoProto]
                  ) -> dict[str, tuple[int, onnx.ValueInfoProto | None]]:
    """Tensors of a body of one of the main graph's Loop nodes, its inputs (the iteration
    number, the condition, the carried values) and what its nodes make: (the Loop's
    position, the tensor's type where inference found one)."""
    found: dict[str, tuple[int, onnx.ValueInfoProto | None]] = {}
    for position, node in enumerate(inferred.graph.node):
        if node.op_type != "Loop":
            continue
        for attribute in node.attribute:
            if attribute.name == "body":
                types = _branch_types(attribute.g, inferred, outer)
                for name in (*(value.name for value in attribute.g.input),
                             *(name for inner in attribute.g.node for name in inner.output)):
                    if name:
                        found[name] = (position, types.get(name))
    return found


def _branch_types(branch: onnx.GraphProto, inferred: onnx.ModelProto, outer: dict[str, onnx.ValueInfoProto]
                  ) -> dict[str, onnx.ValueInfoProto]:
    """The types of a branch's tensors. ONNX's shape inference leaves a branch's own tensors
    untyped in the model, so the branch is typed alone, as a graph whose inputs are the outer
    tensors it reads (typed as the main graph has them)."""
    alone = onnx.GraphProto()
    alone.CopyFrom(branch)
    made = {name for node in alone.node for name in node.output}
    initializers = {tensor.name: tensor for tensor in inferred.graph.initializer}
    for name in dict.fromkeys(name for node in alone.node for name in node.input if name and name not in made):
        if name in initializers:
            alone.initializer.append(initializers[name])
        elif name in outer:
            alone.input.append(outer[name])
    try:
        typed = onnx.shape_inference.infer_shapes(helper.make_model(
            alone, opset_imports=inferred.opset_import, ir_version=inferred.ir_version))
    except Exception:
        return {}
    return _types(typed.graph)


def _renamed(value: onnx.ValueInfoProto, name: str) -> onnx.ValueInfoProto:
    renamed = onnx.ValueInfoProto()
    renamed.CopyFrom(value)
    renamed.name = name
    return renamed


def _through_ifs(graph: onnx.GraphProto, made: BranchPath, name: str) -> str:
    """The tensor as an output of the copy: it leaves each If around it, the innermost first,
    as an extra output of that If; returns the name the main graph's If gives it."""
    path, value = made
    holders = [graph]  # the graph that holds each If of the path
    for position, branch in path[:-1]:
        holders.append(next(attribute.g for attribute in holders[-1].node[position].attribute
                            if attribute.name == branch))
    current: tuple[str, onnx.ValueInfoProto | None] = (name, value)
    for holder, (position, branch) in reversed(list(zip(holders, path, strict=True))):
        current = _out_of_if(holder.node[position], branch, *current)
    outer_name, outer_value = current
    if outer_name not in {output.name for output in graph.output}:
        graph.output.append(helper.make_empty_tensor_value_info(outer_name) if outer_value is None
                            else _renamed(outer_value, outer_name))
    return outer_name


def _out_of_if(if_node: onnx.NodeProto, branch: str, name: str, value: onnx.ValueInfoProto | None
               ) -> tuple[str, onnx.ValueInfoProto | None]:
    """The tensor, made in `branch` of the If, as an output of the If: the branch outputs it,
    the other an empty tensor of its element type; returns the If's output's name and type."""
    for attribute in if_node.attribute:
        given = [output.name for output in attribute.g.output] if attribute.name == branch else []
        if name in given:  # already what the If gives: that output of the If
            return str(if_node.output[given.index(name)]), value
    elem_type = value.type.tensor_type.elem_type if value is not None else onnx.TensorProto.FLOAT
    # Of the tensor's rank where inference knows it (OpenVINO's CPU refuses an If output of
    # unknown rank), each dimension left free; the other branch's stand-in is empty, same rank.
    tensor_type = value.type.tensor_type if value is not None else None
    rank = len(tensor_type.shape.dim) if tensor_type is not None and tensor_type.HasField("shape") else None
    free: list[str | int | None] | None = None if rank is None else [None] * rank
    outer = f"{name}__captured"
    for attribute in if_node.attribute:
        if attribute.name == branch:
            attribute.g.output.append(helper.make_tensor_value_info(name, elem_type, free))
        elif attribute.name in ("then_branch", "else_branch"):
            empty = f"{name}__not_run"
            # A scalar cannot be empty: its stand-in is a scalar 0 (the If's own condition, or one
            # around it, says that the branch did not run).
            dims = [0] * rank if rank is not None else [0]
            # ConstantOfShape, not an empty Constant: OpenVINO reads an empty Constant as a scalar.
            attribute.g.node.extend([
                helper.make_node("Constant", [], [f"{empty}_shape"], value=helper.make_tensor(
                    f"{empty}_shape", onnx.TensorProto.INT64, [len(dims)], dims)),
                helper.make_node("ConstantOfShape", [f"{empty}_shape"], [empty],
                                 value=helper.make_tensor(f"{empty}_value", elem_type, [1], [0]))])
            attribute.g.output.append(helper.make_tensor_value_info(empty, elem_type, free))
    if_node.output.append(outer)
    return outer, helper.make_tensor_value_info(outer, elem_type, free)


def _through_loop(graph: onnx.GraphProto, made: tuple[int, onnx.ValueInfoProto | None], name: str) -> str:
    """The tensor as an extra scan output of its Loop (in the copy): the body gives it each
    iteration (through an Identity, since it may be one of the body's own inputs) and the Loop
    stacks them; returns the Loop's new output's name."""
    position, value = made
    loop = graph.node[position]
    body = next(attribute.g for attribute in loop.attribute if attribute.name == "body")
    tensor_type = value.type.tensor_type if value is not None else None
    elem_type = tensor_type.elem_type if tensor_type is not None else onnx.TensorProto.FLOAT
    rank = len(tensor_type.shape.dim) if tensor_type is not None and tensor_type.HasField("shape") else None
    each = f"{name}__each"
    body.node.append(helper.make_node("Identity", [name], [each]))
    body.output.append(helper.make_tensor_value_info(each, elem_type, None if rank is None else [None] * rank))
    # A Loop's outputs are its carried values then its scan outputs, as the body's (after its
    # condition): one the node leaves out at the end is named "" so that the new one lines up.
    while len(loop.output) < len(body.output) - 2:
        loop.output.append("")
    outer = f"{name}__captured"
    loop.output.append(outer)
    graph.output.append(helper.make_tensor_value_info(outer, elem_type, None if rank is None else [None] * (rank + 1)))
    return outer
