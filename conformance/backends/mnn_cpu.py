"""`mnn-cpu`: Alibaba's MNN, an inference engine for phones and small devices, as a user of its
Python package runs an ONNX model (MNN; the `[mnn]` extra):

- convert: MNN's converter, the C function the package's `_tools` module holds, called in this
  process (`mnnconvert -f ONNX --modelFile ... --MNNModel ...`). Never the `mnnconvert` console
  script: it runs `pip install` and sends usage data over the network;
- load: `MNN.nn.load_module_from_file(path, inputs, outputs)`, by the ONNX graph's input and
  output names;
- run: `forward` with each feed as an `MNN.expr.const` of the type the converted model's input
  has. MNN keeps no int64, float64 or float16 tensors: the converter makes them int32 and float32.
  A feed is cast as a user must cast it, and what comes back (int32 indices) is judged as it is
  by the `dtype` rule, never cast back.

A refusal is the graph's `error`, its message starting with the stage that refused
(`MNN convert:`, `MNN load:`, `MNN run:`) and naming the converter's version; the converter
and loader print their reasons on stdout, which is captured for the message."""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from conformance.backends.base import EVERY_OPERATOR, Availability, Backend, Execution, Graph
from conformance.backends.compiled import Compiled
from conformance.backends.install_hint import extra_hint
from conformance.backends.pack_functions import fed_inputs
from conformance.backends.record import BackendRecord
from conformance.core import scratch

PINNED = "3.6.1"  # constraints.txt; the version tests/baselines/mnn-cpu.yaml was recorded with
INSTALL_HINT = extra_hint("mnn", f"mnn=={PINNED}")
PLACEMENT = "MNN CPU"
T = TypeVar("T")


class MnnError(RuntimeError):
    """A stage of MNN refused a graph; the message starts with the stage."""


@dataclass(frozen=True)
class _Loaded:
    module: Any  # MNN.nn module
    inputs: dict[str, Any]  # input name -> the MNN dtype the converted model wants


class Mnn(Backend):
    _modules: Compiled[_Loaded] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_modules": None}  # a worker loads its own

    def availability(self) -> Availability:
        try:
            import _tools  # noqa: F401  the converter, shipped in MNN's wheel
            import MNN  # noqa: F401
        except ImportError as exc:
            return Availability(False, f"MNN is not installed ({exc}); {INSTALL_HINT}")
        except Exception as exc:
            return Availability(False, f"MNN cannot load: {type(exc).__name__}: {' '.join(str(exc).split())}")
        return Availability(True)

    def describe(self) -> dict[str, str]:
        import MNN

        version = MNN.version()
        return {"device": "MNN CPU (its own kernels)", "mnn": version,
                "converter": f"MNNConvert {version} (in-process, default options)"}

    def close(self) -> None:
        self._modules = None

    def run(self, graph: Graph) -> Execution:
        if self._modules is None:
            self._modules = Compiled()
        loaded = self._modules.get(graph)
        if loaded is None:
            with self.compiling():
                loaded = self._modules.put(graph, _load(graph))
        try:
            arrays = self._forward(loaded, graph)
        except Exception:
            self._modules.isolate(graph, loaded)
            raise
        return Execution.named(graph.outputs, arrays, placement=PLACEMENT)

    def _forward(self, loaded: _Loaded, graph: Graph) -> list[np.ndarray[Any, Any]]:
        import MNN

        expr = MNN.expr
        feeds = []
        for name in fed_inputs(graph):
            wanted = loaded.inputs[name]
            array = np.ascontiguousarray(graph.feeds[name]).astype(_NUMPY[str(wanted)], copy=False)
            fed, said = _printed(functools.partial(expr.const, array, list(array.shape), expr.NCHW, wanted))
            if fed is None:
                raise MnnError(f"MNN run: feeding {name} as {wanted}: {said}")
            feeds.append(fed)

        def forward() -> list[np.ndarray[Any, Any]]:
            returned = loaded.module.forward(feeds)
            outputs = returned if isinstance(returned, list) else [returned]
            return [np.array(output.read()) for output in outputs]  # MNN computes as it reads

        with self.executing():
            arrays, said = _printed(forward)
        if arrays is None:
            raise MnnError(f"MNN run: {said or 'forward returned nothing'}")
        return arrays


# MNN's tensor types by name, as numpy holds them.
_NUMPY = {"dtype.float": np.float32, "dtype.double": np.float64, "dtype.int": np.int32, "dtype.int64": np.int64,
          "dtype.uint8": np.uint8, "dtype.int8": np.int8}


def _load(graph: Graph) -> _Loaded:
    import _tools
    import MNN

    version = MNN.version()
    folder = scratch.folder("mnn")
    source, converted = folder / "model.onnx", folder / "model.mnn"
    try:
        source.write_bytes(graph.model.SerializeToString())
        arguments = ["mnnconvert", "-f", "ONNX", "--modelFile", str(source), "--MNNModel", str(converted),
                     "--bizCode", "topk-conformance"]
        _, said = _printed(lambda: _tools.mnnconvert(arguments))
        if not converted.is_file():
            raise MnnError(f"MNN convert (MNNConvert {version}): {said or 'no model written'}")
        inputs = list(fed_inputs(graph))
        outputs = [output.name for output in graph.model.graph.output]
        module, said = _printed(lambda: MNN.nn.load_module_from_file(str(converted), inputs, outputs))
        if module is None:
            raise MnnError(f"MNN load: {said or 'no module'}")
        variables = MNN.expr.load_as_dict(str(converted))
        missing = [name for name in inputs if name not in variables]
        if missing:
            raise MnnError(f"MNN convert (MNNConvert {version}): the converted model has no input {missing[0]!r}")
        types = {name: variables[name].dtype for name in inputs}
        unknown = [f"{name}: {kind}" for name, kind in types.items() if str(kind) not in _NUMPY]
        if unknown:
            raise MnnError(f"MNN load: an input of a type numpy cannot feed ({unknown[0]})")
        return _Loaded(module, types)
    finally:
        for path in (source, converted):
            path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            folder.rmdir()


def _printed(call: Callable[[], T]) -> tuple[T | None, str]:
    """What `call` returns (None where it raised: MNN's Python layer raises SystemError with
    its reason printed, not in the exception) and what it printed on stdout and stderr, on
    one line."""
    with tempfile.TemporaryFile() as caught, _output_to(caught.fileno()):
        try:
            returned: T | None = call()
            raised = ""
        except Exception as exc:
            returned, raised = None, f"{type(exc).__name__}: {_one_line(str(exc))}"
        printed = _read(caught)
    return returned, _reasons(printed, raised)


def _read(caught: Any) -> str:
    caught.seek(0)
    return str(caught.read().decode("utf-8", "replace"))


@contextlib.contextmanager
def _output_to(fd: int) -> Iterator[None]:
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        for number, kept in enumerate(saved, start=1):
            os.dup2(kept, number)
            os.close(kept)


def _reasons(printed: str, raised: str) -> str:
    """The converter's and loader's own lines that say something went wrong."""
    lines = [line.strip() for line in printed.splitlines() if line.strip()]
    telling = [line for line in lines if not line.startswith(("Start to", "inputTensors", "outputTensors", "[",
                                                               "Converted Success", "The device supports"))]
    return _one_line(" ".join([*telling[-6:], raised]))


def _one_line(text: str) -> str:
    return " ".join(text.split())[:2000]


RECORD = BackendRecord(
    name="mnn-cpu", runtime="MNN (Alibaba)", packages=("mnn",),
    kernels="CPU, MNN's own kernels, after MNN's converter", kinds=("onnx",), operators=EVERY_OPERATOR,
    isolation="worker", extra="mnn", setup=None, family="hand-written", adapter=Mnn,
)
