"""Runs a set of cases on a set of backends: every graph variant each backend takes, in
worker processes (or in this process, for debugging).

Parallel runs (`jobs`): the work is cut into units, one case on one backend (every graph
variant of it, in order, on one worker, which keeps the case and its graphs); at most
`jobs` units run at once, over all backends together, each on a worker process of its
backend. A backend has up to `jobs` workers, started as they are needed (its first is the
one its availability was asked in; at most `jobs` of all backends' workers besides those
first ones are kept). Results come (to `on_result`, and the results.jsonl
stream) as they finish; `run_cases` returns them in the order of a sequential run (cases
in order, then backends, then graph variants: `ordered`), so results.json is the same file
whatever `jobs` was.

Packs (`pack` N > 1): a backend that runs packs (Backend.run_pack, its probe's `packs`)
gets its graphs, over consecutive cases, N to a unit, each unit run as one model on one
worker. Only a pack's passes (and what comes before any run: skips, refusals) are recorded
from it; every other graph is run again alone as a unit of its own, and that run is the
record. A pack whose worker dies or hangs is split in halves, down to one graph, which runs
alone. Repeated cases and cases that expect an error never go into a pack
(runner.packable). Runs in this process (`isolate=False`) never pack."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait

from conformance.backends.base import Backend
from conformance.core import scratch
from conformance.operator.interfaces import Case, Variant
from conformance.ops.registry import all_variants
from conformance.results.records import Result
from conformance.running.probed import Probed, carried
from conformance.running.runner import GraphCache, execute, packable
from conformance.running.workers import (
    RETRIES_AFTER_DEATH,
    ModelAnswer,
    ModelRequest,
    Probe,
    Worker,
    crash_result,
    probe_here,
    run_model_here,
    with_deaths,
)

Executor = Callable[[Case, Variant], Result]
# Graphs run as one model: each one's final result, or None (to run alone); None for all
# where the pack could not run (Worker.execute_pack).
PackExecutor = Callable[[list[tuple[Case, Variant]]], "list[Result | None] | None"]
# Told of each backend's probe as it answers: its name, the answer, seconds since asking began.
Answered = Callable[[str, Probe, float], None]


def unavailable(case: Case, probed: Probed) -> Iterator[Result]:
    """The skips of a backend that cannot run, one per graph variant it would have taken."""
    for variant in probed.variants(case):
        yield Result(case.id, probed.name, variant.graph, variant.k_label, "skip",
                     message=f"{probed.name} is not available: {probed.availability.reason}", tags=list(case.tags),
                     case_file=str(case.file), x_shape=variant.x_shape, isa=probed.isa)


class Executors:
    """Each backend's workers (a pool of up to `jobs` processes), or direct calls in this
    process (`isolate=False`: one at a time, whatever `jobs` says)."""

    def __init__(self, isolate: bool = True, timeout: float = 60.0, jobs: int = 1,
                 graph_reuse: bool = True, pack: int = 1) -> None:
        self.isolate = isolate
        self.pack = max(1, pack) if isolate else 1  # graphs per pack (1: each graph alone)
        self.timeout = timeout
        self.jobs = max(1, jobs) if isolate else 1
        self.graph_reuse = graph_reuse
        # Graphs known not to pass, (op, backend, case, graph, k_source), as a baseline lists
        # them: with packs they run alone from the start, not in a pack and then again alone.
        self.alone: Collection[tuple[str, str, str, str, str]] = frozenset()
        # Run the graphs a backend's record says it does not finish here (`run --slow`); else
        # they are skips naming the finding (record.Unfinishable).
        self.slow = False
        self.workers: dict[str, list[Worker]] = {}
        self.in_process: dict[str, Backend] = {}
        self.graphs = GraphCache(reuse=graph_reuse)
        # What each backend answered in its worker (or here, in-process), completed once
        # (probed.carried): the main process never calls a backend's runs() or isa() itself.
        self.probes: dict[str, Probe] = {}

    def _first_worker(self, backend: Backend) -> Worker:
        pool = self.workers.setdefault(backend.name, [])
        if not pool:
            pool.append(Worker(backend, self.timeout, self.graph_reuse, answered=self.probes.get(backend.name)))
        return pool[0]

    def adopt(self, probed: Sequence[Probed]) -> None:
        """The backends' answers, asked by the caller (with these executors or others)."""
        self.probes.update({p.name: p.probe for p in probed})
        for name, pool in self.workers.items():
            for worker in pool:
                worker.answered = self.probes.get(name, worker.answered)

    def for_backend(self, backend: Backend) -> Executor:
        """One graph at a time (the pytest plugin's way): the backend's first worker."""
        if self.isolate:
            return self._first_worker(backend).execute
        self.in_process[backend.name] = backend
        return lambda case, variant: execute(case, backend, variant, self.graphs)

    def for_models(self, backend: Backend) -> Callable[[ModelRequest], ModelAnswer]:
        """Whole models (the `model` command), one at a time, on the backend's first worker."""
        if self.isolate:
            return self._first_worker(backend).run_model
        return lambda request: run_model_here(backend, request)

    def packs_for(self, probed: Probed) -> PackExecutor | None:
        """Packs of graphs on the backend's first worker, waited for (the fuzzer's way); None
        where the backend runs no packs (its probe's answer) or runs in this process."""
        if not self.isolate or not probed.packs:
            return None
        return self._first_worker(probed.backend).execute_pack

    @staticmethod
    def probe_once(backends: Sequence[Backend], timeout: float, answered: Answered | None = None) -> list[Probed]:
        """Each backend's availability and description, asked in its own worker (as it will
        start for runs: held to its limit, emulated), the workers stopped after."""
        executors = Executors(timeout=timeout)
        try:
            return executors.probe(backends, answered)
        finally:
            executors.close()

    def probe(self, backends: Sequence[Backend], answered: Answered | None = None) -> list[Probed]:
        """Each backend's availability, description, tier and the graph variants it takes,
        asked once in its worker (all at once, each under the time limit) or, in-process, here,
        and carried from here on (Probed); `answered` is told of each answer as it comes (name,
        probe, seconds since the first worker was started)."""
        began = time.monotonic()
        probes = self._probes_here(backends, answered, began) if not self.isolate else self._probes_in_workers(
            backends, answered, began)
        probed = [carried(backend, probe) for backend, probe in zip(backends, probes, strict=True)]
        self.adopt(probed)
        return probed

    @staticmethod
    def _probes_here(backends: Sequence[Backend], answered: Answered | None, began: float) -> list[Probe]:
        """Each backend's answer asked in this process, one after the other."""
        probes = []
        for backend in backends:
            probes.append(probe_here(backend))
            if answered is not None:
                answered(backend.name, probes[-1], time.monotonic() - began)
        return probes

    def _probes_in_workers(self, backends: Sequence[Backend], answered: Answered | None, began: float) -> list[Probe]:
        """Each backend's answer asked in its first worker, all at once; the workers of the
        unavailable ones are stopped."""
        workers = [self._first_worker(b) for b in backends]
        for worker in workers:
            worker.spawn()  # all start at once (from this thread: a worker dies with the thread that started it)
        # Waited for together, each under its time limit: a slow one does not hold back the word on the others.
        waiting = ThreadPoolExecutor(max_workers=max(1, len(workers)))
        try:
            pending = {waiting.submit(worker.probe): at for at, worker in enumerate(workers)}
            by_position: dict[int, Probe] = {}
            for future in as_completed(pending):
                at = pending[future]
                by_position[at] = future.result()
                if answered is not None:
                    answered(workers[at].backend.name, by_position[at], time.monotonic() - began)
        finally:
            # Not waited for on a signal: stopping the workers (close()) ends the waits left.
            waiting.shutdown(wait=False, cancel_futures=True)
        probes = [by_position[at] for at in range(len(workers))]
        for worker, probe in zip(workers, probes, strict=True):
            if not probe.availability.available:
                worker.stop()  # nothing will run there
        return probes

    def idle_worker(self, backend: Backend, busy: Iterable[Worker]) -> Worker:
        """A worker of the backend that has no unit now: an existing one, or a new one (not
        yet started) while the backend has fewer than `jobs`."""
        pool = self.workers.setdefault(backend.name, [])
        taken = {id(worker) for worker in busy}
        for worker in pool:
            if id(worker) not in taken:
                return worker
        self._make_room(taken)
        worker = Worker(backend, self.timeout, self.graph_reuse, answered=self.probes.get(backend.name))
        if pool and pool[0].start_failure:
            worker.start_failure = pool[0].start_failure  # one failed start per backend, not per worker
        pool.append(worker)
        return worker

    def _make_room(self, taken: set[int]) -> None:
        """At most `jobs` workers besides each backend's first: beyond that, an idle extra
        worker of another backend is stopped before a new one starts (on a machine with
        many cores, N workers for every backend would be N times the memory)."""
        if sum(len(pool) for pool in self.workers.values()) < self.jobs + len(self.workers):
            return
        for pool in self.workers.values():
            for worker in pool[1:]:
                if id(worker) not in taken:
                    worker.stop()
                    pool.remove(worker)
                    return

    def start_failed(self, backend: Backend, failure: str) -> None:
        """A worker of the backend did not start: none of its workers takes another graph
        (one busy with a graph finishes that one)."""
        for worker in self.workers.get(backend.name, []):
            worker.start_failure = worker.start_failure or failure

    def close(self) -> None:
        for pool in self.workers.values():
            for worker in pool:
                # A worker busy with a graph cannot read a stop request: killed at once.
                worker.stop(graceful=not worker.busy)
        for backend in self.in_process.values():
            backend.close()
        # What the stopped workers' processes (a browser's profile) could not remove themselves,
        # and what a run killed before this one left.
        scratch.remove_orphans()


@dataclass(eq=False)
class _Unit:
    """One case on one backend: its graph variants, run in order on one worker."""

    case: Case
    backend: Backend
    variants: list[Variant]
    next: int = 0  # the variant running (or to run) now
    lost: list[str] = field(default_factory=list)  # workers that died on it, each asked again (how)

    @property
    def variant(self) -> Variant:
        return self.variants[self.next]


@dataclass(eq=False)
class _Pack:
    """Graphs of one or more cases on one backend, run as one model on one worker."""

    backend: Backend
    items: list[tuple[Case, Variant]]


@dataclass(eq=False)
class _Lane:
    """A worker and the unit it has: starting (waiting for its ready signal) or running
    the unit's current variant (or its pack), until `deadline`."""

    worker: Worker
    unit: _Unit | _Pack
    starting: bool = False
    deadline: float = 0.0

    def waitable(self) -> Connection:
        pipe = self.worker.starting() if self.starting else self.worker.connection()
        assert pipe is not None
        return pipe


class _Parallel:
    def __init__(self, executors: Executors, emit: Callable[[Result], None]) -> None:
        self.executors = executors
        self.emit = emit
        self.lanes: list[_Lane] = []
        self.queue: deque[_Unit | _Pack] = deque()

    def run(self, units: Iterable[_Unit | _Pack]) -> None:
        self.queue = queue = deque(units)
        try:
            while queue or self.lanes:
                while queue and len(self.lanes) < self.executors.jobs:
                    unit = queue.popleft()
                    worker = self.executors.idle_worker(unit.backend, (lane.worker for lane in self.lanes))
                    self._advance(_Lane(worker, unit))
                if self.lanes:
                    self._wait()
        finally:
            self.lanes = []  # an interrupted run: Executors.close kills the workers in flight

    def _advance(self, lane: _Lane) -> None:
        """Start the lane's current variant; where the backend cannot start, skip the rest."""
        if isinstance(lane.unit, _Pack):
            self._advance_pack(lane, lane.unit)
            return
        unit, worker = lane.unit, lane.worker
        while unit.next < len(unit.variants):
            if worker.start_failure:
                self.emit(worker.unavailable(unit.case, unit.variant))
                unit.next += 1
                continue
            if self._send(lane, lambda: worker.begin(unit.case, unit.variant), worker.request_timeout(unit.case)):
                return
        self.lanes = [other for other in self.lanes if other is not lane]

    def _send(self, lane: _Lane, begin: Callable[[], None], timeout: float) -> bool:
        """Begin the lane's request where its worker is ready, else start the worker (the
        request follows once it is); False where the worker could not be started at all."""
        worker = lane.worker
        if worker.ready():
            begin()
            lane.starting, lane.deadline = False, time.monotonic() + timeout
        else:
            if worker.starting() is None:
                worker.stop(graceful=False)  # a dead one, if any
                worker.spawn()
                if worker.start_failure:
                    return False
            lane.starting, lane.deadline = True, time.monotonic() + worker.timeout
        if not any(lane is other for other in self.lanes):
            self.lanes.append(lane)
        return True

    def _advance_pack(self, lane: _Lane, pack: _Pack) -> None:
        """Send the pack, once the worker is ready; where the backend cannot start, skip it."""
        worker = lane.worker
        if worker.start_failure:
            for case, variant in pack.items:
                self.emit(worker.unavailable(case, variant))
            self.lanes = [other for other in self.lanes if other is not lane]
            return
        # One compilation and one run of one model: the time limit of one graph.
        if not self._send(lane, lambda: worker.begin_pack(pack.items), worker.timeout):
            self._advance_pack(lane, pack)

    def _pack_finished(self, lane: _Lane, pack: _Pack, answers: list[Result | None] | None) -> None:
        """Emit the pack's final results; every other graph goes back to the queue's front,
        alone (a case's graphs in one unit); a pack whose worker died or hung, split."""
        self.lanes = [other for other in self.lanes if other is not lane]
        if answers is None or len(answers) != len(pack.items):
            if len(pack.items) > 1:
                half = len(pack.items) // 2
                for part in (pack.items[half:], pack.items[:half]):
                    self.queue.appendleft(_pack_of(pack.backend, part))
                return
            answers = [None]
        alone: list[_Unit] = []
        for (case, variant), answer in zip(pack.items, answers, strict=True):
            if answer is not None:
                self.emit(answer)
            elif alone and alone[-1].case is case:
                alone[-1].variants.append(variant)
            else:
                alone.append(_Unit(case, pack.backend, [variant]))
        self.queue.extendleft(reversed(alone))

    def _pack_hung(self, lane: _Lane, pack: _Pack) -> None:
        """A pack that gave no answer in one graph's time limit: every graph of it goes alone,
        each with its own limit. Split in halves instead (as a pack whose worker died), a graph
        that takes longer than the limit alone hangs each half that holds it again, one limit
        per level: about 7 limits for a pack of 64 (IREE's TopK on a row of 2**20 elements,
        finding IREE1), where alone it costs one."""
        self._pack_finished(lane, pack, [None] * len(pack.items))

    def _wait(self) -> None:
        """Until a lane's worker answers or a deadline passes; then each lane that answered
        or ran out of time moves on."""
        pipes = {id(lane.waitable()): lane for lane in self.lanes}
        timeout = max(0.0, min(lane.deadline for lane in self.lanes) - time.monotonic())
        readable = wait([lane.waitable() for lane in self.lanes], timeout)
        answered = [pipes[id(pipe)] for pipe in readable]
        for lane in answered:
            if lane.starting:
                self._started(lane)
            elif isinstance(lane.unit, _Pack):
                self._pack_finished(lane, lane.unit, lane.worker.receive_pack(lane.unit.items))
            else:
                self._finished(lane, lane.worker.receive(lane.unit.case, lane.unit.variant))
        now = time.monotonic()
        for lane in list(self.lanes):
            if any(lane is done for done in answered) or lane.deadline > now:
                continue
            if lane.starting:
                failure = f"its worker did not start in {lane.worker.timeout:g} s (--timeout)"
                self._start_failed(lane, lane.worker.fail_start(failure))
            elif isinstance(lane.unit, _Pack):
                lane.worker.stop(graceful=False)
                self._pack_hung(lane, lane.unit)
            else:
                self._finished(lane, lane.worker.timed_out(lane.unit.case, lane.unit.variant))

    def _started(self, lane: _Lane) -> None:
        failure = lane.worker.finish_start()
        if failure:
            self._start_failed(lane, failure)
        else:
            self._advance(lane)

    def _start_failed(self, lane: _Lane, failure: str) -> None:
        # As a sequential run does: the graph that needed the worker is a crash, and no
        # worker of the backend takes another graph.
        self.executors.start_failed(lane.unit.backend, failure)
        unit = lane.unit
        if isinstance(unit, _Pack):
            # Its first graph is the crash, the others skips: as the same graphs alone.
            (case, variant), rest = unit.items[0], unit.items[1:]
            self.emit(crash_result(case, unit.backend.name, variant, failure, lane.worker.isa))
            self._advance_pack(lane, _Pack(unit.backend, rest))
            return
        self._finished(lane, crash_result(unit.case, unit.backend.name, unit.variant, failure, lane.worker.isa))

    def _finished(self, lane: _Lane, result: Result) -> None:
        unit, worker = lane.unit, lane.worker
        assert isinstance(unit, _Unit)
        how = worker.death_not_its_own()
        if how and len(unit.lost) < RETRIES_AFTER_DEATH:
            unit.lost.append(how)
            self._advance(lane)  # the same graph, on a fresh worker
            return
        result, unit.lost = with_deaths(result, unit.lost), []
        self.emit(result)
        unit.next += 1
        self._advance(lane)


def ordered(results: Iterable[Result], cases: Sequence[Case], backends: Sequence[str]) -> list[Result]:
    """Results in the order a sequential run gives them: by case, backend (by name), graph variant."""
    case_at = {case.id: i for i, case in enumerate(cases)}
    backend_at = {name: i for i, name in enumerate(backends)}
    # A backend's variants are a subsequence of all_variants(): their order is its order.
    variant_at = {f"{v.op}:{v.graph}-{v.k_label}": i for i, v in enumerate(all_variants())}
    end = len(case_at) + len(backend_at) + len(variant_at)

    def key(result: Result) -> tuple[int, int, int, str]:
        label = f"{result.op}:{result.graph}-{result.k_source}"
        return (case_at.get(result.case, end), backend_at.get(result.backend, end), variant_at.get(label, end), label)

    return sorted(results, key=key)


def run_cases(
    cases: Sequence[Case], backends: Sequence[Backend],
    on_result: Callable[[Result], None] = lambda result: None,
    isolate: bool = True, timeout: float = 60.0, executors: Executors | None = None,
    jobs: int = 1, graph_reuse: bool = True,
) -> list[Result]:
    """Every case on every backend, each probed first (run_probed)."""
    executors = executors or Executors(isolate, timeout, jobs, graph_reuse)
    try:
        probed = executors.probe(backends)
    except BaseException:
        executors.close()
        raise
    return run_probed(cases, probed, on_result, executors)


def run_probed(cases: Sequence[Case], probed: Sequence[Probed], on_result: Callable[[Result], None],
               executors: Executors) -> list[Result]:
    """Every case on every probed backend, `jobs` graphs at a time, as the executors' settings
    say; the executors (which may have probed the backends) are closed here."""
    results: list[Result] = []

    def emit(result: Result) -> None:
        results.append(result)
        on_result(result)

    try:
        executors.adopt(probed)
        units = _units(cases, probed, emit, executors.pack, executors.alone, executors.slow)
        if executors.isolate:
            _Parallel(executors, emit).run(units)
        else:
            _one_at_a_time(executors, units, emit)
    finally:
        executors.close()
    return ordered(results, cases, [p.name for p in probed])


def _one_at_a_time(executors: Executors, units: Iterable[_Unit | _Pack], emit: Callable[[Result], None]) -> None:
    """In this process, in order (executors that never pack: every unit is one case's graphs)."""
    case = None
    for unit in units:
        assert isinstance(unit, _Unit)
        if unit.case is not case:
            executors.graphs.forget_all()  # one case's graphs are not needed by the next
            case = unit.case
        run = executors.for_backend(unit.backend)
        for variant in unit.variants:
            emit(run(unit.case, variant))
    executors.graphs.forget_all()


def _units(cases: Sequence[Case], probed: Sequence[Probed], emit: Callable[[Result], None], pack: int = 1,
           alone: Collection[tuple[str, str, str, str, str]] = (), slow: bool = False) -> Iterator[_Unit | _Pack]:
    """The units of work in sequential order; an unavailable backend's skips, and those of the
    graphs a backend does not finish here (unless `slow`), are emitted in their place. With
    `pack` > 1, a backend that runs packs gets its graphs of packable cases in packs of `pack`,
    in order, over consecutive cases, except the graphs `alone`
    names (known not to pass: they would run again alone), which run alone at once, and the
    cases whose graphs corrupt its process (its record's spoilers), which run as units."""
    pending: dict[str, list[tuple[Case, Variant]]] = {}
    for case in cases:
        for each in probed:
            if not each.available:
                for result in unavailable(case, each):
                    emit(result)
                continue
            backend = each.backend
            variants, left_out = each.to_run(case, slow)
            for result in left_out:
                emit(result)
            if not variants:
                continue
            # A graph that corrupts the process (Spoiler) goes in no pack: its case runs as a unit.
            if pack > 1 and each.packs and packable(case) and not each.record.spoiler(case):
                known = [v for v in variants if (case.op, each.name, case.id, v.graph, v.k_label) in alone]
                if known:
                    yield _Unit(case, backend, known)
                items = pending.setdefault(each.name, [])
                items.extend((case, variant) for variant in variants if variant not in known)
                while len(items) >= pack:
                    yield _Pack(backend, items[:pack])
                    del items[:pack]
            else:
                yield _Unit(case, backend, variants)
    for each in probed:
        if pending.get(each.name):
            yield _pack_of(each.backend, pending[each.name])


def _pack_of(backend: Backend, items: list[tuple[Case, Variant]]) -> _Unit | _Pack:
    """A pack of the graphs; one graph alone is a unit of its own."""
    if len(items) == 1:
        (case, variant), = items
        return _Unit(case, backend, [variant])
    return _Pack(backend, items)
