"""Fault-injecting backends for tests/test_workers.py and tests/test_plugin_containment.py.
They live at module top level in an importable module because a spawn()ed worker unpickles
its backend by module and class name; pytest puts tests/ on sys.path, and the worker
inherits the parent's sys.path.

Each is the real onnx-reference backend, except on one trigger (case id, graph variant
label, or one method), and each tags its placement with the worker's pid so a test can
tell workers apart."""

from __future__ import annotations

import dataclasses
import functools
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from conformance.backends.base import INTERFACE_VERSION, Availability, Execution, Graph, WorkerLaunch
from conformance.backends.onnx_reference import OnnxReference
from conformance.backends.record import BackendRecord, Spoiler
from conformance.ops.topk.case import Case
from conformance.ops.topk.variants import Variant

TRIGGER_CASE = "dml-top-k1-example-1"
TRIGGER_LABEL = "onnx-opset11-constant"


def _triggered(graph: Graph) -> bool:
    return graph.model.graph.name == f"topk_{TRIGGER_CASE}" and graph.variant.label == TRIGGER_LABEL


class _PidTagged(OnnxReference):
    def run(self, graph: Graph) -> Execution:
        execution = super().run(graph)
        return dataclasses.replace(execution, placement=f"pid {os.getpid()}")


class AbortingBackend(_PidTagged):
    name = "fault-abort"

    def run(self, graph: Graph) -> Execution:
        if _triggered(graph):
            _abort()
        return super().run(graph)


def _abort() -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file in the repo
    except (ImportError, ValueError, OSError):
        pass
    os.write(2, b"fault-abort: the runtime says why it aborts\n")  # as a native runtime does, on its stderr
    os.abort()


class EmulatedAbortingBackend(AbortingBackend):
    """Dies on the trigger in a worker started under an "emulator" (`env`, which runs the
    interpreter as it is): as a backend held to an instruction-set tier under QEMU does. With
    `once_marker`, it dies only the first time (the file records it), as QEMU's own crashes do."""

    name = "fault-abort-emulated"

    def __init__(self, once_marker: str = "") -> None:
        self.once_marker = once_marker

    def worker_launch(self) -> WorkerLaunch | None:
        return WorkerLaunch({}, ("env",))

    def run(self, graph: Graph) -> Execution:
        if _triggered(graph) and self.once_marker:
            if os.path.exists(self.once_marker):
                return _PidTagged.run(self, graph)
            with open(self.once_marker, "w", encoding="utf-8"):
                pass
        return super().run(graph)


class CorruptingBackend(_PidTagged):
    """Answers the trigger rightly but leaves its process corrupted, so that the next graph
    that process runs aborts: as TVM's bfloat16 TopK corrupts the heap (TVM2) and the process
    dies on a later graph. Every graph, run first in a process, passes."""

    name = "fault-corrupt"
    corrupted = False  # per process: a worker unpickles its own backend

    def run(self, graph: Graph) -> Execution:
        if CorruptingBackend.corrupted:
            _abort()
        if _triggered(graph):
            CorruptingBackend.corrupted = True
        return super().run(graph)


class SpoilingBackend(CorruptingBackend):
    """As CorruptingBackend, but the next graph in the corrupted process hangs (as TVM2's heap
    corruption sometimes makes it); its record declares the trigger's graphs spoilers, so no
    graph runs after one in the same process."""

    def run(self, graph: Graph) -> Execution:
        if CorruptingBackend.corrupted:
            while True:
                time.sleep(3600)
        return super().run(graph)


SPOILING_RECORD = BackendRecord(
    name="fault-spoil", runtime="fault injection", packages=(), kernels="", kinds=("onnx",), operators=("topk",),
    isolation="worker", extra=None, setup=None, adapter=SpoilingBackend,
    spoilers=(Spoiler("topk", "float32", "FAKE1"),),
)


class HangingBackend(_PidTagged):
    name = "fault-hang"

    def run(self, graph: Graph) -> Execution:
        if _triggered(graph):
            while True:
                time.sleep(3600)
        return super().run(graph)


class HangingWithChildBackend(_PidTagged):
    """Hangs on the trigger in a child process it started (as IREE's compiler does under its
    worker), writing the child's pid to CHILD_PID_FILE first."""

    name = "fault-hang-child"

    def run(self, graph: Graph) -> Execution:
        if _triggered(graph):
            import subprocess

            child = subprocess.Popen(["sleep", "600"])
            with open(os.environ["TOPK_TEST_CHILD_PID_FILE"], "w") as file:
                file.write(str(child.pid))
            child.wait()
        return super().run(graph)


class RaisingBackend(_PidTagged):
    name = "fault-raise"

    def run(self, graph: Graph) -> Execution:
        if _triggered(graph):
            raise RuntimeError("injected runtime error")
        return super().run(graph)


class HangingStartBackend(_PidTagged):
    """Hangs while its worker starts (warm_up), as a runtime whose start-up hangs does."""

    name = "fault-hang-start"

    def warm_up(self) -> None:
        while True:
            time.sleep(3600)


class SegfaultingAvailabilityBackend(_PidTagged):
    """Dies in availability() (a segfault in a runtime's import or device query)."""

    name = "fault-segv-availability"

    def availability(self) -> Availability:
        import ctypes

        try:
            import resource

            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file in the repo
        except (ImportError, ValueError, OSError):
            pass
        ctypes.string_at(0)  # SIGSEGV
        return Availability(True)


# --- plugins that answer wrongly (tests/test_plugin_containment.py) -------------------------

class _Plugin(_PidTagged):
    interface_version = INTERFACE_VERSION  # declared in its own class, as a plugin must


class MisbehavingBackend(_Plugin):
    """One method (`method`: availability, isa, runs, describe, warm_up, worker_launch)
    raises `answer` where it is an exception, else returns it; the rest is onnx-reference."""

    def __init__(self, method: str, answer: object, name: str = "") -> None:
        self.name = name or f"fault-{method.replace('_', '-')}"
        self.method = method
        self.answer = answer

    def _misbehave(self, method: str, normal: Callable[[], Any]) -> Any:
        if method != self.method:
            return normal()
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer

    def availability(self) -> Availability:
        answer: Availability = self._misbehave("availability", super().availability)
        return answer

    def isa(self) -> str:
        answer: str = self._misbehave("isa", super().isa)
        return answer

    def runs(self, variant: Variant) -> bool:
        answer: bool = self._misbehave("runs", functools.partial(super().runs, variant))
        return answer

    def describe(self) -> dict[str, str]:
        answer: dict[str, str] = self._misbehave("describe", super().describe)
        return answer

    def warm_up(self) -> None:
        self._misbehave("warm_up", super().warm_up)

    def worker_launch(self) -> WorkerLaunch | None:
        answer: WorkerLaunch | None = self._misbehave("worker_launch", super().worker_launch)
        return answer


class WorkerOnlyBackend(_Plugin):
    """runs() and isa() raise where called in the process that made it (the main one); in
    its worker, it takes the opset-11 graphs only and says it runs under "worker-isa". It
    aborts on the trigger, so one result is a crash made in the main process."""

    name = "fault-worker-only"

    def __init__(self) -> None:
        self.made_in = os.getpid()

    def _in_worker(self, method: str) -> None:
        if os.getpid() == self.made_in:
            raise AssertionError(f"{method} was called in the main process")

    def runs(self, variant: Variant) -> bool:
        self._in_worker("runs()")
        return variant.kind == "onnx" and variant.version == 11

    def isa(self) -> str:
        self._in_worker("isa()")
        return "worker-isa"

    def run(self, graph: Graph) -> Execution:
        if _triggered(graph):
            _abort()
        return super().run(graph)


class _Cursed(np.ndarray):
    """An array the judge cannot even ask for its shape."""

    @property  # type: ignore[misc]
    def shape(self) -> Any:
        raise RuntimeError("cursed array")


class _Unpicklable(str):
    __slots__ = ()

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise TypeError("cannot pickle this placement")


def _with(execution: Execution, **fields: Any) -> Execution:
    """The execution with some fields replaced: an output by its name, or placement."""
    outputs = {**execution.outputs, **{k: v for k, v in fields.items() if k in execution.outputs}}
    rest = {k: v for k, v in fields.items() if k not in execution.outputs}
    return dataclasses.replace(execution, outputs=outputs, **rest)


# On the trigger case, the answer run() gives for each graph variant (by label).
WRONG_ANSWERS: dict[str, Callable[[Execution], object]] = {
    "onnx-opset1-attribute": lambda e: _with(e, values=None),
    "onnx-opset10-constant": lambda e: _with(e, indices=None),
    "onnx-opset10-input": lambda e: _with(e, values=e.outputs["values"].tolist()),
    "onnx-opset11-constant": lambda e: _with(e, placement=5),
    "onnx-opset11-input": lambda e: (e.outputs["values"], e.outputs["indices"]),
    "onnx-opset11-constant-dynamic-shape": lambda e: _with(e, placement=_Unpicklable("onnx.reference")),
    "onnx-opset11-input-dynamic-shape": lambda e: _with(e, values=e.outputs["values"].view(_Cursed)),
    # Outputs by name (interface 3): one the graph does not have, and one left out.
    "onnx-opset24-constant": lambda e: dataclasses.replace(e, outputs={**e.outputs, "scores": e.outputs["values"]}),
    "onnx-opset24-input": lambda e: dataclasses.replace(e, outputs={"values": e.outputs["values"]}),
}
# The case and variant whose cannot_run() raises.
CANNOT_RUN_RAISES = ("dml-top-k1-example-2", "onnx-opset11-constant")


class WrongAnswersBackend(_Plugin):
    """run() answers wrongly on the trigger case (WRONG_ANSWERS); cannot_run() raises once."""

    name = "fault-wrong-answers"

    def run(self, graph: Graph) -> Execution:
        execution = super().run(graph)
        wrong = WRONG_ANSWERS.get(graph.variant.label)
        if graph.model.graph.name != f"topk_{TRIGGER_CASE}" or wrong is None:
            return execution
        answer: Execution = wrong(execution)  # type: ignore[assignment]
        return answer

    def cannot_run(self, case: Case, variant: Variant) -> str | None:
        if (case.id, variant.label) == CANNOT_RUN_RAISES:
            raise ValueError("no such device property")
        return super().cannot_run(case, variant)


class ModelAbortingBackend(_PidTagged):
    """Aborts on any user's model (the `model` command), as a runtime that dies loading one."""

    name = "fault-model-abort"

    def run(self, graph: Graph) -> Execution:
        if graph.variant.op == "model":
            _abort()
        return super().run(graph)


class ModelHangingBackend(_PidTagged):
    """Hangs on any user's model, as a runtime that never finishes compiling one."""

    name = "fault-model-hang"

    def run(self, graph: Graph) -> Execution:
        if graph.variant.op == "model":
            time.sleep(3600)
        return super().run(graph)
