"""`iree-cpu`, `iree-vulkan-swiftshader`, `iree-vulkan-lavapipe`: IREE, the MLIR compiler and
runtime, as a user of its Python packages runs an ONNX model (iree-base-compiler,
iree-base-runtime; the `[iree]` extra):

- import: IREE's ONNX importer (what `iree-import-onnx` does with its default options: the
  model checked and its shapes inferred, then each graph a `func.func` in the torch dialect);
- compile: `iree.compiler.compile_str` with the target backend only (`llvm-cpu`, or
  `vulkan-spirv` for SPIR-V shaders), every other flag IREE's default; it runs the
  `iree-compile` tool in a process of its own, so a compiler crash is that graph's error;
- run: the module loaded on the runtime driver (`local-task`, or `vulkan` on the one CPU
  Vulkan driver the worker was given, conformance/backends/vulkan.py), the graph's function
  called with the feeds in the graph's input order.

A refusal is the graph's `error`, its message starting with the stage that refused and where
(`IREE import (...)`, `IREE compile (...)`, `IREE run (...)`, each naming the target, the driver
and the device as IREE reports it, as every result's placement does), the compiler's
diagnostics without the command line IREE appends. Outputs are read back through a host buffer of their own (staged): on
SwiftShader, IREE's default read imports the numpy array's memory, which Vulkan refuses
unless aligned to 4096 bytes.

Packs: the graphs of a pack, each imported into a function of its own (`p<i>`, its nodes
`p<i>_...`, so that a compiler error names its graph), make one module, compiled once; each
function is then called alone; a graph whose own run raises is answered as unanswered
(Execution.unanswered: it runs again alone), so the pack is not built again."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import ml_dtypes
import numpy as np
import onnx

from conformance.backends import vulkan
from conformance.backends.base import EVERY_OPERATOR, Availability, Backend, Execution, Graph, PackError, WorkerLaunch
from conformance.backends.compiled import Compiled
from conformance.backends.install_hint import extra_hint
from conformance.backends.pack_functions import fed_inputs, functions_of
from conformance.backends.record import BackendRecord, Unfinishable

PINNED = "3.13.0"  # constraints.txt; the version tests/baselines/iree-*.yaml were recorded with
INSTALL_HINT = extra_hint("iree", f"iree-base-compiler=={PINNED}, iree-base-runtime=={PINNED}")
_DIAGNOSTICS = re.compile(r"Diagnostics:\n(.*?)\n\nInvoked with:", re.S)
_LINE = 400  # a diagnostic quotes the MLIR operation it refused: its head says which
# A diagnostic's place: unknown in the text IREE is given; the node's name stays in `loc("...")`.
_TRIMMED = re.compile(r'^<unknown>:0: | loc\("[^"]*"\)$')
_NAMED_GRAPH = re.compile(r'loc\("p(\d+)_')


class IreeError(RuntimeError):
    """A stage of IREE refused a graph; the message starts with the stage."""


class _Refused(IreeError):
    """IREE's importer refused the graphs of some functions of a module."""

    def __init__(self, message: str, functions: list[int]) -> None:
        super().__init__(message)
        self.functions = functions


@dataclass(frozen=True)
class _Loaded:
    functions: Any  # the loaded module's functions, by name
    device: Any  # the HAL device the module runs on (outputs are read back through it)


class Iree(Backend):
    def __init__(self, target: str, driver: str, vulkan_driver: str = "") -> None:
        self.target = target  # the compiler's target backend: llvm-cpu, vulkan-spirv
        self.driver = driver  # the runtime's HAL driver: local-task, vulkan
        self.vulkan_driver = vulkan_driver  # lavapipe, swiftshader (vulkan.DRIVERS), or ""
        _BY_NAME[_name(target, vulkan_driver)].bind(self)

    def __getstate__(self) -> dict[str, Any]:
        # A worker process compiles its own modules and opens its own device.
        return {**self.__dict__, "_modules": None, "_config": None, "_where": ""}

    _modules: Compiled[_Loaded] | None = None
    _config: Any = None  # the runtime's configuration: its instance and the one device

    def worker_launch(self) -> WorkerLaunch | None:
        return vulkan.launch(self.vulkan_driver) if self.vulkan_driver else None

    def availability(self) -> Availability:
        try:
            import iree.compiler
            import iree.runtime  # noqa: F401
        except ImportError as exc:
            return Availability(False, f"IREE is not installed ({exc}); {INSTALL_HINT}")
        if self.vulkan_driver:
            held = vulkan.availability(self.vulkan_driver)
            if not held.available:
                return held
        try:
            name = self._device_name()
        except Exception as exc:  # a driver that does not start is a reason, not a crash
            return Availability(False, f"IREE's {self.driver} driver does not start: {' '.join(str(exc).split())}")
        if self.vulkan_driver and not vulkan.confirms(self.vulkan_driver, name):
            return Availability(False, f"IREE's Vulkan device is {name!r}, not {self.vulkan_driver}'s: cannot "
                                       "confirm where the shaders run")
        return Availability(True)

    def describe(self) -> dict[str, str]:
        from iree.compiler import version as compiler_version
        from iree.runtime import version as runtime_version

        info = {"device": f"IREE {self.driver}: {self._device_name()}",
                "compiler": f"iree-base-compiler {compiler_version.VERSION}, target backend {self.target}, "
                            "every other flag IREE's default",
                "iree_compiler": compiler_version.VERSION, "iree_runtime": runtime_version.VERSION}
        if self.vulkan_driver:
            found = vulkan.physical_devices()
            if found:
                info["vulkan_device"] = found[0]["name"]
                info["vulkan_driver_version"] = found[0]["driver_version"]
                info["vulkan_api"] = found[0]["vulkan"]
            info["vulkan_icd"] = str(vulkan.DRIVERS[self.vulkan_driver].icd)
            info["vulkan_package"] = (f"{vulkan.DRIVERS[self.vulkan_driver].package} "
                                      f"{vulkan.package_version(self.vulkan_driver)}").strip()
        return info

    def close(self) -> None:
        self._modules = None
        self._config = None
        self._where = ""

    def _runtime(self) -> Any:
        if self._config is None:
            import iree.runtime as rt

            self._config = rt.Config(self.driver)
        return self._config

    def _device_name(self) -> str:
        import iree.runtime as rt

        devices = rt.get_driver(self.driver).query_available_devices()
        if not devices:
            raise IreeError(f"IREE's {self.driver} driver reports no device")
        self._runtime()  # the device itself must open, not only be listed
        return str(devices[0].get("name") or devices[0].get("path") or "")

    _where: str = ""

    @property
    def placement(self) -> str:
        """Where its graphs run, as IREE reports the device: in every result's placement and in
        every run error's message."""
        if not self._where:
            self._where = f"IREE {self.target} on {self.driver}: {self._device_name()}"
        return self._where

    def run(self, graph: Graph) -> Execution:
        if self._modules is None:
            self._modules = Compiled()
        loaded = self._modules.get(graph)
        if loaded is None:
            with self.compiling(counts=False):  # importing is part of compiling, not one
                text = _module_text([graph], self.placement)
            loaded = self._modules.put(graph, self._load(self._compile(text)))
        try:
            arrays = self._call(loaded, "p0", graph)
        except Exception:
            self._modules.isolate(graph, loaded)
            raise
        return Execution.named(graph.outputs, arrays, placement=self.placement)

    def run_pack(self, graphs: Sequence[Graph]) -> list[Execution]:
        functions = functions_of(graphs)
        try:
            with self.compiling(counts=False):
                text = _module_text(functions.distinct, self.placement)
            loaded = self._load(self._compile(text))
        except _Refused as exc:
            raise PackError(str(exc), functions.graphs_of(exc.functions)) from exc
        except IreeError as exc:
            named = {int(i) for i in _NAMED_GRAPH.findall(str(exc))}
            if named:  # the compiler names the nodes it refused, p<function>_...
                raise PackError(str(exc), functions.graphs_of(named)) from exc
            raise
        executions = []
        for at, graph in enumerate(graphs):
            function = functions.function_of[at]
            try:
                arrays = self._call(loaded, f"p{function}", graph)
            except Exception:  # this graph's own run: it goes alone, the pack is not built again
                executions.append(Execution.unanswered(self.placement))
                continue
            executions.append(Execution.named(graph.outputs, arrays, placement=self.placement))
        return executions

    def _compile(self, text: str) -> bytes:
        from iree.compiler import CompilerToolError, compile_str

        try:
            with self.compiling():
                vmfb: bytes = compile_str(text, target_backends=[self.target])
        except CompilerToolError as exc:
            raise IreeError(f"IREE compile ({self.placement}): {_diagnostics(str(exc))}") from None
        return vmfb

    def _load(self, vmfb: bytes) -> _Loaded:
        import iree.runtime as rt

        config = self._runtime()
        with self.compiling(counts=False):  # loading is part of building, not a compilation
            context = rt.SystemContext(config=config)
            context.add_vm_module(rt.VmModule.copy_buffer(context.instance, vmfb))
        return _Loaded(context.modules.module, config.device)

    def _call(self, loaded: _Loaded, function: str, graph: Graph) -> list[np.ndarray[Any, Any]]:
        names = fed_inputs(graph)
        try:
            arguments = [_device_array(loaded.device, graph.feeds[name]) for name in names]
            with self.executing():
                returned = loaded.functions[function](*arguments)
            outputs = list(returned) if isinstance(returned, (tuple, list)) else [returned]
            return [_host_array(loaded.device, output) for output in outputs]
        except Exception as exc:
            raise IreeError(f"IREE run ({self.placement}): {' '.join(str(exc).split())}") from None


def _module_text(graphs: Sequence[Graph], where: str) -> str:
    """One MLIR module holding each graph as the function `p<i>`, as IREE's ONNX importer makes
    it (its default options). A graph the importer refuses: _Refused, naming the graph."""
    from iree.compiler import ir
    from iree.compiler.extras import onnx_importer

    context = ir.Context()
    module = onnx_importer.ModelInfo(graphs[0].model).create_module(context=context).operation
    refused: list[tuple[int, str]] = []
    for i, graph in enumerate(graphs):
        try:
            info = onnx_importer.ModelInfo(_as_function(graph.model, f"p{i}"))
            importer = onnx_importer.NodeImporter.define_function(info.main_graph, module)
            importer.import_all()
        except Exception as exc:  # every refusal named at once; the half-made function goes
            refused.append((i, f"IREE import ({where}): {type(exc).__name__}: {' '.join(str(exc).split())}"))
            _erase_function(module, f"p{i}")
    if refused:
        raise _Refused(refused[0][1], [i for i, _ in refused])
    try:
        module.verify()
    except Exception as exc:
        raise IreeError(f"IREE import ({where}): the module does not verify: {' '.join(str(exc).split())}") from None
    return str(module.get_asm(assume_verified=True, enable_debug_info=True))


def _erase_function(module: Any, name: str) -> None:
    for operation in list(module.regions[0].blocks[0].operations):
        try:
            symbol = str(operation.attributes["sym_name"]).strip('"')
        except KeyError:  # not a function
            continue
        if symbol == name:
            operation.erase()


def _as_function(model: onnx.ModelProto, name: str) -> onnx.ModelProto:
    """The model as IREE's importer tool prepares it (checked, shapes and data propagated), its
    graph and nodes named after the function it becomes."""
    named = onnx.ModelProto()
    named.CopyFrom(model)
    named.graph.name = name
    for node in named.graph.node:
        node.name = f"{name}_{node.name or node.op_type}"
    onnx.checker.check_model(named)
    return onnx.shape_inference.infer_shapes(named, data_prop=True)


def _diagnostics(message: str) -> str:
    """The compiler's diagnostics, without the command line and advice IREE adds to its error."""
    found = _DIAGNOSTICS.search(message)
    text = found.group(1) if found else message
    lines = [_TRIMMED.sub("", line.strip())[:_LINE] for line in text.splitlines() if "error" in line]
    return " ".join(lines or [" ".join(text.split())[:_LINE]])[:2000]


def _device_array(device: Any, array: np.ndarray[Any, Any]) -> Any:
    """A feed copied to the device; bfloat16 (which IREE's numpy mapping lacks) by its bits."""
    import iree.runtime as rt

    array = np.ascontiguousarray(array)
    if array.dtype == ml_dtypes.bfloat16:
        view = device.allocator.allocate_buffer_copy(
            memory_type=rt.MemoryType.DEVICE_LOCAL, allowed_usage=rt.BufferUsage.DEFAULT, device=device,
            buffer=array.view(np.uint16), element_type=rt.HalElementType.BFLOAT_16)
        return rt.DeviceArray(device, view)
    return rt.asdevicearray(device, array)


def _host_array(device: Any, output: Any) -> np.ndarray[Any, Any]:
    """An output copied back to the host through a staging buffer of its own."""
    import iree.runtime as rt

    view = output._buffer_view if isinstance(output, rt.DeviceArray) else output
    element_type = view.element_type
    if element_type == rt.HalElementType.BFLOAT_16:
        dtype: np.dtype[Any] = np.dtype(np.uint16)
    else:
        dtype = np.dtype(rt.HalElementType.map_to_dtype(element_type))
    shape = tuple(view.shape)
    source = view.get_buffer()
    size = source.byte_length()
    if size == 0 or 0 in shape:
        host = np.empty(shape, dtype)
    else:
        staging = device.allocator.allocate_buffer(
            memory_type=int(rt.MemoryType.HOST_LOCAL | rt.MemoryType.DEVICE_VISIBLE),
            allowed_usage=int(rt.BufferUsage.TRANSFER_TARGET | rt.BufferUsage.MAPPING_SCOPED), allocation_size=size)
        semaphore = device.create_semaphore(0)
        device.queue_copy(source, staging, wait_semaphores=rt.HalFence.create_at(semaphore, 0),
                          signal_semaphores=rt.HalFence.create_at(semaphore, 1))
        rt.HalFence.create_at(semaphore, 1).wait()
        host = staging.map().asarray(shape, dtype).copy()
    return host.view(ml_dtypes.bfloat16) if element_type == rt.HalElementType.BFLOAT_16 else host


NMS_NEVER_COMPILED = Unfinishable("nms", 0, "NMS-IREE1", input="scores", at_least=(2, 2, 2))
# One batch and one class (the only shape IREE's NonMaxSuppression takes) of 1,000 boxes: 41 s to
# over a minute on the CPU, time growing with the square of the boxes (NMS-IREE2).
NMS_TOO_SLOW = Unfinishable("nms", 0, "NMS-IREE2", input="scores", at_least=(1, 1, 1000), at_most=(1, 1, None),
                            dtypes=("float32",))  # ONNX's NonMaxSuppression takes no other


def _name(target: str, vulkan_driver: str) -> str:
    return f"iree-vulkan-{vulkan_driver}" if vulkan_driver else "iree-cpu"


def _record(target: str, driver: str, vulkan_driver: str = "") -> BackendRecord:
    if vulkan_driver:
        kernels = f"SPIR-V shaders IREE compiles (MLIR), on {vulkan.DRIVERS[vulkan_driver].kind}"
    else:
        kernels = "CPU, kernels IREE compiles (MLIR to LLVM)"
    return BackendRecord(
        name=_name(target, vulkan_driver), runtime="IREE (compiler and runtime)",
        packages=("iree-base-compiler", "iree-base-runtime"), kernels=kernels, kinds=("onnx",),
        operators=EVERY_OPERATOR, isolation="worker", extra="iree", setup=vulkan.SETUP if vulkan_driver else None,
        family="compiled", adapter=partial(Iree, target, driver, vulkan_driver), packs=True,
        # Run when named: IREE's TopK takes time quadratic in the row (finding IREE1), so the
        # whole corpus takes over 20 minutes on iree-cpu and longer on a CPU Vulkan.
        by_default=False,
        # A shader's answer is the driver's: its device and build (IREE's CPU code is its own).
        depends_on=vulkan.DRIVERS[vulkan_driver].build if vulkan_driver else (),
        # On the CPU, 131,072 elements take 25 to 58 s of the 60 s a graph is given (beside other
        # work, more: the gate saw them time out), and time grows with the square of the row: rows
        # of 262,144 and more take minutes. TopK-1 and TopK-10 are refused at once (compiled from
        # opset 11 only), so they still run. On any target, NonMaxSuppression on scores of 2 batches
        # and 2 classes (and 2 boxes) or more never finishes compiling (NMS-IREE1): the pass that
        # spins comes before the target's code.
        unfinishable=(NMS_NEVER_COMPILED,) if vulkan_driver else (
            Unfinishable("topk", 131_072, "IREE1", ("onnx-opset11", "onnx-opset24")), NMS_NEVER_COMPILED, NMS_TOO_SLOW),
    )


CPU = _record("llvm-cpu", "local-task")
ON_VULKAN = tuple(_record("vulkan-spirv", "vulkan", name) for name in ("swiftshader", "lavapipe"))
_BY_NAME = {record.name: record for record in (CPU, *ON_VULKAN)}
