"""Fault-injecting backends for tests/test_workers.py. They live at module top level in an
importable module because a spawn()ed worker unpickles its backend by module and class
name; pytest puts tests/ on sys.path, and the worker inherits the parent's sys.path.

Each is the real onnx-reference backend, except on one trigger (case id, graph variant
label), and each tags its placement with the worker's pid so a test can tell workers apart."""

from __future__ import annotations

import dataclasses
import os
import time

from backends.base import Availability, Execution, Graph
from backends.onnx_reference import OnnxReference

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
            try:
                import resource

                resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file in the repo
            except (ImportError, ValueError, OSError):
                pass
            os.abort()
        return super().run(graph)


class HangingBackend(_PidTagged):
    name = "fault-hang"

    def run(self, graph: Graph) -> Execution:
        if _triggered(graph):
            while True:
                time.sleep(3600)
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
