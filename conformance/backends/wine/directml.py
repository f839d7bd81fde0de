"""`directml-wine`: DirectML's own operators (today DML_OPERATOR_TOP_K1 and
DML_OPERATOR_TOP_K), created and dispatched by bridge.exe under Wine (`directml` is the same
run natively on Windows). The graph is a generic DirectMLDescription, sent member by member:
a new operator needs only its description. Judged by the DirectML profile: UINT32 indices,
UINT64 where a case asks for 64-bit ones."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.backends.base import EVERY_OPERATOR, Execution, Graph
from conformance.backends.record import BackendRecord
from conformance.backends.wine import provision
from conformance.backends.wine.bridge import (
    MEMBER_FLOAT,
    MEMBER_INPUT_TENSOR,
    MEMBER_INT,
    MEMBER_OUTPUT_TENSOR,
    MEMBER_UINT,
    MEMBER_UINT_ARRAY,
    OP_DML_INFO,
    OP_DML_RUN,
    Bridge,
    BridgeRefused,
    Payload,
    parse_info,
)
from conformance.backends.wine.bridged import WINE_KERNELS, BridgedBackend
from conformance.backends.wine.environment import WineSetup
from conformance.core.dtypes import DTYPES, INDEX_DTYPES, element_type
from conformance.graphs.directml import DirectMLDescription, Float, InputTensor, Int, OutputTensor, UInt, UIntArray
from conformance.operator.interfaces import Case, Variant
from conformance.ops.registry import operator

# numpy names by DML_TENSOR_DATA_TYPE name, as the bridge reports the device's support.
DML_TYPE_NAMES = {
    "float32": "FLOAT32", "float16": "FLOAT16", "float64": "FLOAT64", "uint32": "UINT32",
    "uint16": "UINT16", "uint8": "UINT8", "int32": "INT32", "int16": "INT16", "int8": "INT8",
    "uint64": "UINT64", "int64": "INT64",
}
FEATURE_LEVEL_5_0 = 0x5000  # UINT64 indices and 64-bit data from this level on


def _dtype(name: str) -> np.dtype[Any]:
    known = {**INDEX_DTYPES, **DTYPES}
    return known[name] if name in known else np.dtype(name)


def dml_run_payload(description: DirectMLDescription, feeds: dict[str, np.ndarray[Any, Any]]) -> bytes:
    """OP_DML_RUN's request (bridge.h): the operator type, then each member of its desc
    struct in order, by kind; an input tensor carries its feed, an output tensor its spec."""
    payload = Payload().u32(description.type).u32(len(description.members))
    for member in description.members:
        if isinstance(member, InputTensor):
            payload.u32(MEMBER_INPUT_TENSOR).string(member.name).tensor(feeds[member.feed])
        elif isinstance(member, OutputTensor):
            payload.u32(MEMBER_OUTPUT_TENSOR).string(member.name).string(member.output)
            payload.spec(element_type(_dtype(member.dtype)), member.shape)
        elif isinstance(member, UInt):
            payload.u32(MEMBER_UINT).string(member.name).u32(member.value)
        elif isinstance(member, Int):
            payload.u32(MEMBER_INT).string(member.name).i32(member.value)
        elif isinstance(member, Float):
            payload.u32(MEMBER_FLOAT).string(member.name).f32(member.value)
        elif isinstance(member, UIntArray):
            payload.u32(MEMBER_UINT_ARRAY).string(member.name).u32(len(member.values))
            for value in member.values:
                payload.u32(value)
        else:
            raise TypeError(f"{description.operator}: member {member!r} has no kind the bridge knows")
    return payload.bytes()


def execution(outputs: dict[str, np.ndarray[Any, Any]], placement: str) -> Execution:
    """The operator's outputs, by name, as an Execution."""
    return Execution(placement=placement, outputs=outputs)


class DirectMLWine(BridgedBackend):

    def __init__(self, setup: WineSetup | None = None) -> None:
        super().__init__(setup)

    def query(self, bridge: Bridge) -> dict[str, str]:
        dml = parse_info(bridge.call(OP_DML_INFO).text())
        supported = [name for name in DML_TYPE_NAMES.values() if dml.get(f"dtype.{name}") == "1"]
        refused = [name for name in DML_TYPE_NAMES.values() if dml.get(f"dtype.{name}") == "0"]
        return {
            "device": f"DirectML on {dml.get('adapter', '?')} (Wine)",
            "directml_dll": dml.get("directml_dll", "?"),
            "adapter": dml.get("adapter", "?"),
            "feature_level": dml.get("dml_feature_level", "?"),
            "d3d_feature_level": dml.get("d3d_feature_level", "?"),
            "data_types_supported": ",".join(supported),
            "data_types_unsupported": ",".join(refused),
        }

    def _feature_level(self) -> int:
        try:
            return int(self._info.get("feature_level", "0"), 16)
        except ValueError:
            return 0

    def cannot_run(self, case: Case, variant: Variant) -> str | None:
        """A type the operator's documented table lists but this device reports unsupported is
        a skip with that reason; a type outside the table is run (outside the defined domain)."""
        if not self._info:
            self.bridge()  # the device's answers come with the proven bridge
        record = operator(case.op)
        dml_type = DML_TYPE_NAMES.get(case.dtype_name, "")
        if (case.dtype_name in record.directml_dtypes
                and dml_type in self._info.get("data_types_unsupported", "").split(",")):
            return f"the device reports {dml_type} unsupported (DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT)"
        if record.directml_index_type(case) == "uint64" and self._feature_level() < FEATURE_LEVEL_5_0:
            return f"UINT64 indices need DML_FEATURE_LEVEL_5_0; the device has {self._info.get('feature_level')}"
        return None

    def run_on(self, bridge: Bridge, graph: Graph) -> Execution:
        description: DirectMLDescription = graph.model
        try:
            reply = bridge.call(OP_DML_RUN, dml_run_payload(description, graph.feeds))
        except BridgeRefused as exc:
            raise RuntimeError(f"DirectML refused {description.operator}: {exc}") from None
        placement = f"DirectML.dll {self._info.get('directml_dll', '?')} on {self._info.get('adapter', '?')} (Wine)"
        return execution(reply.named_tensors(), placement)


RECORD = BackendRecord(
    name="directml-wine", runtime="DirectML (DirectML.dll of the onnxruntime-directml wheel) under Wine",
    packages=("onnxruntime-directml",), kernels=WINE_KERNELS, kinds=("directml",), operators=EVERY_OPERATOR,
    isolation="host process", extra=None, setup=provision.SETUP, family="shaders", adapter=DirectMLWine,
)
