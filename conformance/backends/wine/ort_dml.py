"""`ort-dml-wine`: ONNX graphs through ONNX Runtime's DirectML execution provider, the
onnxruntime-directml Windows wheel run under Wine by bridge.exe (ONNX Runtime's C API).
Same placement proof as every provider backend: ONNX Runtime's own record of the
provider each TopK node was assigned to, sent back by the bridge."""

from __future__ import annotations

import hashlib
from typing import Any

import onnx

from conformance.backends.base import EVERY_OPERATOR, BackendCrash, Execution, Graph, PlacementError
from conformance.backends.ort_session import FALLBACK_REFUSED, OrtBackend, operator_type
from conformance.backends.record import BackendRecord
from conformance.backends.wine import provision
from conformance.backends.wine.bridge import (
    OP_DML_INFO,
    OP_ORT_INFO,
    OP_ORT_RUN,
    Bridge,
    BridgeRefused,
    Payload,
    parse_info,
)
from conformance.backends.wine.bridged import WINE_KERNELS, BridgedBackend
from conformance.backends.wine.environment import WHEEL_PACKAGE, WHEEL_VERSION, WineSetup
from conformance.ops.registry import by_onnx_op_type

DML_PROVIDER = "DmlExecutionProvider"


class OrtDmlWine(BridgedBackend, OrtBackend):
    provider = DML_PROVIDER
    package_hint = f"{WHEEL_PACKAGE}=={WHEEL_VERSION} under Wine (`topk-conformance setup directml`)"

    def __init__(self, setup: WineSetup | None = None) -> None:
        BridgedBackend.__init__(self, setup)

    # The DirectML provider takes a one-node TopK graph: a decline is about the node itself.
    retry_behind_identity = False

    def run(self, graph: Graph) -> Execution:
        try:
            return self.run_on(self.bridge(), graph)
        except BackendCrash:
            raise
        except Exception as exc:
            if FALLBACK_REFUSED in str(exc):  # the provider's decline: the placement is unproven
                raise PlacementError(f"{self.provider} declined the {operator_type(graph.model)} node") from None
            raise

    def query(self, bridge: Bridge) -> dict[str, str]:
        ort = parse_info(bridge.call(OP_ORT_INFO).text())
        if DML_PROVIDER not in ort.get("providers", "").split(","):
            raise RuntimeError(f"{DML_PROVIDER} is not in the wheel's providers ({ort.get('providers')})")
        dml = parse_info(bridge.call(OP_DML_INFO).text())
        return {
            "device": f"{DML_PROVIDER} on {dml.get('adapter', '?')} (Wine)",
            "onnxruntime": ort.get("onnxruntime", "?"),
            "package": f"{WHEEL_PACKAGE} {WHEEL_VERSION} (Windows wheel)",
            "directml_dll": dml.get("directml_dll", "?"),
            "adapter": dml.get("adapter", "?"),
        }

    def run_on(self, bridge: Bridge, graph: Graph) -> Execution:
        model = graph.model
        if graph.signature:
            # Graph reuse: the bridge keeps sessions by this key (and the model's bytes), so
            # graphs equal up to their name (`topk_<case id>`) share one when it is left out.
            model = onnx.ModelProto()
            model.CopyFrom(graph.model)
            model.graph.name = "topk"
        return self._run_bridged(bridge, model, graph.feeds, graph.outputs, wrapping="",
                                 whole_model=graph.variant.op == "model", seconds=graph.time_limit * 0.9)

    def _run_bridged(self, bridge: Bridge, model: onnx.ModelProto, feeds: dict[str, Any], names: tuple[str, ...],
                     wrapping: str, whole_model: bool = False, seconds: float = 0.0) -> Execution:
        """One graph on the bridge's ONNX Runtime. A user's whole model (`whole_model`) runs
        with the CPU fallback allowed, as ONNX Runtime runs any model; its selection nodes
        that ONNX Runtime placed elsewhere are named (Execution.elsewhere), not proven away."""
        serialized = model.SerializeToString()
        key = ("cpu-fallback:" if whole_model else "") + hashlib.sha256(serialized).hexdigest()  # bridge.h
        payload = Payload().string(key).blob(serialized).u32(len(feeds))
        for name, array in feeds.items():
            payload.string(name).tensor(array)
        payload.u32(len(model.graph.output))
        for output in model.graph.output:
            tensor_type = output.type.tensor_type
            shape = [dim.dim_value if dim.HasField("dim_value") else None for dim in tensor_type.shape.dim]
            # A static output shape is pre-filled with a sentinel: a run that writes nothing shows.
            payload.string(output.name).u32(int(None not in shape))
            payload.spec(tensor_type.elem_type, tuple(d or 0 for d in shape))
        try:
            reply = bridge.call(OP_ORT_RUN, payload.bytes(), seconds or None)
        except BridgeRefused as exc:
            # The bridge names the ONNX Runtime call that refused first (bridge/ort.c).
            if exc.text.startswith(("CreateSession", "Run:")):
                self.failed_while("running" if exc.text.startswith("Run:") else "compiling")
            raise RuntimeError(f"onnxruntime (DirectML, Wine): {exc.text}") from None
        count = reply.u32()
        outputs = [reply.tensor() for _ in range(count)]
        placement = reply.string()
        if whole_model:
            return Execution.named(names, outputs, placement=f"{DML_PROVIDER} (Wine; CPU fallback allowed)",
                                   elsewhere=placed_elsewhere(placement))
        self.check_record(placement, operator_type(model))
        return Execution.named(names, outputs, placement=f"{DML_PROVIDER} (Wine; {placement})", wrapping=wrapping)

    def check_record(self, record: str, op_type: str = "TopK") -> None:
        """The bridge's copy of ONNX Runtime's assignment record: "<OpType>:<name>=<provider>;"
        for every node; the operator's node must be on the DirectML provider."""
        placed_on = {
            entry.split("=", 1)[1] for entry in record.split(";")
            if entry.startswith(f"{op_type}:") and "=" in entry
        }
        if placed_on != {DML_PROVIDER}:
            raise PlacementError(f"{op_type} was assigned to {sorted(placed_on) or 'no provider'}, not {DML_PROVIDER}")


def placed_elsewhere(record: str) -> dict[str, str]:
    """The selection nodes the bridge's record ("<OpType>:<name>=<provider>;" per node) puts on
    another provider than DirectML: node name -> provider."""
    judged = by_onnx_op_type()
    elsewhere = {}
    for entry in filter(None, record.split(";")):
        node, _, provider = entry.partition("=")
        op_type, _, name = node.partition(":")
        if op_type in judged and provider != DML_PROVIDER:
            elsewhere[name] = provider
    return elsewhere


RECORD = BackendRecord(
    name="ort-dml-wine", runtime="ONNX Runtime (DirectML execution provider), the Windows wheel under Wine",
    packages=("onnxruntime-directml",), kernels=WINE_KERNELS, kinds=("onnx",), operators=EVERY_OPERATOR,
    isolation="host process", extra=None, setup=provision.SETUP, family="shaders", adapter=OrtDmlWine,
    no_kernel=("nms",),  # DirectML has no NonMaxSuppression: ONNX Runtime hands it to its CPU provider
)
