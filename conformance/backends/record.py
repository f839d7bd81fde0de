"""The backend record: one declarative place per backend that says what the stages need to
know of it (in the spirit of the operator record, conformance/operator/record.py). The
adapter (a Backend subclass) runs graphs; the record names it, says what it takes and where
its kernels run, how it is isolated, and what makes it available. The adapter takes its name,
graph kinds, operators, packs and default from the record, never from attributes of its own:
a record whose `adapter` is the class binds the class as it is made (so the class, and a
test's subclass of it, is the backend the record describes); one whose `adapter` makes an
instance of a class several records share (OpenVINO's devices) binds the instance."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from conformance.operator.interfaces import Case, GraphKind

if TYPE_CHECKING:
    from conformance.backends.base import Backend

Say = Callable[[str], None]

# How a backend's runs are kept apart from the suite (the worker is always its own process):
#   worker        the runtime is loaded in the worker itself
#   host process  the worker drives a process of its own (Node.js, a Windows program under Wine)
#   browser       the worker drives a headless Chromium page
#   emulator      the worker itself runs on an emulated CPU (QEMU user mode)
Isolation = Literal["worker", "host process", "browser", "emulator"]
ISOLATIONS: tuple[Isolation, ...] = ("worker", "host process", "browser", "emulator")

# Where a backend's kernels come from, the report's column groups (in this order):
#   reference     an evaluator written to the document (the ONNX reference)
#   hand-written  a runtime's own kernels, written by hand (C++, Rust, WebAssembly, CUDA, OpenCL)
#   compiled      kernels an ML compiler generates for the graph (IREE, TVM), for a CPU or as shaders
#   shaders       a runtime's GPU shaders (DirectML's HLSL, ONNX Runtime's WGSL) through a graphics
#                 API: here a Vulkan driver on the CPU
KernelFamily = Literal["reference", "hand-written", "compiled", "shaders"]
KERNEL_FAMILIES: tuple[KernelFamily, ...] = ("reference", "hand-written", "compiled", "shaders")


@dataclass(frozen=True)
class SetupStep:
    """`topk-conformance setup NAME`: what installs a backend's parts here (idempotent). `run`
    does the steps and raises SetupError (conformance/backends/setup_steps.py) with one line
    saying what to do where it cannot; the backends whose record names the step are then
    asked whether they are available, in their workers (`probe_seconds`) or, with None,
    in the setup's own process."""

    name: str
    what: str  # for `setup --help`: what it installs, for which backends
    run: Callable[[Say], None]
    probe_seconds: float | None = 120.0


@dataclass(frozen=True)
class PythonEnvironment:
    """A Python environment of its own that a backend's runtime lives in, made by its setup step
    (onnx2tf's exact pins of TensorFlow and NumPy cannot share the suite's): its interpreter, and
    what it lacks in one line ("" where it is whole). A finding about the backend runs its repro
    there, and `findings history` installs each release of the runtime over it, alone."""

    python: Callable[[], Path]
    missing: Callable[[], str]


@dataclass(frozen=True)
class Spoiler:
    """Graphs after which the runtime's process cannot be trusted: those of operator `op` on
    an input of element type `dtype`, which corrupt the runtime's memory (the finding `finding`).
    A worker that ran one is replaced before its next graph, and none goes in a pack: else the
    corruption would land on another graph's result (a wrong answer, a death or a hang), and
    which graph that is depends on the order they ran in."""

    op: str
    dtype: str
    finding: str


@dataclass(frozen=True)
class Unfinishable:
    """Graphs the runtime does not finish, or not reliably, in the time a graph is given here
    (on a quiet machine they take more than half of it), as the finding `finding` shows: those
    of operator `op` through the graphs `graphs` (every graph where empty) whose row (the
    input's length along the case's axis) holds `elements` or more. A run leaves them out, each
    a `skip` naming the finding, unless asked for them (`run --slow`): every run would otherwise
    pay up to the time limit per graph to learn again what the finding records, which
    `findings check` already watches for an upstream fix, and a busy machine would turn some of
    them into crashes a baseline recorded elsewhere does not hold. Which graphs of a case an entry
    covers, and what the skip says, is the run's reading (conformance/running/unfinished.py)."""

    op: str
    elements: int
    finding: str
    graphs: tuple[str, ...] = ()
    # Or, instead of a row's length, an input (a field of the operator's case) at least this
    # large in every dimension: NonMaxSuppression's `scores`, [batches, classes, boxes]; and, where
    # `at_most` gives one, at most that large (None: no bound in that dimension).
    input: str = ""
    at_least: tuple[int, ...] = ()
    at_most: tuple[int | None, ...] = ()
    # The element types (the case's `dtype_name`) it covers; every one where empty. A graph that
    # cannot be built for a type keeps the skip that says so.
    dtypes: tuple[str, ...] = ()


@dataclass(frozen=True)
class BackendRecord:
    name: str  # as --backend, results and baselines name it (contract section 4)
    runtime: str  # the runtime, as its makers call it
    # The packages whose versions its description reports (describe() reads them from the
    # runtime itself, in the worker: the version that ran, not the one on the path here).
    packages: tuple[str, ...]
    kernels: str  # the kernel family and device it runs on, as the report calls it
    kinds: tuple[GraphKind, ...]  # the graph dialects it takes
    operators: tuple[str, ...]  # the operators (case `op`) whose graphs it takes
    isolation: Isolation
    # What makes it available: the pip extra (None: the base install), the setup step.
    extra: str | None
    setup: SetupStep | None
    # Makes the adapter (arguments: a test's own setup). Records travel to workers with their
    # backend: a class or a functools.partial, never a lambda (which cannot be pickled).
    adapter: type[Backend] | Callable[..., Backend]
    family: KernelFamily = "hand-written"  # where its kernels come from (KERNEL_FAMILIES): the report groups by it
    packs: bool = False  # it runs several graphs as one model (Backend.run_pack)
    # Run when no --backend names the backends (False: only when named, such as a backend
    # that re-runs another's row on an emulated CPU, about 3 times slower).
    by_default: bool = True
    # Keys of its description whose values its answers depend on beyond the packages'
    # versions: the device a driver reports, the browser's adapter. A baseline records them
    # (`recorded_on`), and a run where they differ is not failed by its differences alone.
    depends_on: tuple[str, ...] = ()
    environment: PythonEnvironment | None = None  # where its runtime lives, if not in the suite's environment
    spoilers: tuple[Spoiler, ...] = ()  # graphs that leave its process corrupted (Spoiler)
    # Operators its provider has no kernel for, whose node ONNX Runtime hands to another
    # provider (DirectML has no NonMaxSuppression): such a run is a skip naming where the node
    # ran, never that provider's answer under this backend's name (contract section 8).
    no_kernel: tuple[str, ...] = ()
    unfinishable: tuple[Unfinishable, ...] = ()  # graphs it does not finish here (Unfinishable)

    def placed_elsewhere(self, op: str) -> bool:
        """Whether a node of this operator placed on another provider is expected (no kernel here)."""
        return op in self.no_kernel

    def __post_init__(self) -> None:
        if isinstance(self.adapter, type):
            self.bind(self.adapter)

    def bind(self, adapter: Backend | type[Backend]) -> None:
        """The adapter (a class, or an instance) takes what the record says of it."""
        adapter.record = self
        adapter.name = self.name
        adapter.kinds = self.kinds
        adapter.operators = self.operators
        adapter.packs = self.packs
        adapter.by_default = self.by_default

    def make(self, *args: Any, **kwargs: Any) -> Backend:
        """The adapter, under this record's name and with what it takes."""
        backend = self.adapter(*args, **kwargs)
        self.bind(backend)
        return backend

    def spoiler(self, case: Case) -> str:
        """The finding whose memory corruption the case's graphs leave in its process ("": none)."""
        return next((s.finding for s in self.spoilers if s.op == case.op and s.dtype == case.dtype_name), "")

    def described(self) -> dict[str, str]:
        """What the record adds to a backend's description in results and the report."""
        return {"runtime": self.runtime, "kernels": self.kernels, "family": self.family, "isolation": self.isolation}


def record_of(backend: Backend) -> BackendRecord:
    """The backend's record: its own (the suite's backends), or one a plugin's attributes make
    (what it declares; the rest unknown to the suite). A record binds its class or its instance
    (BackendRecord.bind): a subclass of the suite's adapter, under a name of its own, is not
    the backend that record describes."""
    record = bound_record(backend)
    if record is not None:
        return record
    packs = getattr(backend, "packs", False)
    declared = getattr(backend, "unfinishable", ())  # a plugin's own slow graphs, as Unfinishable entries
    cls = type(backend)
    return BackendRecord(
        name=backend.name, runtime=f"plugin {cls.__module__}.{cls.__qualname__}", packages=(), kernels="",
        kinds=backend.kinds, operators=backend.operators_taken(), isolation="worker", extra=None, setup=None,
        adapter=lambda: backend, packs=packs is True, by_default=getattr(backend, "by_default", True) is not False,
        unfinishable=tuple(entry for entry in declared if isinstance(entry, Unfinishable))
        if isinstance(declared, tuple | list) else (),
    )


def bound_record(backend: Backend) -> BackendRecord | None:
    """The record the backend's class or instance was bound to under its name (a suite's
    backend), or None (a plugin's): read from attributes only, none of the backend's code runs."""
    record = backend.__dict__.get("record") or type(backend).__dict__.get("record")
    return record if isinstance(record, BackendRecord) and record.name == backend.name else None
