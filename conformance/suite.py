"""Runs a set of cases on a set of backends: every graph variant each backend takes, in
one worker process per backend (or in this process, for debugging)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from backends.base import Backend
from conformance.case import Case
from conformance.graphs.variants import Variant
from conformance.results import Result
from conformance.runner import GraphCache, execute, variants_for
from conformance.workers import Probe, Worker, probe_here

Executor = Callable[[Case, Variant], Result]


def unavailable(case: Case, backend: Backend, reason: str) -> Iterator[Result]:
    for variant in variants_for(backend):
        yield Result(case.id, backend.name, variant.graph, variant.k_label, "skip",
                     message=f"{backend.name} is not available: {reason}", tags=list(case.tags),
                     case_file=str(case.file),
                     x_shape=variant.x_shape)


class Executors:
    """One executor per backend: a worker process, or a direct call in this process."""

    def __init__(self, isolate: bool = True, timeout: float = 60.0) -> None:
        self.isolate = isolate
        self.timeout = timeout
        self.workers: dict[str, Worker] = {}
        self.in_process: dict[str, Backend] = {}
        self.graphs = GraphCache()

    def for_backend(self, backend: Backend) -> Executor:
        if self.isolate:
            worker = self.workers.setdefault(backend.name, Worker(backend, self.timeout))
            return worker.execute
        self.in_process[backend.name] = backend
        return lambda case, variant: execute(case, backend, variant, self.graphs)

    def probe(self, backends: Sequence[Backend]) -> dict[str, Probe]:
        """Each backend's availability and description, asked in its worker (all at once,
        each under the time limit) or, in-process, here."""
        if not self.isolate:
            return {backend.name: probe_here(backend) for backend in backends}
        workers = [self.workers.setdefault(b.name, Worker(b, self.timeout)) for b in backends]
        for worker in workers:
            worker.spawn()  # all start at once; each is then waited for, under its time limit
        probes = [worker.probe() for worker in workers]
        for worker, probe in zip(workers, probes, strict=True):
            if not probe.availability.available:
                worker.stop()  # nothing will run there
        return {backend.name: probe for backend, probe in zip(backends, probes, strict=True)}

    def close(self) -> None:
        for worker in self.workers.values():
            worker.stop()
        for backend in self.in_process.values():
            backend.close()


def run_cases(
    cases: Sequence[Case], backends: Sequence[Backend],
    on_result: Callable[[Result], None] = lambda result: None,
    isolate: bool = True, timeout: float = 60.0, executors: Executors | None = None,
    probes: dict[str, Probe] | None = None,
) -> list[Result]:
    """Every case on every backend. `executors` and `probes` from the caller (who may have
    shown the backends' descriptions already) are used, and closed, here."""
    executors = executors or Executors(isolate, timeout)
    results: list[Result] = []
    try:
        probes = probes if probes is not None else executors.probe(backends)
        for case in cases:
            for backend in backends:
                status = probes[backend.name].availability
                if status.available:
                    run = executors.for_backend(backend)
                    produced: Iterator[Result] = (run(case, v) for v in variants_for(backend))
                else:
                    produced = unavailable(case, backend, status.reason)
                for result in produced:
                    results.append(result)
                    on_result(result)
            executors.graphs.forget_all()  # one case's graphs are not needed by the next
    finally:
        executors.close()
    return results
