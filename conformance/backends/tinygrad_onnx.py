"""`tinygrad-cpu`: tinygrad, a small deep-learning framework that generates its kernels, as a
user of its Python package runs an ONNX model (tinygrad; the `[tinygrad]` extra):

- import: `tinygrad.nn.onnx.OnnxRunner` over the model's bytes (tinygrad's own ONNX parser and
  operator table, in Python over its lazy tensors);
- compile and run: the runner called with the feeds, its outputs realized. tinygrad schedules
  the lazy graph into kernels, writes each as C and compiles it with clang (`DEV=CPU`, its
  default device without a GPU; Debian's `clang`: `topk-conformance setup tinygrad`).

A refusal is the graph's `error`, its message starting with the stage that refused
(`tinygrad import:`, `tinygrad run:`). tinygrad keeps compiled kernels in a cache database
keyed by their source (`CACHEDB`): the worker points it into the suite's cache, so a run leaves
nothing in the user's own and a kernel met again is not compiled again (an answer does not
depend on it). No packs: tinygrad already compiles each distinct kernel once. No runner is shared
between graphs the same up to their name either: an OnnxRunner binds a symbolic dimension at its
first call and refuses another size at the next ("input X has mismatch on dim=0. Expected 8,
received 3"), so only a repeated case's runs share one."""

from __future__ import annotations

import os
import shutil
import subprocess
from importlib import metadata
from typing import Any

import numpy as np

from conformance.backends.base import EVERY_OPERATOR, Availability, Backend, Execution, Graph, WorkerLaunch
from conformance.backends.cache import cache_root
from conformance.backends.install_hint import extra_hint
from conformance.backends.pack_functions import fed_inputs
from conformance.backends.record import BackendRecord, SetupStep, Unfinishable
from conformance.backends.setup_steps import Say, install_packages

PINNED = "0.14.0"  # constraints.txt; the version tests/baselines/tinygrad-cpu.yaml was recorded with
INSTALL_HINT = extra_hint("tinygrad", f"tinygrad=={PINNED}")
DEVICE = "CPU"  # tinygrad's clang-compiled C backend
COMPILER = "clang"
PLACEMENT = "tinygrad CPU (C kernels compiled by clang)"


class TinygradError(RuntimeError):
    """A stage of tinygrad refused a graph; the message starts with the stage."""


class Tinygrad(Backend):
    _last: tuple[Any, Any] | None = None  # (the graph's model, its runner): a repeated case's runs

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_last": None}  # a worker makes its own

    def worker_launch(self) -> WorkerLaunch | None:
        # tinygrad reads its settings from the environment as it is imported.
        return WorkerLaunch(env={"DEV": DEVICE, "CACHEDB": str(cache_root() / "tinygrad" / "cache.db")})

    def availability(self) -> Availability:
        if shutil.which(COMPILER) is None:
            return Availability(False, f"no {COMPILER} on PATH: tinygrad's CPU device compiles its kernels with it "
                                       "(Debian's clang: topk-conformance setup tinygrad)")
        if os.environ.get("DEV") != DEVICE:
            return Availability(False, f"DEV is not {DEVICE} in this process: tinygrad-cpu runs in a worker that "
                                       "sets it before tinygrad loads")
        try:
            from tinygrad.device import Device
        except ImportError as exc:
            return Availability(False, f"tinygrad is not installed ({exc}); {INSTALL_HINT}")
        except Exception as exc:  # a package that does not load is a reason, not a crash
            return Availability(False, f"tinygrad cannot load: {type(exc).__name__}: {' '.join(str(exc).split())}")
        if Device.DEFAULT != DEVICE:
            return Availability(False, f"tinygrad chose device {Device.DEFAULT}, not {DEVICE}")
        return Availability(True)

    def describe(self) -> dict[str, str]:
        from tinygrad.device import Device

        compiler = type(getattr(Device[Device.DEFAULT], "compiler", None)).__name__
        return {"device": f"tinygrad {Device.DEFAULT} ({compiler})", "tinygrad": metadata.version("tinygrad"),
                "clang": _clang_version(), "compiler": f"tinygrad {metadata.version('tinygrad')}, C kernels by "
                f"{_clang_version()}, default settings"}

    def close(self) -> None:
        self._last = None

    def run(self, graph: Graph) -> Execution:
        from tinygrad.nn.onnx import OnnxRunner
        from tinygrad.tensor import Tensor

        if self._last is not None and self._last[0] is graph.model:
            runner = self._last[1]
        else:
            self._last = None
            try:
                with self.compiling():
                    runner = OnnxRunner(Tensor(graph.model.SerializeToString()))
            except Exception as exc:
                raise TinygradError(f"tinygrad import: {type(exc).__name__}: {_message(exc)}") from None
            self._last = (graph.model, runner)
        try:
            feeds = {name: Tensor(np.ascontiguousarray(graph.feeds[name])) for name in fed_inputs(graph)}
            with self.executing():  # tinygrad compiles each new kernel as it realizes the outputs
                returned = runner(feeds)
                # by the model's own output names, in the graph's order (graph.outputs are the suite's)
                arrays = [returned[output.name].numpy().copy() for output in graph.model.graph.output]
        except Exception as exc:
            raise TinygradError(f"tinygrad run: {type(exc).__name__}: {_message(exc)}") from None
        return Execution.named(graph.outputs, arrays, placement=PLACEMENT)


def _clang_version() -> str:
    completed = subprocess.run([COMPILER, "--version"], capture_output=True, text=True, check=False,
                               stdin=subprocess.DEVNULL)
    first = completed.stdout.strip().splitlines()[:1]
    return first[0] if first else f"{COMPILER} (version unknown)"


def _message(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:2000] or type(exc).__name__


def _install(say: Say) -> None:
    install_packages(say, (COMPILER,), "the tinygrad backend (its CPU device compiles C kernels with clang)")


SETUP = SetupStep("tinygrad", "Debian's clang, which tinygrad's CPU device compiles its kernels with, for the "
                  "tinygrad backend", _install)

RECORD = BackendRecord(
    name="tinygrad-cpu", runtime="tinygrad (generated kernels)", packages=("tinygrad",),
    kernels="CPU, C kernels tinygrad generates and clang compiles", kinds=("onnx",), operators=EVERY_OPERATOR,
    isolation="worker", extra="tinygrad", setup=SETUP, family="compiled", adapter=Tinygrad,
    # Run when named: its whole corpus takes minutes more than the others' (its kernels are
    # compiled per graph).
    by_default=False,
    # The kernels are C that clang compiles: another clang may compile them otherwise.
    depends_on=("clang",),
    # TopK over rows of a million elements does not finish in the time a graph is given
    # (TopK-1 has no K input it can read, and is refused at once).
    unfinishable=(Unfinishable("topk", 262_144, "TG6", ("onnx-opset10", "onnx-opset11", "onnx-opset24")),),
)
