"""`openvino-cpu` (and `-gpu`, `-npu` where OpenVINO reports them): OpenVINO itself, on
native TopK graphs and on ONNX graphs read by its ONNX frontend; `openvino-cpu-avx2` and
`openvino-cpu-avx`: its CPU plugin held to those instruction sets (conformance/backends/isa_limit.py)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache, partial
from typing import Any

import ml_dtypes
import numpy as np

from conformance.backends import isa_limit
from conformance.backends.base import EVERY_OPERATOR, Availability, Backend, Execution, Graph, PackError, WorkerLaunch
from conformance.backends.compiled import Compiled
from conformance.backends.record import BackendRecord
from conformance.core import machine
from conformance.operator.signatures import model_signature as signature_of


@cache
def _core() -> Any:
    import openvino as ov

    return ov.Core()


class OpenVINO(Backend):
    def __init__(self, device: str, isa_limit: str = "") -> None:
        self.device = device  # OpenVINO's device name: CPU, GPU, NPU
        self.isa_limit = isa_limit  # CPU only: an instruction-set tier (isa_limit.LIMITS), or ""
        _BY_NAME[f"openvino-{device.lower()}" + (f"-{isa_limit}" if isa_limit else "")].bind(self)

    def isa(self) -> str:
        if self.device != "CPU":
            return ""
        return machine.capped(machine.host_tier(), self.isa_limit)  # no limit: the host's

    def worker_launch(self) -> WorkerLaunch | None:
        return isa_limit.launch(self.isa_limit) if self.isa_limit else None

    def availability(self) -> Availability:
        if self.isa_limit:
            held = isa_limit.availability(self.isa_limit)
            if not held.available:
                return held
        try:
            devices = _core().available_devices
        except Exception as exc:  # an import or plugin failure is a reason, not a crash
            return Availability(False, f"OpenVINO cannot start: {exc}")
        if not any(d.split(".")[0] == self.device for d in devices):
            return Availability(False, f"OpenVINO reports no {self.device} device (has {', '.join(devices)})")
        return Availability(True)

    def describe(self) -> dict[str, str]:
        import openvino as ov

        core = _core()
        full_name = core.get_property(self.device, "FULL_DEVICE_NAME")
        info = {"device": f"OpenVINO {self.device}: {full_name}", "openvino": ov.__version__}
        if self.device == "CPU":
            # What the CPU plugin says of itself (it chooses its kernels by the same CPU).
            capabilities = core.get_property(self.device, "OPTIMIZATION_CAPABILITIES")
            info["openvino_capabilities"] = " ".join(str(c) for c in capabilities)
            precision = core.get_property(self.device, "INFERENCE_PRECISION_HINT")  # the suite sets f32
            info["openvino_default_precision"] = precision.get_type_name()
        if self.isa_limit:
            info.update(isa_limit.describe(self.isa_limit))
        return info

    def __getstate__(self) -> dict[str, Any]:
        # A worker process compiles its own models.
        return {**self.__dict__, "_requests": None}

    # Infer requests kept between runs (conformance/backends/compiled.py), each with its compiled model:
    # per graph signature where graph reuse is on (and, for ONNX graphs, per signature of
    # the model OpenVINO's ONNX frontend made of them), else the last graph's only.
    _requests: Compiled[Any] | None = None

    def close(self) -> None:
        self._requests = None

    def _request(self, graph: Graph) -> Any:
        """The infer request of the graph's compiled model: compiled on first sight, kept
        while the same graph (or, with graph reuse, one with the same signature) comes back."""
        if self._requests is None:
            self._requests = Compiled()
        request = self._requests.get(graph)
        if request is not None:
            return request
        core = _core()
        model = graph.model
        model_signature = ""
        if graph.variant.kind == "onnx":
            # ONNX graphs go through OpenVINO's ONNX frontend, from the serialized model in memory.
            with self.compiling(counts=False):  # reading is part of compiling, not one
                model = core.read_model(graph.model.SerializeToString())
            if graph.signature:
                # ONNX graphs the frontend turns into the same model (TopK-10, -11 and -24 of
                # one case, mostly) share its compiled model.
                model_signature = signature_of(model)
                request = self._requests.get_signed(model_signature)
            if request is not None:
                return self._requests.put(graph, request)
        with self.compiling():
            # f32 inference precision: no silent bf16/f16 down-conversion on capable CPUs.
            compiled = core.compile_model(model, self.device, {"INFERENCE_PRECISION_HINT": "f32"})
            request = compiled.create_infer_request()
        if model_signature:
            self._requests.put_signed(model_signature, request)
        return self._requests.put(graph, request)

    def run(self, graph: Graph) -> Execution:
        request = self._request(graph)
        feeds = {name: _tensor(value, graph.feed_types.get(name, "")) for name, value in graph.feeds.items()}
        try:
            with self.executing():
                request.infer(feeds)
        except Exception:
            assert self._requests is not None
            self._requests.isolate(graph, request)
            raise
        arrays = [_array(request.get_output_tensor(i)) for i in range(len(graph.outputs))]
        return Execution.named(graph.outputs, arrays, placement=f"OpenVINO {self.device}")

    def run_pack(self, graphs: Sequence[Graph]) -> list[Execution]:
        """The graphs as one ov.Model: each graph's model (a copy of a native one, or what the
        ONNX frontend reads of an ONNX one) keeps its own parameters and results, renamed
        `p<i>_<name>` so that no two share a name (every node too, so that an error naming
        a node names its graph: PackError); compiled once (f32 inference precision, as
        run()), run once. Nothing of it is kept for a later run."""
        import openvino as ov

        core = _core()
        parameters: list[Any] = []
        results: list[Any] = []
        feeds: dict[int, Any] = {}
        counts: list[int] = []
        counts_of_parameters: list[int] = []
        for i, graph in enumerate(graphs):
            if graph.variant.kind == "onnx":
                with self.compiling(counts=False):  # reading is part of compiling, not one
                    model = core.read_model(graph.model.SerializeToString())
            else:
                model = graph.model.clone()  # the graph's own model stays as built (a rerun alone)
            for node in model.get_ordered_ops():
                node.set_friendly_name(f"p{i}_{node.get_friendly_name()}")
            for parameter in model.get_parameters():
                name = _feed_name(parameter, graph.feeds)
                feeds[len(parameters)] = _tensor(graph.feeds[name], graph.feed_types.get(name, ""))
                parameter.set_friendly_name(f"p{i}_{name}")
                parameter.output(0).get_tensor().set_names({f"p{i}_{name}"})
                parameters.append(parameter)
            model_results = model.get_results()
            if len(model_results) != len(graph.outputs):
                raise ValueError(f"graph {i} has {len(model_results)} results for outputs {graph.outputs}")
            for j, result in enumerate(model_results):
                result.set_friendly_name(f"p{i}_result{j}")
                result.input_value(0).get_tensor().set_names({f"p{i}_{graph.outputs[j]}"})
            results.extend(model_results)
            counts.append(len(model_results))
            counts_of_parameters.append(len(model.get_parameters()))
        if len(feeds) != sum(len(graph.feeds) for graph in graphs):
            raise ValueError("the pack's parameters do not match its graphs' feeds")
        try:
            with self.compiling():
                compiled = core.compile_model(ov.Model(results, parameters, "pack"), self.device,
                                              {"INFERENCE_PRECISION_HINT": "f32"})
                request = compiled.create_infer_request()
            with self.executing():
                request.infer(feeds)
        except Exception as exc:
            culprits = _culprits(str(exc), parameters, counts_of_parameters)
            if culprits:
                raise PackError(str(exc), culprits) from exc
            raise
        executions = []
        first = 0
        for graph, count in zip(graphs, counts, strict=True):
            arrays = [_array(request.get_output_tensor(first + j)) for j in range(count)]
            executions.append(Execution.named(graph.outputs, arrays, placement=f"OpenVINO {self.device}"))
            first += count
        return executions


def _culprits(message: str, parameters: list[Any], counts: list[int]) -> list[int]:
    """The graphs of a pack an OpenVINO error names: by a node's name (`p<i>_...`), or by
    an input element type the CPU plugin does not take ("Input image format u4 is not
    supported"); [] where it names none."""
    named = {int(i) for i in re.findall(r"'p(\d+)_", message)}
    unsupported = set(re.findall(r"Input image format (\w+) is not supported", message))
    if unsupported:
        first = 0
        for i, count in enumerate(counts):
            types = {p.get_element_type().get_type_name() for p in parameters[first:first + count]}
            if types & unsupported:
                named.add(i)
            first += count
    return sorted(i for i in named if i < len(counts))


def _feed_name(parameter: Any, feeds: dict[str, Any]) -> str:
    """The feed of a parameter: by its tensor names, else by its node's name."""
    names = set(parameter.output(0).get_names()) | {parameter.get_friendly_name()}
    found = [name for name in feeds if name in names]
    if len(found) != 1:
        raise ValueError(f"no single feed for the parameter {parameter.get_friendly_name()!r} (feeds: {sorted(feeds)})")
    return found[0]


def _tensor(array: np.ndarray[Any, Any], element_type: str = "") -> Any:
    """A feed for OpenVINO. A bfloat16 array goes in as its bits: given the array itself,
    OpenVINO converts the numbers to float16 and stores those bits as bf16. A feed of a
    sub-byte type (`element_type`, e.g. u4) is packed by OpenVINO itself, through a
    Constant of that type, never by the suite's own bit twiddling."""
    import openvino as ov

    if element_type:
        ov_type = getattr(ov.Type, element_type)
        shape = ov.Shape(list(array.shape))
        # The Constant must outlive the copy: its tensor view does not keep it alive.
        constant = ov.op.Constant(ov_type, shape, [int(v) for v in array.ravel()])
        tensor = ov.Tensor(ov_type, shape)
        constant.get_tensor_view().copy_to(tensor)
        del constant
        return tensor
    if array.dtype == ml_dtypes.bfloat16:
        bits = np.ascontiguousarray(array).view(np.uint16)
        return ov.Tensor(bits, list(array.shape), ov.Type.bf16)
    return array


def _array(tensor: Any) -> np.ndarray[Any, Any]:
    """An output tensor's numbers, copied out of the request."""
    import openvino as ov

    if tensor.get_element_type().get_type_name() == "bf16":
        # `.data` shows a bf16 tensor as float16 numbers: copy its bits out instead.
        shape = tuple(tensor.get_shape())
        bits = np.empty(shape, dtype=np.uint16)
        tensor.copy_to(ov.Tensor(bits, list(shape), ov.Type.bf16))
        return bits.view(ml_dtypes.bfloat16)
    array: np.ndarray[Any, Any] = tensor.data.copy()
    return array


# What each OpenVINO device runs (the plugin OpenVINO loads for it).
_KERNELS = {"CPU": "CPU, OpenVINO's CPU plugin (oneDNN and its own kernels)",
            "GPU": "Intel GPU, OpenVINO's GPU plugin (OpenCL kernels)", "NPU": "Intel NPU, OpenVINO's NPU plugin"}


def _record(device: str, limit: str = "") -> BackendRecord:
    # Packs: native and ONNX-frontend graphs merged into one ov.Model (run_pack). A record held
    # to an instruction-set limit gives another tier's answers: run when asked for by name.
    held = f", held to {limit.upper()} (QEMU's emulated CPU where the host has more)" if limit else ""
    return BackendRecord(
        name=f"openvino-{device.lower()}" + (f"-{limit}" if limit else ""), runtime="OpenVINO",
        packages=("openvino",), kernels=_KERNELS[device] + held, kinds=("openvino", "onnx"),
        operators=EVERY_OPERATOR, isolation="emulator" if limit else "worker", extra=None,
        setup=isa_limit.SETUP if limit else None, adapter=partial(OpenVINO, device, limit), packs=True,
        by_default=not limit,
    )


DEVICES = tuple(_record(device) for device in ("CPU", "GPU", "NPU"))
HELD_TO_A_TIER = tuple(_record("CPU", limit) for limit in isa_limit.LIMITS)
_BY_NAME = {record.name: record for record in (*DEVICES, *HELD_TO_A_TIER)}
