"""Graph signatures for graph reuse: equal for graphs that differ in nothing but their name, so
that a backend may run one on the session or compiled model it opened for the other."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import onnx

from conformance.operator.graph import Graph


def signature(graph: Graph) -> str:
    """An ONNX model's bytes with the graph's name left out, an ov.Model's structure; "" for
    anything else (DirectML operator descriptions: the bridge keys those itself)."""
    if graph.variant.kind == "onnx":
        return onnx_signature(graph.model)
    if graph.variant.kind == "openvino":
        return model_signature(graph.model)
    return ""


def onnx_signature(model: onnx.ModelProto) -> str:
    """The model's bytes without the graph's name (`<op>_<case id>`), digested: equal for
    graphs that differ in nothing else (graph reuse shares one session between them)."""
    unnamed = onnx.ModelProto()
    unnamed.CopyFrom(model)
    unnamed.graph.name = ""
    # Deterministic serialization: equal messages, equal bytes.
    return "onnx:" + hashlib.sha256(unnamed.SerializeToString(deterministic=True)).hexdigest()


# rt_info that records where a frontend found a constant in the original file (for
# OpenVINO's weightless model cache); it changes nothing the model computes, and its value
# cannot be read from Python.
_PROVENANCE_RT_INFO = ("WeightlessCacheAttribute",)


def model_signature(model: Any) -> str:
    """A digest of everything an ov.Model computes with: every operation's type and version,
    attributes, inputs, output element types and shapes, constants' data and run-time info,
    the parameters' names (feeds go by name) and the order of parameters and results. Not
    the model's name nor other operations' generated names. Equal digests: the same graph
    (graph reuse shares one compiled model between them). Run-time info whose value cannot
    be read makes the digest unique to this model (never shared)."""
    ops = model.get_ordered_ops()
    position = {op.get_instance_id(): i for i, op in enumerate(ops)}
    parts: list[object] = []
    for op in ops:
        info = op.get_type_info()
        attributes = sorted((name, _text(value)) for name, value in op.get_attributes().items())
        inputs = [(position[i.get_source_output().get_node().get_instance_id()], i.get_source_output().get_index())
                  for i in op.inputs()]
        outputs = [(str(o.get_element_type()), str(o.get_partial_shape())) for o in op.outputs()]
        runtime = _rt_info(op.get_rt_info())
        if runtime is None:
            return f"unique:{id(model)}:{op.get_instance_id()}"
        data = ""
        if info.name == "Constant":
            data = op.get_data().tobytes().hex()
        name = op.get_friendly_name() if info.name == "Parameter" else ""
        parts.append((info.name, info.version_id, attributes, inputs, outputs, runtime, data, name))
    model_runtime = _rt_info(model.get_rt_info())
    if model_runtime is None:
        return f"unique:{id(model)}"
    parts.append(("parameters", [position[p.get_instance_id()] for p in model.get_parameters()]))
    parts.append(("results", [position[r.get_instance_id()] for r in model.get_results()]))
    parts.append(("model", model_runtime))
    return "openvino:" + hashlib.sha256(repr(parts).encode()).hexdigest()


def _text(value: object) -> str:
    if isinstance(value, np.ndarray):
        return f"{value.dtype.str}{value.shape}{value.tobytes().hex()}"
    return repr(value) if isinstance(value, (str, int, float, bool, list, tuple)) else str(value)


def _rt_info(info: Any) -> list[tuple[str, str]] | None:
    rendered = []
    for key, value in info.items():
        if key.startswith(_PROVENANCE_RT_INFO):
            rendered.append((key, "provenance"))
            continue
        try:
            rendered.append((key, _text(value.value)))
        except Exception:
            return None
    return sorted(rendered)
