"""`tvm-cpu`: Apache TVM, a machine-learning compiler, as a user of its Python package runs an
ONNX model (apache-tvm; the `[tvm]` extra):

- import: Relax's ONNX frontend, `tvm.relax.frontend.onnx.from_onnx(model,
  keep_params_in_input=False)` (initializers folded in as constants; its other options
  default);
- compile: `DecomposeOpsForInference` and `LegalizeOps` (the passes TVM's own examples run
  before building), then `tvm.compile(module, target="llvm")`: kernels generated through TIR
  and LLVM for this CPU, no tuning;
- run: Relax's virtual machine on `tvm.cpu()`, the function called with the feeds in the
  graph's input order.

A refusal is the graph's `error`, its message starting with the stage that refused
(`TVM import:`, `TVM compile:`, `TVM run:`).

Packs: each graph's Relax function (`p<i>`) goes into one module, legalized and compiled
once; each function is then called alone; a graph whose own run raises is answered as
unanswered (Execution.unanswered: it runs again alone), so the pack is not built again."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import ml_dtypes
import numpy as np

from conformance.backends.base import EVERY_OPERATOR, Availability, Backend, Execution, Graph, PackError
from conformance.backends.compiled import Compiled
from conformance.backends.install_hint import extra_hint
from conformance.backends.pack_functions import fed_inputs, functions_of
from conformance.backends.record import BackendRecord, Spoiler

PINNED = "0.27.0.post1"  # constraints.txt; the version tests/baselines/tvm-cpu.yaml was recorded with
INSTALL_HINT = extra_hint("tvm", f"apache-tvm=={PINNED}")
TARGET = "llvm"
PLACEMENT = "TVM llvm (Relax VM on tvm.cpu())"


class TvmError(RuntimeError):
    """A stage of TVM refused a graph; the message starts with the stage."""


@dataclass(frozen=True)
class _Built:
    machine: Any  # the Relax virtual machine holding the compiled functions


class Tvm(Backend):
    _modules: Compiled[_Built] | None = None

    def __getstate__(self) -> dict[str, Any]:
        # A worker process compiles its own modules.
        return {**self.__dict__, "_modules": None}

    def availability(self) -> Availability:
        try:
            import tvm
            from tvm import relax  # noqa: F401
            from tvm.relax.frontend import onnx as _frontend  # noqa: F401
        except ImportError as exc:
            return Availability(False, f"TVM is not installed ({exc}); {INSTALL_HINT}")
        except Exception as exc:  # a package that does not load (its native library) is a reason
            return Availability(False, f"TVM cannot load: {type(exc).__name__}: {' '.join(str(exc).split())}")
        if not tvm.cpu().exist:
            return Availability(False, "TVM reports no CPU device")
        return Availability(True)

    def describe(self) -> dict[str, str]:
        import tvm

        target = tvm.target.Target(TARGET)
        info = {"device": f"TVM cpu: {target}", "tvm": tvm.__version__,
                "compiler": f"apache-tvm {tvm.__version__}, Relax ONNX frontend, target {TARGET}, no tuning"}
        with contextlib.suppress(metadata.PackageNotFoundError):
            info["tvm_ffi"] = metadata.version("apache-tvm-ffi")
        return info

    def close(self) -> None:
        self._modules = None

    def run(self, graph: Graph) -> Execution:
        if self._modules is None:
            self._modules = Compiled()
        built = self._modules.get(graph)
        if built is None:
            with self.compiling(counts=False):  # importing is part of compiling, not one
                made = _function(graph, 0)
            built = self._modules.put(graph, self._build([made]))
        try:
            arrays = self._call(built, "p0", graph)
        except Exception:
            self._modules.isolate(graph, built)
            raise
        return Execution.named(graph.outputs, arrays, placement=PLACEMENT)

    def run_pack(self, graphs: Sequence[Graph]) -> list[Execution]:
        functions = functions_of(graphs)
        made, refused = [], []
        for position, graph in enumerate(functions.distinct):
            try:
                with self.compiling(counts=False):
                    made.append(_function(graph, position))
            except TvmError as exc:  # every refusal named at once: they go alone, the rest on
                refused.append((position, exc))
        if refused:
            raise PackError(str(refused[0][1]), functions.graphs_of([position for position, _ in refused]))
        built = self._build(made)
        executions = []
        for at, graph in enumerate(graphs):
            try:
                arrays = self._call(built, f"p{functions.function_of[at]}", graph)
            except Exception:  # this graph's own run: it goes alone, the pack is not built again
                executions.append(Execution.unanswered(PLACEMENT))
                continue
            executions.append(Execution.named(graph.outputs, arrays, placement=PLACEMENT))
        return executions

    def _build(self, functions: Sequence[tuple[str, Any]]) -> _Built:
        import tvm
        from tvm import relax

        try:
            with self.compiling():
                module = tvm.IRModule({tvm.ir.GlobalVar(name): function for name, function in functions})
                module = relax.transform.DecomposeOpsForInference()(module)
                module = relax.transform.LegalizeOps()(module)
                executable = tvm.compile(module, target=TARGET)
        except Exception as exc:
            raise TvmError(f"TVM compile: {type(exc).__name__}: {_message(exc)}") from None
        return _Built(relax.VirtualMachine(executable, tvm.cpu()))

    def _call(self, built: _Built, function: str, graph: Graph) -> list[np.ndarray[Any, Any]]:
        import tvm

        names = fed_inputs(graph)
        try:
            arguments = [tvm.runtime.tensor(_feed(graph.feeds[name])) for name in names]
            with self.executing():
                returned = built.machine[function](*arguments)
            outputs = [returned] if hasattr(returned, "numpy") else list(returned)  # one output, or a tuple
            return [_array(output) for output in outputs]
        except Exception as exc:
            raise TvmError(f"TVM run: {type(exc).__name__}: {_message(exc)}") from None


def _function(graph: Graph, position: int) -> tuple[str, Any]:
    """The graph as the Relax function `p<position>`, from Relax's ONNX frontend."""
    from tvm.relax.frontend.onnx import from_onnx

    name = f"p{position}"
    try:
        with warnings.catch_warnings():
            # The frontend runs onnx.checker itself and only warns; the suite has checked the graph.
            warnings.simplefilter("ignore")
            module = from_onnx(graph.model, keep_params_in_input=False)
    except Exception as exc:
        raise TvmError(f"TVM import: {type(exc).__name__}: {_message(exc)}") from None
    return name, module["main"].with_attr("global_symbol", name)


def _feed(array: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return np.ascontiguousarray(array)


def _array(output: Any) -> np.ndarray[Any, Any]:
    array: np.ndarray[Any, Any] = output.numpy()
    if str(output.dtype) == "bfloat16" and array.dtype != ml_dtypes.bfloat16:
        array = array.view(ml_dtypes.bfloat16)
    return array.copy()


def _message(exc: BaseException) -> str:
    """TVM's message on one line, without the C++ traceback its errors may carry."""
    text = str(exc)
    for cut in ("Traceback (most recent call last)", "Stack trace:"):
        head, _, tail = text.partition(cut)
        if tail and head.strip():
            text = head
    return " ".join(text.split())[:2000]


RECORD = BackendRecord(
    name="tvm-cpu", runtime="Apache TVM (Relax, compiled)", packages=("apache-tvm",),
    kernels="CPU, kernels TVM generates (Relax and TIR to LLVM)", kinds=("onnx",), operators=EVERY_OPERATOR,
    isolation="worker", extra="tvm", setup=None, family="compiled", adapter=Tvm, packs=True,
    # TopK on bfloat16 writes outside its buffers; a later graph in the same process died or hung.
    spoilers=(Spoiler("topk", "bfloat16", "TVM2"),),
)
