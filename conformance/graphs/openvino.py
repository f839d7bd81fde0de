"""Native OpenVINO TopK graphs (TopK-11, -3, -1) for a case, built with the opset API."""

from __future__ import annotations

from typing import Any

import numpy as np
import openvino as ov
from openvino import opset1, opset3, opset11

from conformance.case import Case
from conformance.dtypes import name_of
from conformance.graphs.variants import Variant

X, K = "X", "K"

# OpenVINO element types by numpy name (bfloat16 has no numpy type of its own there).
_ELEMENT_TYPES: dict[str, Any] = {
    "float16": ov.Type.f16, "bfloat16": ov.Type.bf16, "float32": ov.Type.f32,
    "float64": ov.Type.f64, "int8": ov.Type.i8, "int16": ov.Type.i16, "int32": ov.Type.i32,
    "int64": ov.Type.i64, "uint8": ov.Type.u8, "uint16": ov.Type.u16, "uint32": ov.Type.u32,
    "uint64": ov.Type.u64,
}
_INDEX_TYPES = {"int32": "i32", "int64": "i64"}


def build_openvino(case: Case, variant: Variant) -> ov.Model:
    data = opset11.parameter(list(case.x.shape), _ELEMENT_TYPES[name_of(case.x.dtype)], name=X)
    parameters = [data]
    if variant.k_source == "input":
        k: Any = opset11.parameter([], ov.Type.i64, name=K)
        parameters.append(k)
    else:
        k = opset11.constant(np.array(case.k, dtype=np.int64))
    mode = "max" if case.largest else "min"
    index_type = _INDEX_TYPES[case.index_type or "int32"]
    if variant.version == 11:
        node = opset11.topk(data, k, case.axis, mode, case.sort, index_type, bool(variant.stable))
    elif variant.version == 3:
        node = opset3.topk(data, k, case.axis, mode, case.sort, index_type)
    else:
        node = opset1.topk(data, k, case.axis, mode, case.sort)
    return ov.Model(node.outputs(), parameters, f"topk_{case.id}")


def openvino_feeds(case: Case, variant: Variant) -> dict[str, np.ndarray[Any, Any]]:
    feeds = {X: case.x}
    if variant.k_source == "input":
        feeds[K] = np.array(case.k, dtype=np.int64)
    return feeds
