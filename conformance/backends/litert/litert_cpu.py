"""`litert-cpu`: LiteRT (TensorFlow Lite's runtime, `ai-edge-litert`) on the CPU, as a user gets
an ONNX model there: converted by onnx2tf, then run by LiteRT's interpreter with its default
XNNPACK delegate.

- convert: `onnx2tf.convert(...)` with default options, except that the graph's input shapes are
  kept as ONNX gives them (`-kat`, keep_shape_absolutely_input_names): by default onnx2tf moves
  the channel axis of rank-3 to rank-5 inputs last, as for images, and the suite's tensors are
  not images. Its float32 .tflite model is the one run;
- run: `Interpreter(model_path=...)`, through its signature (onnx2tf names it after the ONNX
  graph's inputs and outputs, `output_signaturedefs`), feeds cast to the converted model's input
  types as a user must (a float16 graph becomes float32), outputs read by the ONNX output names
  and judged as they come (a changed type by the `dtype` rule).

Both run in a host process in LiteRT's own environment (environment.py, host.py), one per
worker, so TensorFlow loads once. A refusal is the graph's `error`, its message starting with
the stage (`onnx2tf convert:`, `LiteRT load:`, `LiteRT run:`); a host that dies (LiteRT aborts
the process on K = 0) is that graph's `crash`, and the next graph starts a fresh host."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np
import onnx

from conformance.backends.base import EVERY_OPERATOR, Availability, Backend, BackendCrash, Execution, Graph
from conformance.backends.compiled import Compiled
from conformance.backends.litert import environment
from conformance.backends.pack_functions import fed_inputs
from conformance.backends.record import BackendRecord
from conformance.core import offline, scratch
from conformance.core.processes import die_with_parent

PLACEMENT = "LiteRT CPU (XNNPACK delegate)"
STARTUP_SECONDS = 120.0  # TensorFlow's import, on a busy machine


class LiteRTError(RuntimeError):
    """A stage refused a graph; the message starts with the stage."""


class _Host:
    """The host process (host.py) in LiteRT's environment, and the scratch folder it works in."""

    def __init__(self) -> None:
        self.folder = scratch.folder("litert")
        (self.folder / environment.SAMPLE_IMAGES).symlink_to(environment.sample_images())
        self.log = (self.folder / "host.log").open("w+b")
        # TensorFlow's autograph writes a module file per traced function to the temporary
        # folder and removes them only at a clean exit, which a killed host never has: its
        # temporary folder is this one's, removed with it.
        self.temporary = self.folder / "tmp"
        self.temporary.mkdir()
        env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": "",
               "TMPDIR": str(self.temporary)}
        self.process = subprocess.Popen(
            [str(environment.python()), str(environment.HOST), str(Path(offline.__file__).resolve())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, cwd=self.folder, env=env,
            preexec_fn=die_with_parent,
        )
        self.made = 0  # models converted, each in a folder of its own
        self.said_from = 0  # where in its log the current request's output starts

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        self.said_from = self.log.seek(0, os.SEEK_END)  # what it says from here is about this request
        try:
            stdin.write((json.dumps(request) + "\n").encode())
            stdin.flush()
            line = stdout.readline()
        except OSError:
            line = b""
        if not line:
            raise BackendCrash(self._death())
        reply: dict[str, Any] = json.loads(line)
        return reply

    def _death(self) -> str:
        code = self.process.wait()
        why = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
        return f"LiteRT's process died ({why}): {_tail(self.log, self.said_from)}"

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def _tail(log: IO[bytes], start: int) -> str:
    """The host's last words about the request it died on: the lines that say why (TensorFlow's
    and onnx2tf's own chatter left out)."""
    log.flush()
    log.seek(start)
    lines = [line.strip() for line in log.read().decode("utf-8", "replace").splitlines() if line.strip()]
    chatter = ("WARNING", "INFO", "I0000", "W0000", "E0000", "Saved artifact", "*", "inputs_", "Output Type",
               "List[", "Captures", "None", "Endpoint")
    telling = [line for line in lines if not line.startswith(chatter)]
    return " ".join(" ".join(telling[-4:]).split())[-1000:] or "nothing said"


class LiteRT(Backend):
    _host: _Host | None = None
    _models: Compiled[str] | None = None  # graph -> the .tflite model converted from it

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_host": None, "_models": None}  # a worker starts its own

    def availability(self) -> Availability:
        missing = environment.missing()
        if missing:
            return Availability(False, missing)
        try:
            versions = self._versions()
        except BackendCrash as exc:
            return Availability(False, f"LiteRT's environment does not start: {exc}")
        if versions.get("onnx2tf") != environment.ONNX2TF:
            return Availability(False, f"LiteRT's environment has onnx2tf {versions.get('onnx2tf')}, not "
                                       f"{environment.ONNX2TF}; run: {environment.SETUP_HINT}")
        return Availability(True)

    def describe(self) -> dict[str, str]:
        versions = self._versions()
        return {"device": PLACEMENT, "ai-edge-litert": versions["ai-edge-litert"], "onnx2tf": versions["onnx2tf"],
                "tensorflow": versions["tensorflow"],
                "converter": f"onnx2tf {versions['onnx2tf']} (Python API, default options, input shapes kept: "
                             "-kat), its float32 .tflite model"}

    def warm_up(self) -> None:
        try:
            self._started()
        except Exception:  # the runs report it
            return

    def close(self) -> None:
        if self._host is not None:
            self._host.close()
        self._host, self._models = None, None

    def run(self, graph: Graph) -> Execution:
        host = self._started()
        if self._models is None:
            self._models = Compiled()
        model = self._models.get(graph)
        if model is None:
            model = self._models.put(graph, self._convert(host, graph.model, fed_inputs(graph)))
        try:
            feeds = {name: graph.feeds[name] for name in fed_inputs(graph)}
            arrays = self._invoke(host, model, feeds, [output.name for output in graph.model.graph.output])
        except BackendCrash:
            raise
        except Exception:
            self._models.isolate(graph, model)
            raise
        return Execution.named(graph.outputs, arrays, placement=PLACEMENT)

    def run_pack(self, graphs: Sequence[Graph]) -> list[Execution]:
        """The graphs as one ONNX model (each graph's names prefixed `p<i>_`, so none is shared),
        converted once and run once, per set of opsets (one ONNX model imports one set). A set
        the converter refuses, or whose run raises, leaves its graphs unanswered: they run again
        alone (a refusal then names its own graph), and the other sets are not converted again."""
        host = self._started()
        executions = [Execution.unanswered(PLACEMENT)] * len(graphs)
        for members in _by_opsets(graphs).values():
            keep = [f"p{at}_{name}" for at in members for name in fed_inputs(graphs[at])]
            try:
                path = self._convert(host, _merged({at: graphs[at] for at in members}), keep)
                feeds = {f"p{at}_{name}": graphs[at].feeds[name] for at in members for name in fed_inputs(graphs[at])}
                names = [f"p{at}_{output.name}" for at in members for output in graphs[at].model.graph.output]
                arrays = iter(self._invoke(host, path, feeds, names))
            except LiteRTError:
                continue  # its graphs are unanswered, and go alone: the others are not converted again
            for at in members:
                mine = [next(arrays) for _ in graphs[at].model.graph.output]
                executions[at] = Execution.named(graphs[at].outputs, mine, placement=PLACEMENT)
        return executions

    def _started(self) -> _Host:
        if self._host is None:
            self._host = _Host()
        return self._host

    def _forget(self) -> None:
        """The host died: the next graph starts another (its models are on disk, but a fresh
        host is one a user would have)."""
        self.close()

    def _versions(self) -> dict[str, str]:
        reply = self._started().call({"describe": True})
        versions: dict[str, str] = reply.get("versions", {})
        return versions

    def _convert(self, host: _Host, model: onnx.ModelProto, keep: list[str]) -> str:
        host.made += 1
        folder = host.folder / f"m{host.made}"
        folder.mkdir()
        source = folder / "model.onnx"
        source.write_bytes(model.SerializeToString())
        try:
            reply = host.call({"convert": str(source), "folder": str(folder), "keep": keep})
        except BackendCrash:
            self._forget()
            raise
        self.timed_elsewhere(float(reply.get("seconds", 0.0)), 0.0, 1)
        if "error" in reply:
            raise LiteRTError(f"{reply['error']} (onnx2tf {environment.ONNX2TF})")
        return str(reply["model"])

    def _invoke(self, host: _Host, model: str, feeds: Mapping[str, np.ndarray[Any, Any]],
                outputs: list[str]) -> list[np.ndarray[Any, Any]]:
        folder = Path(model).parent
        paths: dict[str, str] = {}
        for name, array in feeds.items():
            path = folder / f"feed-{len(paths)}.npy"
            np.save(path, _saveable(array), allow_pickle=False)
            paths[name] = str(path)
        try:
            reply = host.call({"run": model, "feeds": paths, "outputs": outputs, "folder": str(folder)})
        except BackendCrash:
            self._forget()
            raise
        if "error" in reply:
            raise LiteRTError(str(reply["error"]))
        self.timed_elsewhere(0.0, float(reply.get("seconds", 0.0)), 0)
        return [np.load(path, allow_pickle=False) for path in reply["outputs"]]


def _by_opsets(graphs: Sequence[Graph]) -> dict[tuple[tuple[str, int], ...], list[int]]:
    """The pack's positions by the opsets their models import (one ONNX model imports one set)."""
    sets: dict[tuple[tuple[str, int], ...], list[int]] = {}
    for at, graph in enumerate(graphs):
        key = tuple(sorted((entry.domain, entry.version) for entry in graph.model.opset_import))
        sets.setdefault(key, []).append(at)
    return sets


def _merged(members: Mapping[int, Graph]) -> onnx.ModelProto:
    """One model holding each graph's nodes, inputs, outputs and initializers, its names prefixed
    `p<i>_`, i its position in the pack (the graphs import the same opsets)."""
    import onnx.compose

    merged = onnx.GraphProto(name="pack")
    for at, graph in members.items():
        own = onnx.compose.add_prefix(graph.model, f"p{at}_")  # a copy: the graph stays as built
        for part in ("node", "input", "output", "initializer", "value_info", "sparse_initializer"):
            getattr(merged, part).extend(getattr(own.graph, part))
    first = next(iter(members.values())).model
    return onnx.helper.make_model(merged, opset_imports=list(first.opset_import),
                                  ir_version=max(graph.model.ir_version for graph in members.values()))


def _saveable(array: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """A feed as a .npy file can carry it: a type numpy has no code for (bfloat16) as float32,
    which holds every value exactly; the host casts to what the converted model takes."""
    if array.dtype.kind == "V" or array.dtype.name == "bfloat16":
        return np.asarray(array, dtype=np.float32)
    return np.ascontiguousarray(array)


RECORD = BackendRecord(
    name="litert-cpu", runtime="LiteRT (TensorFlow Lite), after onnx2tf", packages=("ai-edge-litert", "onnx2tf"),
    kernels="CPU, TensorFlow Lite's builtin kernels and XNNPACK, after onnx2tf's conversion", kinds=("onnx",),
    operators=EVERY_OPERATOR, isolation="host process", extra=None, setup=environment.SETUP,
    family="hand-written", adapter=LiteRT, packs=True, environment=environment.ENVIRONMENT,
    # One conversion per graph costs about half a second beside TensorFlow: run when named.
    by_default=False,
)
