"""The one small interface every backend adapter implements."""

from __future__ import annotations

import contextlib
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from conformance.core import machine
from conformance.operator.graph import Graph as Graph  # where plugins import it from
from conformance.operator.interfaces import Case, GraphKind, Variant
from conformance.operator.outcome import Outputs
from conformance.ops.registry import OPERATORS


@dataclass(frozen=True)
class Availability:
    available: bool
    reason: str = ""  # why not, when not


@dataclass(frozen=True)
class Execution:
    """What one run() gave: the outputs by the names the graph gives them (Graph.outputs;
    interface 3), or, from a backend written for interface 2, TopK's `values` and `indices`."""

    values: np.ndarray[Any, Any] | None = None  # interface 2 (TopK's outputs)
    indices: np.ndarray[Any, Any] | None = None  # interface 2
    placement: str = ""  # what ran the operator's node, as the runtime reports it
    wrapping: str = ""  # how the node was handed to the provider, if not as built
    outputs: Mapping[str, np.ndarray[Any, Any]] = field(default_factory=dict)  # interface 3
    # A whole model (the `model` command): its nodes of the suite's operators that ran on
    # something other than the backend's own device (ONNX Runtime's fallback to its CPU
    # provider), by node name, with where they ran: their answers are not the backend's.
    elsewhere: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def unanswered(cls, placement: str) -> Execution:
        """A graph of a pack whose own run raised (the pack was built and the other graphs ran):
        no outputs, an answer that is not one, so the runner runs that graph alone and records
        that run; the pack is not built again."""
        return cls(placement=placement)

    @classmethod
    def named(cls, names: Sequence[str], arrays: Sequence[Any], placement: str, wrapping: str = "",
              elsewhere: Mapping[str, str] | None = None) -> Execution:
        """The arrays a runtime returned in the graph's output order, by the graph's names."""
        return cls(placement=placement, wrapping=wrapping, outputs=dict(zip(names, arrays, strict=True)),
                   elsewhere=dict(elsewhere or {}))

    def outputs_named(self, names: Sequence[str]) -> Outputs:
        """The outputs by name; an interface-2 execution gives `values` and `indices`."""
        if self.outputs:
            return Outputs(dict(self.outputs))
        pair = {"values": self.values, "indices": self.indices}
        return Outputs({name: array for name, array in pair.items() if array is not None})


class PlacementError(RuntimeError):
    """The run cannot prove that the TopK node ran where the backend says it runs."""


# The version of the interface below, as a third-party backend (a plugin, joining through the
# `topk_conformance.backends` entry point group) implements it. A plugin's Backend subclass
# declares the version it was written for (`interface_version = 2`); the registry refuses a
# plugin that declares none or another one, naming the plugin, its version and this one
# (docs/vendors/backends.md). Raise it, and say here what changed, whenever a backend written
# for the previous version would no longer be run correctly.
#   1  the interface before it was versioned: name, kinds, availability(), describe(),
#      run(graph) -> Execution, runs(variant); no declaration.
#   2  plugins declare `interface_version`; Graph.feed_types (an OpenVINO K type numpy cannot
#      carry, for backends of kind "openvino") and Graph.checker; run() may be handed the
#      same Graph N times in a row (a case's `repeat`); the optional hooks warm_up(),
#      close() and cannot_run(case, variant); BackendCrash for a process the backend drives.
#      Added since, optional for a backend (one written without them runs as before):
#      Graph.signature (reuse a session across graphs that are the same up to their name)
#      and the compiling() / executing() timers (compile and execution time in results);
#      isa() (the instruction-set tier its answers depend on, in every result) and
#      worker_launch() (an environment, or an emulated CPU, for its worker process).
#   3  operators other than TopK: Graph.outputs names the graph's outputs and run() returns
#      them by those names (Execution.outputs, or Execution.named); `operators` says which
#      operators' graphs the backend takes (runs() is asked only for those); Graph moved
#      to conformance.operator.graph (still importable from here). A plugin written for 2
#      keeps working: it is given TopK graphs only, and its Execution(values, indices, ...)
#      is read as TopK's two outputs.
#      Added since, optional (a backend without it runs every graph alone, as before):
#      packs (`packs` and run_pack(graphs): several graphs, of any cases, run as one model;
#      conformance/running/runner.py, execute_pack).
#      timed_elsewhere(): times a runtime measured itself in a process the backend drives.
#      Whole models (the `model` command): a Graph whose variant's `op` is "model" is a
#      user's model, run as it is (no one-node placement proof); Execution.elsewhere names
#      its selection nodes that ran on another device than the backend's.
INTERFACE_VERSION = 3
SUPPORTED_INTERFACE_VERSIONS = frozenset({2, 3})


# The suite's own backends run every operator the suite has (a plugin says which it runs).
EVERY_OPERATOR: tuple[str, ...] = tuple(OPERATORS)


@dataclass
class Stopwatch:
    """What one run() spent opening sessions / compiling models (`compilations` of them,
    including attempts that raised) and inside the runtime's own execution call. A backend
    times itself with Backend.compiling() and Backend.executing(); one that never does
    reports nothing (`reported` stays False)."""

    compile_seconds: float = 0.0
    run_seconds: float = 0.0
    compilations: int = 0
    reported: bool = False
    # Where an exception left the run: "compiling" or "running" (compiling() and executing()
    # say so themselves; a backend that times itself elsewhere says it with failed_while()).
    failed: str = ""


@dataclass(frozen=True)
class WorkerLaunch:
    """How a backend's worker process is started where it is not a plain Python process:
    variables set before anything loads, and a command (an emulator) that runs the
    interpreter, e.g. ("qemu-x86_64", "-cpu", "max")."""

    env: dict[str, str] = field(default_factory=dict)
    emulator: tuple[str, ...] = ()


class PackError(RuntimeError):
    """A pack could not be compiled or run, and the backend knows which of its graphs
    (`culprits`, positions in the pack) did it: those run alone, the others again as a pack.
    Any other exception from run_pack() splits the pack in halves."""

    def __init__(self, message: str, culprits: Sequence[int]) -> None:
        super().__init__(message)
        self.culprits = tuple(culprits)


class BackendCrash(RuntimeError):
    """A process the backend drives (not the worker itself) died or hung during the run:
    judged `crash`, like a dead worker."""


class Backend(ABC):
    # The suite's own backends take these five from their record (BackendRecord.make); a
    # plugin sets them in its class.
    name: str
    kinds: tuple[GraphKind, ...]  # the graph dialects it runs
    # The operators (case `op`) whose graphs it takes; a plugin of interface 2 takes TopK only.
    operators: tuple[str, ...] = ("topk",)
    # The interface version the backend implements. The suite's own backends inherit this
    # default; a plugin must set it in its own class (the registry checks that it did).
    interface_version: ClassVar[int] = INTERFACE_VERSION
    # Run when no --backend names the backends (False: only when named, such as a backend
    # that re-runs another's row on an emulated CPU, about 3 times slower).
    by_default: bool = True
    # Packs (optional): True where run_pack() runs several graphs as one model. Only a
    # pack's passes are recorded from it: every other graph is run again alone.
    packs: bool = False
    # The suite's own backends: the BackendRecord that binds them (a plugin has none;
    # record.record_of derives one). Typed loosely so that this interface, which plugins
    # import, does not import the record, which imports it.
    record: object = None

    @abstractmethod
    def availability(self) -> Availability:
        """Whether it can run here, and if not, why not. Cheap, and never raises."""

    @abstractmethod
    def describe(self) -> dict[str, str]:
        """Device/provider and versions, for results and reports."""

    @abstractmethod
    def run(self, graph: Graph) -> Execution:
        """Run one graph; raise on any runtime error (the judge makes it a verdict). A case
        with `repeat: N` hands the same Graph object N times in a row: a backend may keep
        its session (or compiled model) for the last graph and run it again."""

    def run_pack(self, graphs: Sequence[Graph]) -> Sequence[Execution]:
        """Run the graphs (of any cases, each with its own inputs and outputs) as one model,
        compiled once and run once: one Execution per graph, in order, each as run() gives
        it, or Execution.unanswered() for a graph whose own run raised. Raise where the pack
        cannot be built, compiled or run: the runner splits it (PackError: the graphs that did
        it go alone).
        Asked only of a backend whose `packs` is True."""
        raise NotImplementedError(f"{type(self).__name__} does not run packs")

    def isa(self) -> str:
        """The instruction-set tier (conformance/core/machine.py) its kernels are chosen under,
        recorded in every result so that a baseline can scope what depends on it: by
        default the tier of the CPU this process runs on; "" for a backend whose answers do
        not depend on the CPU (a GPU's)."""
        return machine.host_tier()

    def worker_launch(self) -> WorkerLaunch | None:
        """How its worker process must start (None: as any other)."""
        return None

    def operators_taken(self) -> tuple[str, ...]:
        """The operators whose graphs it is given: `operators`, or TopK alone for a backend
        written for interface 2 (whatever it inherits: it knows TopK's outputs only)."""
        return ("topk",) if self.interface_version == 2 else self.operators

    def runs(self, variant: Variant) -> bool:
        """Whether to build this graph variant for it (a bool). Asked once per variant, in
        its worker process, with availability(), isa() and describe() (workers.probe_here)."""
        return variant.kind in self.kinds and variant.op in self.operators_taken()

    def warm_up(self) -> None:
        """Start what the runs need (a worker calls this before its first request, so the
        first result's time is its own). Never raises; the runs report any failure."""
        return None

    def close(self) -> None:
        """Stop what warm_up or the runs started (the worker calls this as it ends)."""
        return None

    def start_stopwatch(self) -> Stopwatch:
        """A fresh stopwatch for the next run() (the runner starts one before each run and
        reads it after, whether the run returned or raised)."""
        self._stopwatch = Stopwatch()
        return self._stopwatch

    @contextlib.contextmanager
    def compiling(self, counts: bool = True) -> Iterator[None]:
        """Times a session opening or model compilation of the current run (optional);
        `counts`: one compilation (False for a step before it, such as reading a model)."""
        watch = self.__dict__.get("_stopwatch") or self.start_stopwatch()
        watch.reported = True
        watch.compilations += int(counts)
        started = time.perf_counter()
        try:
            yield
        except BaseException:
            watch.failed = watch.failed or "compiling"
            raise
        finally:
            watch.compile_seconds += time.perf_counter() - started

    @contextlib.contextmanager
    def executing(self) -> Iterator[None]:
        """Times the runtime's own execution call of the current run (optional)."""
        watch = self.__dict__.get("_stopwatch") or self.start_stopwatch()
        watch.reported = True
        started = time.perf_counter()
        try:
            yield
        except BaseException:
            watch.failed = watch.failed or "running"
            raise
        finally:
            watch.run_seconds += time.perf_counter() - started

    def timed_elsewhere(self, compile_seconds: float, run_seconds: float, compilations: int) -> None:
        """Times of the current run that the runtime measured itself, in a process the backend
        drives (optional; in place of compiling() and executing())."""
        watch = self.__dict__.get("_stopwatch") or self.start_stopwatch()
        watch.reported = True
        watch.compile_seconds += compile_seconds
        watch.run_seconds += run_seconds
        watch.compilations += compilations

    def failed_while(self, stage: str) -> None:
        """The current run is failing while "compiling" or "running", in a process the backend
        drives (optional; compiling() and executing() say it themselves)."""
        watch = self.__dict__.get("_stopwatch") or self.start_stopwatch()
        watch.failed = watch.failed or stage

    def cannot_run(self, case: Case, variant: Variant) -> str | None:
        """Why this device cannot take a case that the dialect expresses (a skip, for
        example a data type the device reports unsupported), or None."""
        return None
