"""OpenVINO's CPU backend with faults injected into its packs only (run() alone is
OpenVINO's own): a pack holding the poisoned case's graphs fails to compile, kills its
worker, or returns wrong outputs for them. Every graph must still get the result it gets
alone (tests/test_packs.py)."""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from conformance.backends.base import Execution, Graph
from conformance.backends.openvino_native import OpenVINO

POISONED = "ov-topk11-spec-example-stable"  # a case of cases/documented/openvino-topk11.yaml


def _poisoned(graph: Graph) -> bool:
    model: Any = graph.model
    name = model.graph.name if graph.variant.kind == "onnx" else model.get_friendly_name()
    return bool(name == f"topk_{POISONED}")


class _Faulty(OpenVINO):
    def __init__(self) -> None:
        super().__init__("CPU")


class CompileFailingPacks(_Faulty):
    """A pack with a poisoned graph in it does not compile (the compile call raises)."""

    def run_pack(self, graphs: Sequence[Graph]) -> list[Execution]:
        if len(graphs) > 1 and any(_poisoned(graph) for graph in graphs):
            with self.compiling():
                raise RuntimeError("injected: the pack's model did not compile")
        return super().run_pack(graphs)


class DyingPacks(_Faulty):
    """A pack with a poisoned graph in it kills its worker process."""

    def run_pack(self, graphs: Sequence[Graph]) -> list[Execution]:
        if any(_poisoned(graph) for graph in graphs):
            os._exit(70)
        return super().run_pack(graphs)


# Where SlowInPacks writes a line each time a pack holding the poisoned graphs starts.
HANG_LOG = "TOPK_TEST_HANG_LOG"


class SlowInPacks(_Faulty):
    """A pack with a poisoned graph in it runs past any time limit (as IREE's TopK on a row of
    2**20 elements does), and says so in the file HANG_LOG names; alone the graph answers."""

    def run_pack(self, graphs: Sequence[Graph]) -> list[Execution]:
        if any(_poisoned(graph) for graph in graphs):
            with open(os.environ[HANG_LOG], "a", encoding="utf-8") as log:
                log.write(f"{len(graphs)}\n")
            time.sleep(3600)
        return super().run_pack(graphs)


class WrongPacks(_Faulty):
    """A pack gives the poisoned graphs' first output emptied along its last axis (a wrong
    answer): they must be recorded from their runs alone, where OpenVINO passes them."""

    def run_pack(self, graphs: Sequence[Graph]) -> list[Execution]:
        executions = super().run_pack(graphs)
        return [dataclasses.replace(execution, outputs=_spoiled(graph, execution.outputs))
                for graph, execution in zip(graphs, executions, strict=True)]


def _spoiled(graph: Graph, outputs: Any) -> dict[str, np.ndarray[Any, Any]]:
    spoiled = dict(outputs)
    if _poisoned(graph):
        first = graph.outputs[0]
        spoiled[first] = np.ascontiguousarray(spoiled[first][..., :0])
    return spoiled


class EveryPackDies(_Faulty):
    """Every pack kills its worker process (the fuzzer's packs hold one input's graphs)."""

    def run_pack(self, graphs: Sequence[Graph]) -> list[Execution]:
        os._exit(70)


class EveryPackHangs(_Faulty):
    """Every pack hangs: its worker must be killed after the time limit."""

    def run_pack(self, graphs: Sequence[Graph]) -> list[Execution]:
        time.sleep(3600)
        raise AssertionError("not reached")
