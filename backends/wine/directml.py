"""`directml-wine`: DirectML's own DML_OPERATOR_TOP_K1 and DML_OPERATOR_TOP_K, created and
dispatched by bridge.exe under Wine (`directml` is the same run natively on Windows).
Judged by the DirectML profile: UINT32 indices, UINT64 where a case asks for 64-bit ones."""

from __future__ import annotations

from backends.base import Execution, Graph
from backends.wine.bridge import OP_DML_INFO, OP_DML_RUN, Bridge, BridgeRefused, Payload, parse_info
from backends.wine.bridged import BridgedBackend
from backends.wine.environment import WineSetup
from conformance.core.dtypes import INDEX_DTYPES
from conformance.ops.topk.case import Case
from conformance.ops.topk.directml import DirectMLOperator
from conformance.ops.topk.onnx import element_type
from conformance.ops.topk.profiles import DIRECTML_DTYPES
from conformance.ops.topk.variants import Variant, directml_index_type, directml_variants

# numpy names by DML_TENSOR_DATA_TYPE name, as the bridge reports the device's support.
DML_TYPE_NAMES = {
    "float32": "FLOAT32", "float16": "FLOAT16", "float64": "FLOAT64", "uint32": "UINT32",
    "uint16": "UINT16", "uint8": "UINT8", "int32": "INT32", "int16": "INT16", "int8": "INT8",
    "uint64": "UINT64", "int64": "INT64",
}
FEATURE_LEVEL_5_0 = 0x5000  # UINT64 indices and 64-bit data from this level on


class DirectMLWine(BridgedBackend):
    name = "directml-wine"
    kinds = ("directml",)

    def __init__(self, setup: WineSetup | None = None) -> None:
        super().__init__(setup)

    def proof_variants(self) -> list[Variant]:
        return directml_variants()

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

    def cannot_run(self, case: Case, variant: Variant) -> str | None:  # type: ignore[override]
        """A type the documents' table lists but this device reports unsupported is a skip
        with that reason; a type outside the table is run (outside the defined domain)."""
        if not self._info:
            self.bridge()  # the device's answers come with the proven bridge
        dml_type = DML_TYPE_NAMES.get(case.dtype_name, "")
        if case.dtype_name in DIRECTML_DTYPES and dml_type in self._info.get("data_types_unsupported", "").split(","):
            return f"the device reports {dml_type} unsupported (DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT)"
        if directml_index_type(case) == "uint64" and self._feature_level() < FEATURE_LEVEL_5_0:
            return f"UINT64 indices need DML_FEATURE_LEVEL_5_0; the device has {self._info.get('feature_level')}"
        return None

    def run_on(self, bridge: Bridge, graph: Graph) -> Execution:
        operator: DirectMLOperator = graph.model
        index_dtype = INDEX_DTYPES[operator.index_type]
        payload = Payload().u32(operator.operator).u32(operator.axis).u32(operator.k).u32(operator.direction)
        payload.u32(element_type(index_dtype)).tensor(graph.feeds["X"])
        try:
            reply = bridge.call(OP_DML_RUN, payload.bytes())
        except BridgeRefused as exc:
            raise RuntimeError(f"DirectML refused {operator.name}: {exc}") from None
        values, indices = reply.tensor(), reply.tensor()
        placement = f"DirectML.dll {self._info.get('directml_dll', '?')} on {self._info.get('adapter', '?')} (Wine)"
        return Execution(values, indices, placement=placement)
