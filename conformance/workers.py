"""Each backend in its own worker process, so that a crash or a hang costs one case and
never the run. A worker keeps its backend (and the graphs of the current case) between
requests; a dead or hung worker is replaced by a fresh one for the next request."""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from backends.base import Availability, Backend
from conformance.case import Case
from conformance.graphs.variants import Variant
from conformance.judge import Verdict
from conformance.processes import die_with_parent
from conformance.results import Result
from conformance.runner import GraphCache, execute

# spawn, not fork: runtimes start threads at import, and forked threads deadlock.
_CONTEXT = multiprocessing.get_context("spawn")
PROBE = "probe"  # the request for the backend's availability and description


@dataclass(frozen=True)
class Probe:
    """What a backend says of itself, asked in its own worker process."""

    availability: Availability
    info: dict[str, Any]  # describe(), when available


def probe_here(backend: Backend) -> Probe:
    status = backend.availability()
    return Probe(status, dict(backend.describe()) if status.available else {})


def _serve(connection: Connection, backend: Backend) -> None:
    die_with_parent()  # no orphan after a SIGKILL of the main process
    # Ctrl-C reaches the whole process group: the main process stops the workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    graphs = GraphCache()
    current: Case | None = None
    backend.warm_up()
    connection.send("ready")
    try:
        while True:
            request = connection.recv()
            if request is None:
                return
            if request == PROBE:
                connection.send(probe_here(backend))
                continue
            case, variant = request
            if current is None or case.id != current.id:
                graphs.forget_all()
                current = case  # kept, with its DirectML answer, for the case's other variants
            connection.send(execute(current, backend, variant, graphs))
    finally:
        backend.close()


def _signal_name(exitcode: int | None) -> str:
    if exitcode is None:
        return "no exit code"
    if exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"


@dataclass
class Worker:
    backend: Backend
    timeout: float = 60.0  # per execution (per run of a repeated case) and for start-up
    _process: Any = None
    _connection: Connection | None = None
    _pending: Connection | None = None  # spawned, not yet ready
    # Why the worker could not start: it is not tried again (one failed start, not one per graph).
    start_failure: str = ""

    def probe(self) -> Probe:
        """availability() and describe(), run in the worker under the time limit: a backend
        that hangs or dies there is unavailable, with the reason, and the run goes on."""
        try:
            connection = self._started()
        except RuntimeError as exc:
            return Probe(Availability(False, str(exc)), {})
        connection.send(PROBE)
        if not connection.poll(self.timeout):
            self.stop(graceful=False)
            self.start_failure = f"availability() gave no answer in {self.timeout:g} s in the worker"
            return Probe(Availability(False, self.start_failure), {})
        try:
            probe: Probe = connection.recv()
        except (EOFError, OSError):
            self._process.join(5)
            self.start_failure = f"the worker died in availability() ({_signal_name(self._process.exitcode)})"
            self._discard()
            return Probe(Availability(False, self.start_failure), {})
        return probe

    def execute(self, case: Case, variant: Variant) -> Result:
        if self.start_failure:
            return _result(case, self.backend, variant, "skip",
                           f"{self.backend.name} is not available: {self.start_failure}")
        try:
            connection = self._started()
        except RuntimeError as exc:
            return _crash(case, self.backend, variant, str(exc))
        connection.send((case, variant))
        timeout = self.timeout * max(1, case.repeat)  # the timeout holds for each run
        if not connection.poll(timeout):
            self.stop(graceful=False)  # a hung worker cannot answer a stop request
            return _crash(case, self.backend, variant, f"no answer in {timeout:g} s; the worker was killed")
        try:
            result: Result = connection.recv()
            return result
        except (EOFError, OSError):
            self._process.join(5)
            how = _signal_name(self._process.exitcode)
            self._discard()
            return _crash(case, self.backend, variant, f"the worker process died ({how})")

    def spawn(self) -> None:
        """Start the worker process without waiting for it (so several start at once). From
        the main thread only: a worker dies with the thread that started it."""
        if self._process is None and not self.start_failure:
            parent, child = _CONTEXT.Pipe()
            self._process = _CONTEXT.Process(target=_serve, args=(child, self.backend), daemon=True)
            self._process.start()
            child.close()
            self._pending = parent

    def _started(self) -> Connection:
        if self.start_failure:
            raise RuntimeError(self.start_failure)
        if self._connection is not None and self._process.is_alive():
            return self._connection
        if self._pending is None:
            self._discard()
            self.spawn()
        parent, self._pending = self._pending, None
        assert parent is not None
        failure = ""
        try:
            if not parent.poll(self.timeout):
                failure = f"its worker did not start in {self.timeout:g} s (--timeout)"
            elif parent.recv() != "ready":
                failure = "its worker sent no ready signal"
        except (EOFError, OSError):
            self._process.join(5)
            failure = f"its worker died while starting ({_signal_name(self._process.exitcode)})"
        if failure:
            self._process.kill()
            self._process.join(5)
            self._discard()
            self.start_failure = failure
            raise RuntimeError(failure)
        self._connection = parent
        return parent

    def stop(self, graceful: bool = True) -> None:
        if self._process is not None and self._process.is_alive():
            if graceful and self._connection is not None:
                with contextlib.suppress(OSError):
                    self._connection.send(None)
            if graceful:
                self._process.join(2)
            if self._process.is_alive():
                self._process.kill()
                self._process.join(5)
        self._discard()

    def _discard(self) -> None:
        for connection in (self._connection, self._pending):
            if connection is not None:
                connection.close()
        self._connection = self._pending = None
        self._process = None


def _crash(case: Case, backend: Backend, variant: Variant, message: str) -> Result:
    return _result(case, backend, variant, "crash", message)


def _result(case: Case, backend: Backend, variant: Variant, verdict: Verdict, message: str) -> Result:
    return Result(
        case.id, backend.name, variant.graph, variant.k_label, verdict,
        message=message, tags=list(case.tags), profile=variant.profile(case).label, x_shape=variant.x_shape,
        case_file=str(case.file),
    )
