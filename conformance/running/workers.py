"""Each backend in its own worker processes, so that a crash or a hang costs one case and
never the run. A worker keeps its backend (its sessions, and the current case with its
graphs) between requests; a dead or hung worker is replaced by a fresh one for the next
request. `Worker.execute` runs one request and waits for it; `conformance.running.suite` drives
several workers at once through the same steps (begin, receive, timed_out)."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import multiprocessing
import multiprocessing.spawn
import os
import pickle
import shlex
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from conformance.backends.base import Availability, Backend, Graph, Stopwatch, WorkerLaunch
from conformance.backends.record import bound_record
from conformance.core import machine, scratch
from conformance.core.offline import forbid_network_and_installs
from conformance.core.processes import die_with_parent
from conformance.core.text import exception_text, short_repr
from conformance.operator.interfaces import Case, Variant, variant_key
from conformance.operator.outcome import Verdict
from conformance.ops.registry import all_variants
from conformance.results.records import Result
from conformance.running.runner import GraphCache, execute, execute_pack

# spawn, not fork: runtimes start threads at import, and forked threads deadlock.
_CONTEXT = multiprocessing.get_context("spawn")
PROBE = "probe"  # the request for the backend's availability and description
_DIED = object()  # Worker._answer's word for a worker that died instead of answering


@dataclass(frozen=True)
class Probe:
    """What a backend says of itself, asked in its own worker process (probe_here): the
    main process never calls the backend's own code but to start its worker."""

    availability: Availability
    info: dict[str, Any]  # describe(), when available
    # The variant_key of each graph variant the backend takes (its runs()), and its isa();
    # None where it gave no answer (its worker died or hung): see takes_of and isa_of.
    takes: tuple[str, ...] | None = None
    isa: str | None = None
    packs: bool = False  # its `packs`: it runs packs of graphs (Backend.run_pack)


@dataclass(frozen=True)
class PackRequest:
    """Graphs of several cases, run as one model in the worker (runner.execute_pack)."""

    items: tuple[tuple[Case, Variant], ...]


@dataclass(frozen=True)
class ModelRequest:
    """A user's whole model (the `model` command), run once in the worker as one graph."""

    graph: Graph


@dataclass(frozen=True)
class ModelAnswer:
    """What a model's run gave: its outputs by name, or why there are none (`verdict` error:
    the backend raised; crash: its worker died or hung; skip: it is not available)."""

    outputs: dict[str, Any] | None
    verdict: str = "pass"
    message: str = ""
    placement: str = ""
    elsewhere: dict[str, str] = dataclasses.field(default_factory=dict)  # Execution.elsewhere
    timed_out: bool = False  # a crash because the worker gave no answer in time (it was killed)
    stage: str = ""  # of an error: where the backend was (STAGES); "" where it does not say

    @property
    def described(self) -> str:
        """The message, after the stage where the backend said it: "while running the model: ..."."""
        return f"while {STAGES[self.stage]}: {self.message}" if self.stage in STAGES else self.message


# What an error's stage says, in words.
STAGES = {"reading": "reading the model", "compiling": "loading or compiling the model",
          "preparing": "preparing its run", "running": "running the model", "returning": "returning its outputs"}


def run_model_here(backend: Backend, request: ModelRequest) -> ModelAnswer:
    """The model run by the backend in this process: an exception is the answer's `error`, with
    the stage it was raised in."""
    watch = backend.start_stopwatch()
    try:
        execution = backend.run(request.graph)
        outputs = execution.outputs_named(request.graph.outputs)
        return ModelAnswer({name: outputs[name] for name in outputs}, placement=execution.placement,
                           elsewhere=dict(execution.elsewhere))
    except Exception as exc:
        return ModelAnswer(None, "error", _where(exc), stage=failed_stage(watch))


def failed_stage(watch: Stopwatch) -> str:
    """Where a run that raised was: as the backend said (compiling, running), or, for one that
    times itself, from what it had timed before it raised; "" for one that does not say."""
    if watch.failed:
        return watch.failed
    if not watch.reported:
        return ""
    if watch.run_seconds:
        return "returning"
    return "preparing" if watch.compilations or watch.compile_seconds else "reading"


def isa_of(probe: Probe | None) -> str:
    """The backend's isa() as its worker answered; with no answer, the interface's default
    (the tier of this CPU)."""
    if probe is not None and probe.isa is not None:
        return probe.isa
    return machine.host_tier()


class _Unusable(Exception):
    """A backend's method raised or gave an answer the suite cannot take: it is unavailable."""


_T = TypeVar("_T")
ISA_LIMIT = 200  # characters, as results.json takes them


def _asked(method: str, call: Callable[[], _T]) -> _T:
    try:
        return call()
    except Exception as exc:
        raise _Unusable(f"{method} raised {exception_text(exc)}") from None


def probe_here(backend: Backend) -> Probe:
    """availability(), isa(), runs() of every graph variant and describe(), in this
    process (a worker's, or the main one's in-process). A method that raises or answers
    something else than the interface says makes the backend unavailable, the reason
    naming the method."""
    try:
        status = _asked("availability()", backend.availability)
        if not (isinstance(status, Availability) and isinstance(status.available, bool)
                and isinstance(status.reason, str)):
            raise _Unusable(f"availability() returned {short_repr(status)}, not an Availability(bool, str)")
        status = Availability(bool(status.available), str(status.reason))  # not a subclass of its own
    except _Unusable as exc:
        return Probe(Availability(False, str(exc)), {})
    try:
        isa = _asked("isa()", backend.isa)
        if not isinstance(isa, str) or len(isa) > ISA_LIMIT:
            raise _Unusable(f"isa() returned {short_repr(isa)}, not a str of at most {ISA_LIMIT} characters")
        takes = takes_here(backend)
    except _Unusable as exc:
        # Unavailable already: its own reason stands, and the defaults stand for the answers.
        return Probe(status if not status.available else Availability(False, str(exc)), {})
    if not status.available:
        return Probe(status, {}, takes, isa)
    try:
        info = _description(backend)
    except _Unusable as exc:
        return Probe(Availability(False, str(exc)), {}, takes, isa)
    packs = getattr(backend, "packs", False)  # not a bool (a plugin's own attribute): no packs
    # The machine its answers depend on, then the backend's own account.
    return Probe(status, {**machine.describe(isa), **info}, takes, isa, packs is True)


def takes_here(backend: Backend) -> tuple[str, ...]:
    """The keys of the graph variants the backend takes: its runs(), asked here."""
    takes = []
    # Only the operators it says it takes are asked about (a plugin of interface 2: TopK).
    taken = backend.operators_taken()
    for variant in (v for v in all_variants() if v.op in taken):
        answer = _asked("runs()", lambda: backend.runs(variant))  # noqa: B023 (called at once)
        if not isinstance(answer, bool):
            raise _Unusable(f"runs() returned {short_repr(answer)} for {variant.label}, not a bool")
        if answer:
            takes.append(variant_key(variant))
    return tuple(takes)


def _description(backend: Backend) -> dict[str, Any]:
    """describe(), a dict with str keys; a value JSON cannot hold (an object, NaN) as its str()."""
    info = _asked("describe()", backend.describe)
    if not isinstance(info, dict):
        raise _Unusable(f"describe() returned {short_repr(info)}, not a dict")
    for key in info:
        if not isinstance(key, str):
            raise _Unusable(f"describe() returned a dict with the key {short_repr(key)}, not a str")
    return {key: value if _json_value(value) else _text(value) for key, value in info.items()}


def _json_value(value: object) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return False
    return True


def _text(value: object) -> str:
    try:
        return str(value)
    except Exception:
        return short_repr(value)


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


def _stderr_file(backend: str) -> str:
    """A file for one worker's stderr, removed as this process exits, or by the next run where
    it was killed ("" where none can be made: the worker then prints where this process does)."""
    return scratch.file(f"worker-{backend}", ".stderr")


@contextlib.contextmanager
def _stderr_into(path: str) -> Iterator[None]:
    """This process's stderr pointed at `path` while a worker starts, so that the worker has
    it from its first instruction: what its start-up prints before _serve redirects both
    (a module that fails to import) is the worker's too. Main thread only, as every spawn;
    stdout stays (a live progress bar may draw meanwhile)."""
    if not path:
        yield
        return
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        file = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
    except OSError:
        os.close(saved)
        yield
        return
    try:
        os.dup2(file, 2)
        os.close(file)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


_SCRIPTS: dict[tuple[str, ...], str] = {}


def _emulator_script(emulator: tuple[str, ...]) -> str:
    """An executable script that runs this interpreter under `emulator` (one per emulator
    and process, in a temporary folder removed as the process exits)."""
    if emulator not in _SCRIPTS:
        path = os.path.join(scratch.folder("emulator"), "python")
        command = " ".join(shlex.quote(part) for part in (*emulator, sys.executable))
        with open(path, "w", encoding="utf-8") as script:
            script.write(f'#!/bin/sh\nexec {command} "$@"\n')
        os.chmod(path, 0o700)
        _SCRIPTS[emulator] = path
    return _SCRIPTS[emulator]


def _launch_of(backend: Backend) -> WorkerLaunch | str | None:
    """worker_launch(), checked; what is wrong with it where it raises or is no WorkerLaunch."""
    try:
        launch = backend.worker_launch()
    except Exception as exc:
        return f"worker_launch() raised {exception_text(exc)}"
    if launch is None:
        return None
    if not (isinstance(launch, WorkerLaunch) and isinstance(launch.env, dict)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in launch.env.items())
            and isinstance(launch.emulator, tuple) and all(isinstance(part, str) for part in launch.emulator)):
        return f"worker_launch() returned {short_repr(launch)}, not None or a WorkerLaunch(dict of str, tuple of str)"
    return launch


def _kill_group(process: multiprocessing.process.BaseProcess) -> None:
    """The worker killed with the processes it started (its group, which it leads); where it
    leads none (it has not got that far), the worker alone."""
    pid = process.pid
    if pid is not None:
        with contextlib.suppress(OSError):
            if os.getpgid(pid) == pid:
                os.killpg(pid, signal.SIGKILL)
    process.kill()


def _serve(connection: Connection, pickled: bytes, graph_reuse: bool = True, said: str = "") -> None:
    die_with_parent()  # no orphan after a SIGKILL of the main process
    # A process group of its own, so that killing the worker kills what its runtime started with
    # it (IREE's compiler, a converter): killed alone, a hung iree-compile lived on for half an
    # hour, a core busy, after its worker's graph was out of time.
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    forbid_network_and_installs()  # before the runtime loads: nothing it runs may reach out or install
    if said:
        # What the runtime prints (a Rust panic, a native abort's message, a native log on
        # stdout) goes to a file the main process reads into the crash result it causes, not
        # onto the user's terminal or into the run's own output.
        with contextlib.suppress(OSError):
            sys.stdout.flush()
            file = os.open(said, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
            os.dup2(file, 1)
            os.dup2(file, 2)
            os.close(file)
    try:
        # Unpickled only now, so that what importing its runtime prints goes where the above says.
        backend: Backend = pickle.loads(pickled)
    except Exception as exc:
        connection.send(f"its backend could not be unpickled in the worker: {exception_text(exc)}")
        return
    # Ctrl-C reaches the whole process group: the main process stops the workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    graphs = GraphCache(reuse=graph_reuse)
    current: Case | None = None
    try:
        backend.warm_up()
    except Exception as exc:  # "never raises", says the interface: the worker is not usable
        connection.send(f"warm_up() raised {exception_text(exc)}")
        return
    connection.send("ready")
    try:
        while True:
            request = connection.recv()
            if request is None:
                return
            if request == PROBE:
                probe = probe_here(backend)
                try:
                    connection.send(probe)  # pickled whole before anything is written
                except Exception as exc:
                    reason = f"its answers could not be sent back from the worker: {exception_text(exc)}"
                    connection.send(Probe(Availability(False, reason), {}))
                continue
            if isinstance(request, ModelRequest):
                _answer_model(connection, request, backend)
                continue
            if isinstance(request, PackRequest):
                graphs.forget_all()
                current = None  # the next single request brings its case again
                _answer_pack(connection, request, backend, graphs)
                graphs.forget_all()
                continue
            case, variant = request
            if case is not None:  # None: the case of the previous request (sent once, not per graph)
                graphs.forget_all()
                current = case  # kept, with its DirectML answer, for the case's other variants
            assert current is not None
            _answer(connection, current, backend, variant, graphs)
    finally:
        with contextlib.suppress(Exception):
            backend.close()


def _answer(connection: Connection, case: Case, backend: Backend, variant: Variant, graphs: GraphCache) -> None:
    """One graph's result, sent: where anything raises on the way (the backend's code, the
    judge on what it returned) or the result cannot be sent, an `error` result saying what."""
    try:
        result = execute(case, backend, variant, graphs)
    except Exception as exc:
        result = _result(case, backend.name, variant, "error", f"not judged: {_where(exc)}", _isa_here(backend))
    try:
        connection.send(result)  # pickled whole before anything is written
    except Exception as exc:
        connection.send(_result(case, backend.name, variant, "error",
                                f"the result could not be sent back: {exception_text(exc)}", _isa_here(backend)))


def _answer_model(connection: Connection, request: ModelRequest, backend: Backend) -> None:
    answer = run_model_here(backend, request)
    try:
        connection.send(answer)
    except Exception as exc:
        connection.send(ModelAnswer(None, "error", f"its outputs could not be sent back: {exception_text(exc)}"))


def _answer_pack(connection: Connection, request: PackRequest, backend: Backend, graphs: GraphCache) -> None:
    """A pack's answers, sent (runner.execute_pack); where anything raises on the way, or
    they cannot be sent, None for every graph: each is then run alone."""
    answers: list[Result | None]
    try:
        answers = execute_pack(request.items, backend, graphs)
    except Exception:
        answers = [None] * len(request.items)
    try:
        connection.send(answers)
    except Exception:
        connection.send([None] * len(request.items))


def _isa_here(backend: Backend) -> str:
    """isa(), asked in the worker; the default where it raises or answers no str."""
    with contextlib.suppress(Exception):
        isa = backend.isa()
        if isinstance(isa, str):
            return isa
    return machine.host_tier()


def _where(exc: Exception) -> str:
    """The exception, and the place it was raised."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return exception_text(exc)
    last = frames[-1]
    return f"{exception_text(exc)} (raised in {last.name}, {os.path.basename(last.filename)}:{last.lineno})"


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
    # What the backend answered in its worker (Executors hands a new worker its first one's):
    # the isa of the results made here, for a graph whose worker died.
    answered: Probe | None = None
    emulated: str = ""  # the emulator its process runs under ("" where none)
    began: float = 0.0  # when the request in flight was sent (time.monotonic)
    said: str = ""  # the file the worker process's stderr goes to (made at its first start)
    died: str = ""  # how the process of the last request died ("": it answered, or hung)
    # The answers its latest process gave (reset as another starts): for a process that died,
    # those before the death, where an earlier graph may have corrupted it (TVM2).
    served: int = 0

    @property
    def isa(self) -> str:
        return isa_of(self.answered)

    @property
    def device(self) -> str:
        """The device its backend described in its worker (`device`, where it says one): the
        placement of a graph that died or hung there (a Vulkan driver, a browser's adapter)."""
        info = self.answered.info if self.answered is not None else {}
        return str(info.get("device", ""))

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
        self.answered = probe
        return probe

    def execute(self, case: Case, variant: Variant) -> Result:
        """One request, waited for (under the time limit); asked again of a fresh worker where
        the worker died and the death may not be the graph's own (death_not_its_own)."""
        lost: list[str] = []
        while True:
            result = self._execute_once(case, variant)
            how = self.death_not_its_own()
            if not how or len(lost) >= RETRIES_AFTER_DEATH:
                return with_deaths(result, lost)
            lost.append(how)

    def _execute_once(self, case: Case, variant: Variant) -> Result:
        if self.start_failure:
            return self.unavailable(case, variant)
        try:
            connection = self._started()
        except RuntimeError as exc:
            return crash_result(case, self.backend.name, variant, str(exc), self.isa)
        self.begin(case, variant)
        if not connection.poll(self.request_timeout(case)):
            return self.timed_out(case, variant)
        return self.receive(case, variant)

    def death_not_its_own(self) -> str:
        """How the worker died on the last request, where the death need not be that graph's
        own ("": it answered, hung, or died on its first request natively). QEMU's user-mode
        emulator crashes now and then under OpenVINO's threads (a different graph each run,
        none twice); and a runtime that corrupted its heap on an earlier graph in the same
        process (TVM2) dies on a later one. Such a graph is asked again of a fresh worker, where
        it runs first: a death that repeats there is the graph's own crash."""
        if not self.died or not (self.emulated or self.served):
            return ""
        where = f"under {self.emulated}" if self.emulated else f"after {self.served} earlier answers"
        return f"{self.died}, {where}"

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
        holds = self._holds
        self._holds = case if self._send((None if case is holds else case, variant)) else None

    def _send(self, request: object) -> bool:
        """Send a request to a ready worker: in flight from now; False where it could not be
        sent (the answer's wait then finds the worker dead)."""
        assert self._connection is not None
        self.busy = True
        self.died = ""
        self.began = time.monotonic()
        self._holds = None  # the request names the case it needs again, unless begin() says otherwise
        if self.said:
            with contextlib.suppress(OSError):
                os.truncate(self.said, 0)  # the worker appends: what it prints from here is this request's
        try:
            self._connection.send(request)
        except OSError:
            return False
        return True

    def _answer(self) -> Any:
        """The answer to the request in flight, or _DIED where the worker died (`died` says how)."""
        assert self._connection is not None
        try:
            answer = self._connection.recv()
        except (EOFError, OSError):
            self._process.join(5)
            self.died = _signal_name(self._process.exitcode)
            self._discard()
            return _DIED
        self.busy = False
        self.served += 1
        return answer

    def receive(self, case: Case, variant: Variant) -> Result:
        """The answer to the request in flight (a crash where the worker died)."""
        answer = self._answer()
        if answer is _DIED:
            return crash_result(case, self.backend.name, variant,
                                f"the worker process died ({self.died}){self.printed()}", self.isa, self._spent(),
                                self.device)
        self._stop_if_spoiled(case)
        result: Result = answer
        return result

    def run_model(self, request: ModelRequest) -> ModelAnswer:
        """A whole model, waited for under the time limit: a death or a hang is a `crash`."""
        if self.start_failure:
            return ModelAnswer(None, "skip", f"{self.backend.name} is not available: {self.start_failure}")
        try:
            connection = self._started()
        except RuntimeError as exc:
            return ModelAnswer(None, "crash", str(exc))
        self._send(request)
        if not connection.poll(self.timeout):
            printed = self.printed()
            self.stop(graceful=False)
            return ModelAnswer(None, "crash", f"no answer in {self.timeout:g} s; the worker was killed{printed}",
                               timed_out=True)
        answer = self._answer()
        if answer is _DIED:
            return ModelAnswer(None, "crash", f"the worker process died ({self.died}){self.printed()}")
        model_answer: ModelAnswer = answer
        return model_answer

    def begin_pack(self, items: list[tuple[Case, Variant]]) -> None:
        """Send a pack to a ready worker (PackRequest); it forgets its case with it."""
        self._send(PackRequest(tuple(items)))

    def execute_pack(self, items: list[tuple[Case, Variant]]) -> list[Result | None] | None:
        """One pack, waited for under the time limit of one graph (one compilation and one
        run of one model, as the scheduler's): its answers (runner.execute_pack), or None
        where the worker could not start, died or hung (and was killed)."""
        if self.start_failure:
            return None
        try:
            connection = self._started()
        except RuntimeError:
            return None
        self.begin_pack(items)
        if not connection.poll(self.timeout):
            self.stop(graceful=False)  # a hung worker cannot answer a stop request
            return None
        return self.receive_pack(items)

    def receive_pack(self, items: list[tuple[Case, Variant]]) -> list[Result | None] | None:
        """The answers to the pack in flight, `items` (runner.execute_pack); None where the
        worker died (`died` says how)."""
        answer = self._answer()
        if answer is _DIED:
            return None
        self._stop_if_spoiled(*(case for case, _ in items))
        answers: list[Result | None] = answer
        return answers

    def _stop_if_spoiled(self, *cases: Case) -> None:
        """A process that ran a graph known to corrupt it (its record's spoilers) is killed (its
        exit may hang or abort in the corrupted heap): the next graph starts a fresh one."""
        record = bound_record(self.backend)  # a plugin's declares none; its code is not called here
        if record is not None and any(record.spoiler(case) for case in cases):
            self.stop(graceful=False)

    def timed_out(self, case: Case, variant: Variant) -> Result:
        """The request in flight got no answer in time: the worker is killed."""
        spent = self._spent()
        self.stop(graceful=False)  # a hung worker cannot answer a stop request
        timeout = self.request_timeout(case)
        return crash_result(case, self.backend.name, variant,
                            f"no answer in {timeout:g} s; the worker was killed{self.printed()}", self.isa, spent,
                            self.device)

    def printed(self) -> str:
        """What the worker printed during the request in flight, for its crash result: from a
        panic's first line where there is one (a backtrace after it is not the message)."""
        try:
            with open(self.said, "rb") as stream:
                text = stream.read(1 << 20).decode("utf-8", "replace")
        except OSError:
            return ""
        start = text.find("panicked at")
        text = text[text.rfind("\n", 0, start) + 1:].split("stack backtrace:")[0] if start >= 0 else text[-600:]
        text = " ".join(text.split())[:600]
        return f"; it printed: {text}" if text else ""

    def _spent(self) -> float:
        """The seconds since the request in flight was sent: what a graph that crashed cost."""
        return round(time.monotonic() - self.began, 6) if self.began else 0.0

    def unavailable(self, case: Case, variant: Variant) -> Result:
        return _result(case, self.backend.name, variant, "skip",
                       f"{self.backend.name} is not available: {self.start_failure}", self.isa)

    def spawn(self) -> None:
        """Start the worker process without waiting for it (so several start at once). From
        the main thread only: a worker dies with the thread that started it."""
        self.died = ""
        if self._process is None and not self.start_failure:
            launch = _launch_of(self.backend)  # the one call of the backend's code in this process
            if isinstance(launch, str):
                self.start_failure = launch
                return
            self.emulated = " ".join(launch.emulator) if launch is not None else ""
            if not self.said:
                self.said = _stderr_file(self.backend.name)
            try:
                pickled = pickle.dumps(self.backend)  # here: a backend that cannot be sent fails its start
            except Exception as exc:
                self.start_failure = f"its worker could not be started: {exception_text(exc)}"
                return
            parent, child = _CONTEXT.Pipe()
            self._process = _CONTEXT.Process(target=_serve, args=(child, pickled, self.graph_reuse, self.said),
                                             daemon=True)
            try:
                with _launching(launch), _stderr_into(self.said):
                    self._process.start()
            except Exception as exc:
                parent.close()
                self._process = None
                self.start_failure = f"its worker could not be started: {exception_text(exc)}"
                return
            finally:
                child.close()
            self._pending = parent
            self.served = 0

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
            answer = parent.recv()
            if answer != "ready":
                failure = answer if isinstance(answer, str) else "its worker sent no ready signal"
        except (EOFError, OSError):
            self._process.join(5)
            failure = f"its worker died while starting ({_signal_name(self._process.exitcode)}){self.printed()}"
        if failure:
            parent.close()
            self.fail_start(failure)
            return failure
        self._connection = parent
        return ""

    def fail_start(self, failure: str) -> str:
        """The worker did not start: it is killed, and not tried again."""
        if self._process is not None:
            _kill_group(self._process)
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
                _kill_group(self._process)
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


# How often a graph whose worker died, where the death may not be the graph's own
# (Worker.death_not_its_own), is asked again of a fresh one.
RETRIES_AFTER_DEATH = 1


def with_deaths(result: Result, lost: list[str]) -> Result:
    """The answer of a graph asked again after its worker died on it (`lost`: how, each time),
    its message saying so."""
    if not lost:
        return result
    said = f"a worker died on this graph before this answer ({'; '.join(lost)})"
    return dataclasses.replace(result, message=f"{result.message}; {said}" if result.message else said)


def crash_result(case: Case, backend: str, variant: Variant, message: str, isa: str, seconds: float = 0.0,
                 placement: str = "") -> Result:
    """The `crash` result of a graph whose worker died, hung or did not start (`backend`:
    its name; `isa`: as its worker answered, isa_of; `seconds`: what it cost, the time limit
    for a hang, so that --shard-timings does not take the slowest graphs for free;
    `placement`: the device its worker had opened, where it died or hung running the graph)."""
    return _result(case, backend, variant, "crash", message, isa, seconds, placement)


def _result(case: Case, backend: str, variant: Variant, verdict: Verdict, message: str, isa: str,
            seconds: float = 0.0, placement: str = "") -> Result:
    return Result(
        case.id, backend, variant.graph, variant.k_label, verdict,
        message=message, seconds=seconds, tags=list(case.tags), profile=variant.profile(case).label,
        x_shape=variant.x_shape, case_file=str(case.file), isa=isa, op=case.op, placement=placement,
    )
