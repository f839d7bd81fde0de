"""The LiteRT host: a process in the LiteRT environment's own Python (`setup litert`), driven by
the litert-cpu backend's worker. It converts ONNX graphs with onnx2tf and runs the .tflite
models it writes with LiteRT's interpreter, one request at a time, so that TensorFlow and onnx2tf
load once per worker, not once per graph.

It imports nothing of the suite (the suite is not installed in that environment) except the
worker's network and installer guard, loaded from its file. Requests and replies are JSON lines
on stdin and on the stdout this process starts with; arrays travel as .npy files in a folder
the worker names; everything the converter or TensorFlow print goes to stderr, which the worker
reads back when this process dies.

    {"describe": true}                          -> {"versions": {...}}
    {"convert": ONNX, "folder": F, "keep": [..]} -> {"model": TFLITE, "seconds": s}
    {"run": TFLITE, "feeds": {name: NPY}, "outputs": [name, ...], "folder": F}
                                                -> {"outputs": [NPY, ...], "seconds": s}
    any failure                                 -> {"error": "stage: Type: message"}
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
import traceback
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np


def _guard(offline_py: str) -> None:
    spec = importlib.util.spec_from_file_location("topk_conformance_offline", offline_py)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load the network guard from {offline_py}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.forbid_network_and_installs()


def _versions() -> dict[str, str]:
    return {name: metadata.version(name) for name in ("onnx2tf", "ai-edge-litert", "tensorflow", "onnx")}


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:2000]


def _convert(request: dict[str, Any]) -> dict[str, Any]:
    import onnx2tf

    source, folder = Path(request["convert"]), Path(request["folder"])
    started = time.perf_counter()
    try:
        # Default options, but the graph's input shapes kept as ONNX has them (-kat): onnx2tf
        # otherwise moves the channel axis of rank-3 to rank-5 inputs last, for images.
        onnx2tf.convert(input_onnx_file_path=str(source), output_folder_path=str(folder), non_verbose=True,
                        keep_shape_absolutely_input_names=list(request["keep"]) or None,
                        output_signaturedefs=True)
    except BaseException as exc:  # onnx2tf ends a refused graph with sys.exit(1) after printing why
        if isinstance(exc, KeyboardInterrupt):
            raise
        return {"error": f"onnx2tf convert: {_one_line(exc)}", "seconds": time.perf_counter() - started}
    written = folder / f"{source.stem}_float32.tflite"
    if not written.is_file():
        return {"error": "onnx2tf convert: no float32 .tflite model written", "seconds": time.perf_counter() - started}
    return {"model": str(written), "seconds": time.perf_counter() - started}


def _interpreter(path: str) -> Any:
    from ai_edge_litert.interpreter import Interpreter

    return Interpreter(model_path=path)


def _run(request: dict[str, Any]) -> dict[str, Any]:
    try:
        runner = _interpreter(request["run"]).get_signature_runner()
        inputs = runner.get_input_details()
        outputs = runner.get_output_details()
    except Exception as exc:
        return {"error": f"LiteRT load: {_one_line(exc)}"}
    missing = [name for name in request["feeds"] if name not in inputs]
    missing += [name for name in request["outputs"] if name not in outputs]
    if missing:
        return {"error": f"LiteRT load: the converted model has no tensor named {missing[0]!r} "
                         f"(inputs {sorted(inputs)}, outputs {sorted(outputs)})"}
    folder = Path(request["folder"])
    try:
        # Fed as the converted model's input types, as a user must (float16 becomes float32).
        feeds = {name: np.ascontiguousarray(np.load(path, allow_pickle=False).astype(inputs[name]["dtype"]))
                 for name, path in request["feeds"].items()}
        started = time.perf_counter()
        returned = runner(**feeds)  # resizes an input whose shape differs, then invokes
        seconds = time.perf_counter() - started
        written = []
        for at, name in enumerate(request["outputs"]):
            path = folder / f"output{at}.npy"
            np.save(path, np.asarray(returned[name]), allow_pickle=False)
            written.append(str(path))
    except Exception as exc:
        return {"error": f"LiteRT run: {_one_line(exc)}"}
    return {"outputs": written, "seconds": seconds}


def main() -> None:
    offline_py = sys.argv[1]
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # what the converter and TensorFlow print is not the protocol
    sys.stdout = sys.stderr
    _guard(offline_py)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            if "describe" in request:
                reply: dict[str, Any] = {"versions": _versions()}
            elif "convert" in request:
                reply = _convert(request)
            else:
                reply = _run(request)
        except Exception as exc:  # the host's own failure: said, and the host goes on
            traceback.print_exc()
            reply = {"error": f"LiteRT host: {_one_line(exc)}"}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


if __name__ == "__main__":
    main()
