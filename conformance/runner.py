"""One case on one backend through one graph variant, built, run and judged. `execute`
takes only picklable arguments, so it runs the same in a worker process."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from backends.base import Backend, BackendCrash, Graph, PlacementError
from conformance.case import Case
from conformance.graphs.directml import build_directml, directml_feeds
from conformance.graphs.onnx import GraphBuildError, build_onnx, onnx_feeds
from conformance.graphs.variants import Variant, directml_variants, onnx_variants, openvino_variants
from conformance.judge import Outcome, Outputs, Raised, judge
from conformance.results import Result


def variants_for(backend: Backend) -> list[Variant]:
    return [v for v in onnx_variants() + openvino_variants() + directml_variants() if backend.runs(v)]


@dataclass
class GraphCache:
    """Graphs built once per (case, variant) and reused by every backend."""

    built: dict[tuple[str, str], Graph | GraphBuildError] = field(default_factory=dict)

    def get(self, case: Case, variant: Variant) -> Graph:
        key = (case.id, variant.label)
        if key not in self.built:
            self.built[key] = _build(case, variant)
        graph = self.built[key]
        if isinstance(graph, GraphBuildError):
            raise graph
        return graph

    def forget_all(self) -> None:
        self.built.clear()


def _build(case: Case, variant: Variant) -> Graph | GraphBuildError:
    try:
        if variant.kind == "onnx":
            return Graph(variant, build_onnx(case, variant), onnx_feeds(case, variant))
        if variant.kind == "directml":
            return Graph(variant, build_directml(case, variant), directml_feeds(case, variant))
        from conformance.graphs.openvino import build_openvino, openvino_feeds

        return Graph(variant, build_openvino(case, variant), openvino_feeds(case, variant))
    except GraphBuildError as exc:
        return exc
    except Exception as exc:  # the builder API refused the graph
        return GraphBuildError(f"graph not built: {type(exc).__name__}: {exc}")


def execute(case: Case, backend: Backend, variant: Variant, graphs: GraphCache) -> Result:
    """One case on one backend through one graph variant, judged."""
    base: dict[str, Any] = {
        "case": case.id, "backend": backend.name, "graph": variant.graph,
        "k_source": variant.k_source, "tags": list(case.tags),
    }
    reason = variant.cannot_express(case) or backend.cannot_run(case, variant)
    if reason:
        return Result(**base, verdict="skip", message=reason)
    profile = variant.profile(case)
    base["profile"] = profile.label
    try:
        graph = graphs.get(case, variant)
    except GraphBuildError as exc:
        return Result(**base, verdict="skip", message=str(exc))
    started = time.perf_counter()
    placement = wrapping = ""
    outcome: Outcome
    try:
        execution = backend.run(graph)
        outcome = Outputs(execution.values, execution.indices)
        placement, wrapping = execution.placement, execution.wrapping
    except BackendCrash as exc:
        return Result(**base, verdict="crash", message=str(exc), seconds=time.perf_counter() - started)
    except PlacementError as exc:
        # Never judged as an output, nor as an expected error: the provider is unproven.
        return Result(**base, verdict="error", message=f"placement: {exc}",
                      seconds=time.perf_counter() - started)
    except Exception as exc:
        outcome = Raised(f"{type(exc).__name__}: {' '.join(str(exc).split())}")
    seconds = time.perf_counter() - started
    verdict = judge(case, profile, outcome)
    return Result(
        **base, verdict=verdict.verdict, rules=list(verdict.rules), domain=verdict.domain,
        message=verdict.message, seconds=round(seconds, 6), placement=placement,
        wrapping=wrapping, discrepancy=verdict.discrepancy,
    )
