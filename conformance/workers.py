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

from backends.base import Backend
from conformance.case import Case
from conformance.graphs.variants import Variant
from conformance.processes import die_with_parent
from conformance.results import Result
from conformance.runner import GraphCache, execute

# spawn, not fork: runtimes start threads at import, and forked threads deadlock.
_CONTEXT = multiprocessing.get_context("spawn")
START_SECONDS = 120.0  # importing a runtime in a fresh process takes a while


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
    timeout: float = 60.0  # per execution (per run of a repeated case), once started
    _process: Any = None
    _connection: Connection | None = None

    def execute(self, case: Case, variant: Variant) -> Result:
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

    def _started(self) -> Connection:
        if self._connection is not None and self._process.is_alive():
            return self._connection
        self._discard()
        parent, child = _CONTEXT.Pipe()
        self._process = _CONTEXT.Process(target=_serve, args=(child, self.backend), daemon=True)
        self._process.start()
        child.close()
        if not parent.poll(START_SECONDS) or parent.recv() != "ready":
            self._process.kill()
            raise RuntimeError(f"the worker for {self.backend.name} did not start in {START_SECONDS:g} s")
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
        if self._connection is not None:
            self._connection.close()
        self._connection = None
        self._process = None


def _crash(case: Case, backend: Backend, variant: Variant, message: str) -> Result:
    return Result(
        case.id, backend.name, variant.graph, variant.k_label, "crash",
        message=message, tags=list(case.tags), profile=variant.profile(case).label, x_shape=variant.x_shape,
        case_file=str(case.file),
    )
