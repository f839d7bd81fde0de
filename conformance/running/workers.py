"""Each backend in its own worker processes, so that a crash or a hang costs one case and
never the run. A worker keeps its backend (its sessions, and the current case with its
graphs) between requests; a dead or hung worker is replaced by a fresh one for the next
request. `Worker.execute` runs one request and waits for it; `conformance.running.suite` drives
several workers at once through the same steps (begin, receive, timed_out)."""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import multiprocessing.spawn
import os
import shlex
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from backends.base import Availability, Backend, WorkerLaunch
from conformance import machine
from conformance.cases.case import Case
from conformance.graphs.variants import Variant
from conformance.judging.judge import Verdict
from conformance.results.records import Result
from conformance.running.processes import die_with_parent
from conformance.running.runner import GraphCache, execute

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
    if not status.available:
        return Probe(status, {})
    # The machine its answers depend on, then the backend's own account.
    return Probe(status, {**machine.describe(backend.isa()), **backend.describe()})


@contextlib.contextmanager
def _launching(launch: WorkerLaunch | None) -> Iterator[None]:
    """A worker started as `launch` says: its variables in the environment it inherits,
    and the interpreter run by the emulator through a small script (multiprocessing takes
    one executable path). Main thread only, as every spawn."""
    if launch is None:
        yield
        return
    saved_env = {name: os.environ.get(name) for name in launch.env}
    saved_executable = multiprocessing.spawn.get_executable()
    try:
        os.environ.update(launch.env)
        if launch.emulator:
            _CONTEXT.set_executable(_emulator_script(launch.emulator))
        yield
    finally:
        _CONTEXT.set_executable(saved_executable)
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


_SCRIPTS: dict[tuple[str, ...], str] = {}


def _emulator_script(emulator: tuple[str, ...]) -> str:
    """An executable script that runs this interpreter under `emulator` (one per emulator
    and process, in a temporary folder removed as the process exits)."""
    if emulator not in _SCRIPTS:
        folder = tempfile.mkdtemp(prefix="topk-worker-")
        atexit.register(shutil.rmtree, folder, True)
        path = os.path.join(folder, "python")
        command = " ".join(shlex.quote(part) for part in (*emulator, sys.executable))
        with open(path, "w", encoding="utf-8") as script:
            script.write(f'#!/bin/sh\nexec {command} "$@"\n')
        os.chmod(path, 0o700)
        _SCRIPTS[emulator] = path
    return _SCRIPTS[emulator]


def _serve(connection: Connection, backend: Backend, graph_reuse: bool = True) -> None:
    die_with_parent()  # no orphan after a SIGKILL of the main process
    # Ctrl-C reaches the whole process group: the main process stops the workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    graphs = GraphCache(reuse=graph_reuse)
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
            if case is not None:  # None: the case of the previous request (sent once, not per graph)
                graphs.forget_all()
                current = case  # kept, with its DirectML answer, for the case's other variants
            assert current is not None
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


@dataclass(eq=False)
class Worker:
    backend: Backend
    timeout: float = 60.0  # per execution (per run of a repeated case) and for start-up
    graph_reuse: bool = True  # graphs carry signatures; the backend may share sessions by them
    _process: Any = None
    _connection: Connection | None = None
    _pending: Connection | None = None  # spawned, not yet ready
    _holds: Case | None = None  # the case the worker process has (sent with an earlier request)
    busy: bool = False  # a request is in flight
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
        """One request, waited for (under the time limit)."""
        if self.start_failure:
            return self.unavailable(case, variant)
        try:
            connection = self._started()
        except RuntimeError as exc:
            return crash_result(case, self.backend, variant, str(exc))
        self.begin(case, variant)
        if not connection.poll(self.request_timeout(case)):
            return self.timed_out(case, variant)
        return self.receive(case, variant)

    # The steps of one request, for a caller that drives several workers at once.

    def request_timeout(self, case: Case) -> float:
        return self.timeout * max(1, case.repeat)  # the timeout holds for each run

    def ready(self) -> bool:
        """Started, and able to take a request now."""
        return self._connection is not None and self._process is not None and self._process.is_alive()

    def starting(self) -> Connection | None:
        """The pipe a spawned worker sends its ready signal on (None: not starting)."""
        return self._pending

    def connection(self) -> Connection | None:
        """The pipe of a started worker: requests go, and answers come, on it."""
        return self._connection

    def begin(self, case: Case, variant: Variant) -> None:
        """Send one request to a ready worker; the case goes once, not with each graph."""
        assert self._connection is not None
        self.busy = True
        try:
            self._connection.send((None if case is self._holds else case, variant))
            self._holds = case
        except OSError:
            self._holds = None  # receive() finds the worker dead

    def receive(self, case: Case, variant: Variant) -> Result:
        """The answer to the request in flight (a crash where the worker died)."""
        assert self._connection is not None
        try:
            result: Result = self._connection.recv()
            self.busy = False
            return result
        except (EOFError, OSError):
            self._process.join(5)
            how = _signal_name(self._process.exitcode)
            self._discard()
            return crash_result(case, self.backend, variant, f"the worker process died ({how})")

    def timed_out(self, case: Case, variant: Variant) -> Result:
        """The request in flight got no answer in time: the worker is killed."""
        self.stop(graceful=False)  # a hung worker cannot answer a stop request
        timeout = self.request_timeout(case)
        return crash_result(case, self.backend, variant, f"no answer in {timeout:g} s; the worker was killed")

    def unavailable(self, case: Case, variant: Variant) -> Result:
        return _result(case, self.backend, variant, "skip",
                       f"{self.backend.name} is not available: {self.start_failure}")

    def spawn(self) -> None:
        """Start the worker process without waiting for it (so several start at once). From
        the main thread only: a worker dies with the thread that started it."""
        if self._process is None and not self.start_failure:
            parent, child = _CONTEXT.Pipe()
            self._process = _CONTEXT.Process(target=_serve, args=(child, self.backend, self.graph_reuse),
                                             daemon=True)
            with _launching(self.backend.worker_launch()):
                self._process.start()
            child.close()
            self._pending = parent

    def _started(self) -> Connection:
        if self.start_failure:
            raise RuntimeError(self.start_failure)
        if self.ready():
            assert self._connection is not None
            return self._connection
        if self._pending is None:
            self._discard()
            self.spawn()
        assert self._pending is not None
        if not self._pending.poll(self.timeout):
            raise RuntimeError(self.fail_start(f"its worker did not start in {self.timeout:g} s (--timeout)"))
        failure = self.finish_start()
        if failure:
            raise RuntimeError(failure)
        assert self._connection is not None
        return self._connection

    def finish_start(self) -> str:
        """Take the ready signal a spawned worker sent (its pipe is readable); the failure,
        or "" when the worker is ready."""
        parent, self._pending = self._pending, None
        assert parent is not None
        failure = ""
        try:
            if parent.recv() != "ready":
                failure = "its worker sent no ready signal"
        except (EOFError, OSError):
            self._process.join(5)
            failure = f"its worker died while starting ({_signal_name(self._process.exitcode)})"
        if failure:
            parent.close()
            self.fail_start(failure)
            return failure
        self._connection = parent
        return ""

    def fail_start(self, failure: str) -> str:
        """The worker did not start: it is killed, and not tried again."""
        if self._process is not None:
            self._process.kill()
            self._process.join(5)
        self._discard()
        self.start_failure = failure
        return failure

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
        self._holds = None
        self.busy = False


def crash_result(case: Case, backend: Backend, variant: Variant, message: str) -> Result:
    """The `crash` result of a graph whose worker died, hung or did not start."""
    return _result(case, backend, variant, "crash", message)


def _result(case: Case, backend: Backend, variant: Variant, verdict: Verdict, message: str) -> Result:
    return Result(
        case.id, backend.name, variant.graph, variant.k_label, verdict,
        message=message, tags=list(case.tags), profile=variant.profile(case).label, x_shape=variant.x_shape,
        case_file=str(case.file), isa=backend.isa(),
    )
