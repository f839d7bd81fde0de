"""Per-run cost of the DirectML backends under Wine, as ratios against ONNX Runtime's CPU
provider measured in the same run on the same machine.

    python benchmarks/wine_backends.py [--repeat N]

Every figure is `Backend.run(graph)`, what the suite pays per result. For each input (the
documented DML_TOP_K1 example 3, and 64x1000 float32 with ties, K=16) it prints the median
of one run of a graph run before (the bridge keeps ONNX Runtime sessions and DirectML
operators per signature; `ort-cpu` builds its session on every run, as the suite does) and
of one run of a graph not seen before (K differs each time). Figures from a CPU Vulkan
driver say nothing about a GPU: they measure the bridge, Wine and lavapipe."""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.clock import median_seconds
from conformance.backends.base import Backend
from conformance.backends.registry import by_name
from conformance.ops.topk.case import Case
from conformance.ops.topk.variants import Variant, directml_variants
from conformance.running.runner import GraphCache


def _case(name: str, x: np.ndarray, k: int) -> Case:
    return Case(id=name, source="benchmark", file=Path("<benchmark>"), x=x, axis=-1, k=k)


INPUTS = (
    _case("dml-top-k1-example-3", np.array([[[[1, 2, 2, 3], [3, 4, 5, 5], [6, 6, 6, 6]]]], dtype=np.float32), 3),
    _case("64x1000-k16", np.random.default_rng(1).integers(0, 4, (64, 1000)).astype(np.float32), 16),
)
ONNX = Variant("onnx", 11, "constant")


def fresh_graph_seconds(backend: Backend, case: Case, variant: Variant, count: int) -> float:
    """A graph the backend has not seen: K differs per run, so nothing is reused."""
    times = []
    for k in range(1, count + 1):
        fresh = _case(f"{case.id}-k{k}", case.x, k)
        graph = GraphCache().get(fresh, variant)
        started = time.perf_counter()
        backend.run(graph)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    cpu, ort_dml, directml = by_name(["ort-cpu", "ort-dml-wine", "directml-wine"])
    for backend in (ort_dml, directml):
        status = backend.availability()
        if not status.available:
            raise SystemExit(f"{backend.name} is not available: {status.reason}")
    top_k1 = directml_variants()[0]
    for case in INPUTS:
        onnx_graph, dml_graph = GraphCache().get(case, ONNX), GraphCache().get(case, top_k1)
        peer = median_seconds(partial(cpu.run, onnx_graph), args.repeat, warm_up=True)
        print(f"{case.id}: ort-cpu {peer * 1e3:.3f} ms per run (the peer)")
        for backend, graph in ((ort_dml, onnx_graph), (directml, dml_graph)):
            warm = median_seconds(partial(backend.run, graph), args.repeat, warm_up=True)
            print(f"  {backend.name}: {warm / peer:.1f}x ort-cpu per run of a graph seen before ({warm * 1e3:.2f} ms)")
        count = min(8, case.x.shape[-1])
        cold_peer = fresh_graph_seconds(cpu, case, ONNX, count)
        for backend, variant in ((ort_dml, ONNX), (directml, top_k1)):
            cold = fresh_graph_seconds(backend, case, variant, count)
            print(f"  {backend.name}: {cold / cold_peer:.1f}x ort-cpu per run of a new graph "
                  f"({cold * 1e3:.1f} ms; ort-cpu {cold_peer * 1e3:.2f} ms)")


if __name__ == "__main__":
    main()
