"""`tract`: Sonos's tract (a Rust inference engine) through its Python bindings (the `tract`
package, the `[tract]` extra). ONNX graphs go through tract's own ONNX loader, as a user of
the bindings runs a model: `tract.onnx().load(path)`, each input's fact (element type and
shape) set from the case, `into_model()` (typed and decluttered), `into_runnable()`
(optimized, on tract's default CPU runtime) and `run()`.

- Input facts: the type and shape of the array the case feeds, except that a dimension the
  graph declares symbolic stays that symbol (X's dynamic-shape variants: tract must type the
  graph with symbols and resolve them at run time). K fed as an input keeps its fact `1,i64`
  and its value arrives with the run, as X does.
- Where tract refuses a graph (at loading, typing, optimizing or running), its own message is
  the result's, without the backtrace its errors carry when RUST_BACKTRACE is set.
- Outputs are read as tract gives them: its element type and shape, the bytes copied out
  unconverted (float16 as its bits), never cast to what the graph declares."""

from __future__ import annotations

import contextlib
import ctypes
import os
import tempfile
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import numpy as np
import onnx

from conformance.backends.base import EVERY_OPERATOR, Availability, Backend, Execution, Graph, WorkerLaunch
from conformance.backends.compiled import Compiled
from conformance.backends.install_hint import extra_hint
from conformance.backends.record import BackendRecord

PACKAGE = "tract"
PINNED = "0.23.9"  # constraints.txt; the version tests/baselines/tract.yaml was recorded with
INSTALL_HINT = extra_hint("tract", f"tract=={PINNED}")  # an editable install's command only in a checkout
# Where tract's error text stops being its message: anyhow appends the backtrace it captured.
BACKTRACE = "Stack backtrace:"

# tract's element types (tract.DatumType values) as numpy dtypes, and numpy's as tract's fact
# mnemonics. bfloat16 is in neither: tract has no such type.
_NUMPY_OF_DATUM: dict[int, np.dtype[Any]] = {
    0x01: np.dtype(np.bool_),
    0x11: np.dtype(np.uint8), 0x12: np.dtype(np.uint16), 0x14: np.dtype(np.uint32), 0x18: np.dtype(np.uint64),
    0x21: np.dtype(np.int8), 0x22: np.dtype(np.int16), 0x24: np.dtype(np.int32), 0x28: np.dtype(np.int64),
    0x32: np.dtype(np.float16), 0x34: np.dtype(np.float32), 0x38: np.dtype(np.float64),
}
_FACT_TYPES: dict[np.dtype[Any], str] = {
    np.dtype(np.bool_): "bool",
    np.dtype(np.uint8): "u8", np.dtype(np.uint16): "u16", np.dtype(np.uint32): "u32", np.dtype(np.uint64): "u64",
    np.dtype(np.int8): "i8", np.dtype(np.int16): "i16", np.dtype(np.int32): "i32", np.dtype(np.int64): "i64",
    np.dtype(np.float16): "f16", np.dtype(np.float32): "f32", np.dtype(np.float64): "f64",
}


class TractInputError(RuntimeError):
    """A feed that tract's Python API cannot take (no tract element type for it)."""


def tract_module() -> Any:
    import tract

    return tract


def tract_message(exc: BaseException) -> str:
    """tract's message of an error, without the backtrace anyhow may have appended."""
    return str(exc).split(BACKTRACE, 1)[0].rstrip()


@dataclass(frozen=True)
class _Prepared:
    runnable: Any
    inputs: tuple[str, ...]  # the graph inputs in tract's order: the feeds' names
    placement: str  # the runtime that prepared it, as tract names it ("tract cpu")


class Tract(Backend):
    # Runnables kept between runs (conformance/backends/compiled.py): per graph signature with graph
    # reuse, else the last graph's only.
    _runnables: Compiled[_Prepared] | None = None

    def __getstate__(self) -> dict[str, Any]:
        # A worker process prepares its own runnables.
        return {**self.__dict__, "_runnables": None}

    def availability(self) -> Availability:
        try:
            tract = tract_module()
            tract.version()
        except ImportError as exc:
            return Availability(False, f"tract is not installed ({exc}); {INSTALL_HINT}")
        except Exception as exc:  # the package is there but its native library does not load
            return Availability(False, f"tract cannot load: {type(exc).__name__}: {' '.join(str(exc).split())}")
        return Availability(True)

    def describe(self) -> dict[str, str]:
        tract = tract_module()
        runtime = tract.runtime_for_name("default").name()
        info = {"device": f"tract {runtime} (default runtime)", "tract": tract.version()}
        with contextlib.suppress(metadata.PackageNotFoundError):
            info["package"] = f"{PACKAGE} {metadata.version(PACKAGE)}"
        return info

    def worker_launch(self) -> WorkerLaunch | None:
        # tract's errors are anyhow errors: with RUST_BACKTRACE set, each one captures a backtrace
        # into its message (cut anyway: not capturing saves the time), and a panic (a crash
        # result) prints one to the terminal, some 40 lines; its one-line message stays.
        return WorkerLaunch(env={"RUST_LIB_BACKTRACE": "0", "RUST_BACKTRACE": "0"})

    def close(self) -> None:
        self._runnables = None

    def run(self, graph: Graph) -> Execution:
        tract = tract_module()
        if self._runnables is None:
            self._runnables = Compiled()
        prepared = self._runnables.get(graph)
        if prepared is None:
            prepared = self._runnables.put(graph, self._prepare(graph))
        tensors = [_tensor(tract, name, graph.feeds[name]) for name in prepared.inputs]
        try:
            with self.executing():
                outputs = prepared.runnable.run(tensors)
        except Exception as exc:
            self._runnables.isolate(graph, prepared)
            raise _refusal(tract, exc) from None
        if len(outputs) != len(graph.outputs):
            raise RuntimeError(f"tract returned {len(outputs)} outputs; the graph has {len(graph.outputs)}")
        return Execution.named(graph.outputs, [_array(t) for t in outputs], placement=prepared.placement)

    def _prepare(self, graph: Graph) -> _Prepared:
        """The graph loaded by tract's ONNX loader, its input facts set, typed and optimized."""
        tract = tract_module()
        model: onnx.ModelProto = graph.model
        declared = {value.name: value for value in model.graph.input}
        try:
            with self.compiling():
                inference = _load(tract, model.SerializeToString())
                names = tuple(inference.input_name(i) for i in range(inference.input_count()))
                for position, name in enumerate(names):
                    if name not in graph.feeds:
                        raise RuntimeError(f"tract reads a graph input {name!r} the graph is not fed")
                    inference.set_input_fact(position, input_fact(graph.feeds[name], declared.get(name)))
                runnable = inference.into_model().into_runnable()  # tract's default runtime
        except tract.TractError as exc:
            raise _refusal(tract, exc) from None
        return _Prepared(runnable, names, f"tract {tract.runtime_for_name('default').name()}")


def _load(tract: Any, serialized: bytes) -> Any:
    """tract's ONNX loader on the model's bytes (the bindings load from a path only)."""
    handle, path = tempfile.mkstemp(suffix=".onnx", prefix="topk-tract-")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(serialized)
        return tract.onnx().load(path)
    finally:
        os.unlink(path)


def input_fact(feed: np.ndarray[Any, Any], declared: onnx.ValueInfoProto | None) -> str:
    """tract's fact of one input, `2,X_dim1,f32`: the feed's element type and dimensions, each
    dimension the graph declares as a symbol kept as that symbol."""
    if feed.dtype not in _FACT_TYPES:
        raise TractInputError(f"tract has no element type for {feed.dtype.name} (a feed of the graph)")
    dims: list[str] = [str(d) for d in feed.shape]
    if declared is not None and declared.type.HasField("tensor_type"):
        shape = declared.type.tensor_type.shape
        for axis, dim in enumerate(shape.dim[: len(dims)]):
            if dim.HasField("dim_param"):
                dims[axis] = dim.dim_param
    return ",".join([*dims, _FACT_TYPES[feed.dtype]])


def _tensor(tract: Any, name: str, feed: np.ndarray[Any, Any]) -> Any:
    if feed.dtype not in _FACT_TYPES:
        raise TractInputError(f"tract has no element type for {feed.dtype.name} (the feed {name!r})")
    return tract.Tensor.from_numpy(feed)


def _array(tensor: Any) -> np.ndarray[Any, Any]:
    """An output as tract holds it: its element type, shape and bytes, copied."""
    datum, shape, data = tensor._parts()  # the bindings' own (type, shape, data pointer)
    dtype = _NUMPY_OF_DATUM.get(int(datum))
    if dtype is None:
        raise RuntimeError(f"tract returned an output of element type {datum!s}, which numpy cannot carry")
    count = int(np.prod(shape, dtype=np.int64))
    raw = ctypes.string_at(data, count * dtype.itemsize) if count else b""
    return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()


def _refusal(tract: Any, exc: BaseException) -> BaseException:
    """tract's error with its own message, the backtrace left out."""
    if isinstance(exc, tract.TractError):
        cut: BaseException = tract.TractError(tract_message(exc))
        return cut
    return exc


RECORD = BackendRecord(
    name="tract", runtime="tract (Sonos), through its Python bindings", packages=("tract",),
    kernels="CPU, tract's own Rust kernels", kinds=("onnx",), operators=EVERY_OPERATOR,
    isolation="worker", extra="tract", setup=None, adapter=Tract,
)
