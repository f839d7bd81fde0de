"""Runs cases on backends: every graph variant a backend takes, built once per case and
shared by the backends, each output judged. In-process for now; the seam for worker
processes is `execute`, which needs only picklable inputs besides the backend."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from backends.base import Backend, Graph, PlacementError
from conformance.case import Case
from conformance.judge import Outcome, Outputs, Raised, judge
from conformance.onnx_graphs import GraphBuildError, build_onnx, onnx_feeds
from conformance.results import Result
from conformance.variants import Variant, onnx_variants, openvino_variants


def variants_for(backend: Backend) -> list[Variant]:
    return [v for v in onnx_variants() + openvino_variants() if backend.runs(v)]


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

    def forget(self, case: Case) -> None:
        self.built = {key: g for key, g in self.built.items() if key[0] != case.id}


def _build(case: Case, variant: Variant) -> Graph | GraphBuildError:
    try:
        if variant.kind == "onnx":
            return Graph(variant, build_onnx(case, variant), onnx_feeds(case, variant))
        from conformance.openvino_graphs import build_openvino, openvino_feeds

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
    reason = variant.cannot_express(case)
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


def unavailable(case: Case, backend: Backend, reason: str) -> Iterator[Result]:
    for variant in variants_for(backend):
        yield Result(case.id, backend.name, variant.graph, variant.k_source, "skip",
                     message=f"{backend.name} is not available: {reason}", tags=list(case.tags))


def run_cases(
    cases: Sequence[Case], backends: Sequence[Backend],
    on_result: Callable[[Result], None] = lambda result: None,
) -> list[Result]:
    availability = {b.name: b.availability() for b in backends}
    results: list[Result] = []
    graphs = GraphCache()
    for case in cases:
        for backend in backends:
            status = availability[backend.name]
            produced = (
                (execute(case, backend, v, graphs) for v in variants_for(backend))
                if status.available else unavailable(case, backend, status.reason)
            )
            for result in produced:
                results.append(result)
                on_result(result)
        graphs.forget(case)  # graphs of one case are not needed by the next
    return results
