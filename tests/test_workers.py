"""A backend that dies or hangs costs one result, never the run: the result is a `crash`
that says what happened, and the next graph runs on a fresh worker process and passes."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest
from fault_backends import (
    SPOILING_RECORD,
    TRIGGER_CASE,
    TRIGGER_LABEL,
    AbortingBackend,
    CorruptingBackend,
    EmulatedAbortingBackend,
    HangingBackend,
    HangingStartBackend,
    HangingWithChildBackend,
    RaisingBackend,
    SegfaultingAvailabilityBackend,
    SpoilingBackend,
)
from harness import documented, ordinary_variants

from conformance.backends.base import Backend
from conformance.backends.onnx_reference import OnnxReference
from conformance.results.records import Result
from conformance.running.suite import Executors, run_cases
from conformance.running.workers import Worker

CASES = [documented(TRIGGER_CASE), documented("dml-top-k1-example-2")]


def run(backend: Backend, timeout: float) -> tuple[list[Result], list[Result]]:
    seen: list[Result] = []
    results = run_cases(CASES, [backend], on_result=seen.append, isolate=True, timeout=timeout)
    return results, seen


def split_at_trigger(results: list[Result]) -> tuple[list[Result], Result, list[Result]]:
    index = next(
        i for i, r in enumerate(results)
        if r.case == TRIGGER_CASE and f"{r.graph}-{r.k_source}" == TRIGGER_LABEL
    )
    return results[:index], results[index], results[index + 1:]


def check_crash_then_recovery(backend: Backend, results: list[Result], seen: list[Result]) -> Result:
    per_case = len(ordinary_variants(backend))
    assert len(results) == len(CASES) * per_case
    assert seen == results, "every result reaches on_result, in order"
    assert Counter(r.verdict for r in results) == {"pass": len(results) - 1, "crash": 1}
    before, crashed, after = split_at_trigger(results)
    assert crashed.verdict == "crash" and crashed.backend == backend.name
    assert after, "the trigger is not the last graph: something must run after it"
    assert any(r.case == "dml-top-k1-example-2" for r in after), "the next case ran"
    assert all(r.verdict == "pass" for r in before + after)
    pids_before = {r.placement for r in before}
    pids_after = {r.placement for r in after}
    assert len(pids_before) == 1 and len(pids_after) == 1, "one worker is kept between graphs"
    assert pids_before != pids_after, "a fresh worker took over after the crash"
    return crashed


def test_abort_is_a_crash_naming_the_signal_and_the_run_goes_on(capfd: pytest.CaptureFixture[str]) -> None:
    backend = AbortingBackend()
    results, seen = run(backend, timeout=60)
    crashed = check_crash_then_recovery(backend, results, seen)
    assert "SIGABRT" in crashed.message and "died" in crashed.message, crashed.message
    assert crashed.placement == "onnx.reference (numpy)", crashed.placement
    assert crashed.profile == "ONNX sorted=1"
    # What the dying runtime printed is in the result it caused, not on the user's terminal.
    assert "it printed: fault-abort: the runtime says why it aborts" in crashed.message, crashed.message
    assert "fault-abort" not in capfd.readouterr().err


def test_a_death_under_an_emulator_that_does_not_repeat_is_asked_again(tmp_path: Path) -> None:
    """QEMU's user-mode emulator crashes now and then by itself: a graph whose emulated worker
    died once is asked again of a fresh worker, and its answer is recorded, saying so."""
    backend = EmulatedAbortingBackend(once_marker=str(tmp_path / "died"))
    results, seen = run(backend, timeout=60)
    assert seen == results and Counter(r.verdict for r in results) == {"pass": len(results)}
    before, retried, after = split_at_trigger(results)
    assert "a worker died on this graph before this answer (killed by SIGABRT, under env)" in retried.message
    assert not any(r.message for r in before + after)
    assert len({r.placement for r in before}) == 1 and retried.placement not in {r.placement for r in before}


def test_a_death_under_an_emulator_that_repeats_is_a_crash() -> None:
    backend = EmulatedAbortingBackend()
    results, seen = run(backend, timeout=60)
    crashed = check_crash_then_recovery(backend, results, seen)
    assert "died on this graph before this answer (killed by SIGABRT, under env)" in crashed.message, crashed.message


def test_a_death_after_earlier_graphs_is_asked_again_and_blamed_only_where_it_repeats() -> None:
    """A runtime that corrupts its process on one graph dies on a later one (TVM2): the graph
    it died on is asked again of a fresh worker, where it runs first and passes, so the
    result is the graph's own; a graph that dies first in a fresh worker too is a crash."""
    backend = CorruptingBackend()
    for jobs in (1, 2):
        seen: list[Result] = []
        results = run_cases(CASES, [backend], on_result=seen.append, isolate=True, timeout=60, jobs=jobs)
        assert Counter(r.verdict for r in results) == {"pass": len(results)}, (jobs, results)
        retried = [r for r in results if "a worker died on this graph before this answer" in r.message]
        assert len(retried) == 1, (jobs, [r.message for r in results])
        assert "killed by SIGABRT, after " in retried[0].message and "earlier answers" in retried[0].message
    # The deterministic abort, after earlier graphs too, dies again first in a fresh worker.
    crashed = check_crash_then_recovery(AbortingBackend(), *run(AbortingBackend(), timeout=60))
    assert "(killed by SIGABRT, after " in crashed.message, crashed.message


def test_one_graph_at_a_time_a_death_after_earlier_graphs_is_asked_again_too() -> None:
    """The pytest plugin's and the fuzzer's way (Worker.execute): the same rule as a run's."""
    trigger, other = documented(TRIGGER_CASE), CASES[1]
    variant = next(v for v in ordinary_variants(CorruptingBackend()) if v.label == TRIGGER_LABEL)
    worker = Worker(CorruptingBackend(), timeout=60)
    try:
        first = worker.execute(trigger, variant)
        second = worker.execute(other, variant)  # dies in the corrupted process, passes in a fresh one
        aborting = Worker(AbortingBackend(), timeout=60)
        try:
            aborting.execute(other, variant)
            crashed = aborting.execute(trigger, variant)  # dies after one answer, and again first
        finally:
            aborting.stop()
    finally:
        worker.stop()
    assert first.verdict == second.verdict == "pass", (first, second)
    assert "a worker died on this graph before this answer (killed by SIGABRT, after 1 earlier answers)" \
        in second.message and first.placement != second.placement
    assert crashed.verdict == "crash" and "after 1 earlier answers" in crashed.message, crashed.message


def test_a_graph_its_record_says_corrupts_the_process_is_the_last_its_worker_runs() -> None:
    """A backend's record names the graphs that corrupt its process (Spoiler; TVM2's bfloat16
    TopK): the worker is replaced after each, so that the next graph, which would hang in the
    corrupted process (and a hang is not asked again), gets the answer it gets alone."""
    backend = SpoilingBackend()
    assert SPOILING_RECORD.spoiler(documented(TRIGGER_CASE)) == "FAKE1"
    for jobs in (1, 2):
        results = run_cases(CASES, [backend], isolate=True, timeout=5, jobs=jobs)
        assert Counter(r.verdict for r in results) == {"pass": len(results)}, (jobs, results)
        assert not any(r.message for r in results)
        assert len({r.placement for r in results}) == len(results), "each graph in a process of its own"


def test_hang_is_a_crash_naming_the_timeout_and_the_run_goes_on() -> None:
    backend = HangingBackend()
    started = time.monotonic()
    results, seen = run(backend, timeout=3)
    elapsed = time.monotonic() - started
    crashed = check_crash_then_recovery(backend, results, seen)
    assert "no answer in 3 s" in crashed.message and "killed" in crashed.message, crashed.message
    # Where it hung: the device its worker described (a Vulkan driver's, for IREE on Vulkan).
    assert crashed.placement == "onnx.reference (numpy)", crashed.placement
    assert elapsed < 60, f"a 3 s timeout took {elapsed:.0f} s to recover from"
    # What the graph cost, for --shard-timings: the time limit, not nothing.
    assert 3 <= crashed.seconds < 10, crashed.seconds


def test_a_killed_worker_takes_the_processes_it_started_with_it(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker killed for a hang kills what its runtime started (IREE's compiler under its
    worker): nothing of it runs on after the result says `crash`."""
    pid_file = tmp_path / "child.pid"
    monkeypatch.setenv("TOPK_TEST_CHILD_PID_FILE", str(pid_file))
    results, _ = run(HangingWithChildBackend(), timeout=3)
    _, hung, _ = split_at_trigger(results)
    assert hung.verdict == "crash", hung
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _running(child):
        time.sleep(0.1)
    assert not _running(child), f"the hung worker's child {child} still runs"


def _running(pid: int) -> bool:
    """Whether the process runs (a zombie waiting for its parent does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_python_exception_is_an_error_and_keeps_the_worker() -> None:
    backend = RaisingBackend()
    results, _ = run(backend, timeout=60)
    assert Counter(r.verdict for r in results) == {"pass": len(results) - 1, "error": 1}
    _, raised, _ = split_at_trigger(results)
    assert raised.verdict == "error" and "injected runtime error" in raised.message
    assert len({r.placement for r in results if r.verdict == "pass"}) == 1, "no worker was replaced"


def test_stopped_worker_restarts_on_the_next_request() -> None:
    backend = RaisingBackend()
    worker = Worker(backend, timeout=60)
    variant = ordinary_variants(backend)[0]
    try:
        first = worker.execute(CASES[1], variant)
        worker.stop()
        second = worker.execute(CASES[1], variant)
    finally:
        worker.stop()
    assert first.verdict == second.verdict == "pass"
    assert first.placement != second.placement


@pytest.mark.parametrize("backend", [AbortingBackend(), HangingBackend()], ids=lambda b: b.name)
def test_fault_backends_are_the_reference_elsewhere(backend: Backend) -> None:
    """Off the trigger, the fakes are onnx-reference: a pass there is a real pass."""
    results = run_cases([CASES[1]], [backend], isolate=False)
    assert results and all(r.verdict == "pass" for r in results)


def test_a_backend_whose_start_hangs_is_unavailable_after_one_try() -> None:
    """--timeout covers start-up, and one failed start marks the backend unavailable: not
    one start (and one timeout) per graph."""
    started = time.monotonic()
    results, _ = run(HangingStartBackend(), timeout=3)
    elapsed = time.monotonic() - started
    assert {r.verdict for r in results} == {"skip"}
    assert all("its worker did not start in 3 s" in r.message for r in results), results[0].message
    assert elapsed < 20, f"{len(results)} graphs took {elapsed:.0f} s"


def test_a_segfault_in_availability_costs_the_backend_not_the_run() -> None:
    executors = Executors(timeout=30)
    try:
        crashed, reference = executors.probe([SegfaultingAvailabilityBackend(), OnnxReference()])
    finally:
        executors.close()
    assert crashed.name == "fault-segv-availability"
    assert not crashed.available and "SIGSEGV" in crashed.availability.reason, crashed.availability.reason
    assert reference.available


def test_parallel_runs_isolate_crashes_and_give_the_sequential_results() -> None:
    """--jobs 2: a crash still costs one graph; the results are those of --jobs 1, in the
    same order, and reach on_result as they finish."""
    backend = AbortingBackend()
    seen: list[Result] = []
    parallel = run_cases(CASES * 2, [backend, RaisingBackend()], on_result=seen.append, timeout=60, jobs=2)
    sequential = run_cases(CASES * 2, [backend, RaisingBackend()], timeout=60, jobs=1)
    assert sorted(map(repr, seen)) == sorted(map(repr, parallel))

    def judged(results: list[Result]) -> list[tuple[object, ...]]:
        return [(r.case, r.backend, r.graph, r.k_source, r.verdict, tuple(r.rules), r.domain) for r in results]

    assert judged(parallel) == judged(sequential)
    assert Counter(r.verdict for r in parallel) == {"pass": len(parallel) - 4, "crash": 2, "error": 2}
    crashes = [r for r in parallel if r.verdict == "crash"]
    assert all("SIGABRT" in r.message for r in crashes)
