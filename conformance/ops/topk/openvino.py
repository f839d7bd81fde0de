"""Native OpenVINO TopK graphs (TopK-11, -3, -1) for a case, built with OpenVINO's opset
API. That API is part of the runtime: where it raises, OpenVINO refused the graph
(RuntimeRefused, naming the call), which is OpenVINO's verdict and never a skip."""

from __future__ import annotations

from typing import Any

import numpy as np
import openvino as ov
from openvino import opset1, opset3, opset11

from conformance.core.dtypes import name_of
from conformance.graphs.errors import built_by
from conformance.ops.topk.case import Case
from conformance.ops.topk.variants import Variant

X, K = "X", "K"

# OpenVINO element types by numpy name (bfloat16 has no numpy type of its own there).
_ELEMENT_TYPES: dict[str, Any] = {
    "float16": ov.Type.f16, "bfloat16": ov.Type.bf16, "float32": ov.Type.f32,
    "float64": ov.Type.f64, "int8": ov.Type.i8, "int16": ov.Type.i16, "int32": ov.Type.i32,
    "int64": ov.Type.i64, "uint8": ov.Type.u8, "uint16": ov.Type.u16, "uint32": ov.Type.u32,
    "uint64": ov.Type.u64,
}
_INDEX_TYPES = {"int32": "i32", "int64": "i64"}
# K's numpy type by OpenVINO name; the sub-byte types (i4, u1, u2, u3, u4, u6) have none.
K_NUMPY_TYPES: dict[str, Any] = {
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
}


def k_element_type(variant: Variant) -> str:
    """K's OpenVINO element type in this variant's graph: i64 unless the variant names one."""
    return variant.k_type or "i64"


def build_openvino(case: Case, variant: Variant) -> ov.Model:
    data = built_by("openvino.opset11.parameter", opset11.parameter,
                 list(case.x.shape), _ELEMENT_TYPES[name_of(case.x.dtype)], name=X)
    parameters = [data]
    k_type = k_element_type(variant)
    element = getattr(ov.Type, k_type)
    if variant.k_source == "input":
        k: Any = built_by("openvino.opset11.parameter", opset11.parameter, [], element, name=K)
        parameters.append(k)
    elif k_type in K_NUMPY_TYPES:
        k = built_by("openvino.opset11.constant", opset11.constant, np.array(case.k, dtype=K_NUMPY_TYPES[k_type]))
    else:  # OpenVINO packs sub-byte constants itself
        k = built_by("openvino.op.Constant", ov.op.Constant, element, ov.Shape([]), [case.k])
    mode = "max" if case.largest else "min"
    index_type = _INDEX_TYPES[case.index_type or "int32"]
    if variant.version == 11:
        node = built_by("openvino.opset11.topk", opset11.topk,
                     data, k, case.axis, mode, case.sort, index_type, bool(variant.stable))
    elif variant.version == 3:
        node = built_by("openvino.opset3.topk", opset3.topk, data, k, case.axis, mode, case.sort, index_type)
    else:
        node = built_by("openvino.opset1.topk", opset1.topk, data, k, case.axis, mode, case.sort)
    model: ov.Model = built_by("openvino.Model", ov.Model, node.outputs(), parameters, f"topk_{case.id}")
    return model


def openvino_feeds(case: Case, variant: Variant) -> dict[str, np.ndarray[Any, Any]]:
    """X, and K where it is an input: in its numpy type, or, for a sub-byte K, the number in
    int64 (`openvino_feed_types` says which OpenVINO type the backend packs it into)."""
    feeds = {X: case.x}
    if variant.k_source == "input":
        feeds[K] = np.array(case.k, dtype=K_NUMPY_TYPES.get(k_element_type(variant), np.int64))
    return feeds


def openvino_feed_types(variant: Variant) -> dict[str, str]:
    """The OpenVINO element type of each feed that numpy cannot carry (sub-byte K)."""
    k_type = k_element_type(variant)
    if variant.k_source == "input" and k_type not in K_NUMPY_TYPES:
        return {K: k_type}
    return {}
