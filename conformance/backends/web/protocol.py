"""What the Python side of the two web backends sends and reads (conformance/backends/web/js/session.mjs
is the other end): a request is one JSON object with the model and the inputs as base64, a
reply gives the outputs the same way, or ONNX Runtime Web's error. Also ONNX Runtime's
placement lines, read out of its verbose log."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import onnx

from conformance.backends.base import BackendCrash

# numpy's names for ONNX Runtime Web's tensor types (its JavaScript API has no bfloat16).
TENSOR_TYPES = {
    "float32": "float32", "float64": "float64", "float16": "float16", "int8": "int8", "uint8": "uint8",
    "int16": "int16", "uint16": "uint16", "int32": "int32", "uint32": "uint32", "int64": "int64",
    "uint64": "uint64", "bool": "bool",
}
NUMPY_TYPES = {web: np.dtype(name) for name, web in TENSOR_TYPES.items()}


class WebRefused(RuntimeError):
    """ONNX Runtime Web refused or failed the graph (its own error): an `error` verdict."""


def request(model: onnx.ModelProto, feeds: Mapping[str, np.ndarray[Any, Any]]) -> dict[str, Any]:
    """One request, its outputs asked in the model's order; `key` names the model's bytes,
    so a host keeps one session per model."""
    serialized = model.SerializeToString()
    inputs = []
    for name, array in feeds.items():
        web_type = TENSOR_TYPES.get(array.dtype.name)
        if web_type is None:
            raise WebRefused(f"ONNX Runtime Web's JavaScript API has no {array.dtype.name} tensor (input {name})")
        data = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
        inputs.append({"name": name, "type": web_type, "dims": list(array.shape), "data": _b64(data)})
    return {
        "key": hashlib.sha256(serialized).hexdigest(), "model": _b64(serialized), "inputs": inputs,
        "outputs": [output.name for output in model.graph.output],
    }


@dataclass(frozen=True)
class Reply:
    arrays: list[np.ndarray[Any, Any]]
    compile_seconds: float
    run_seconds: float


def reply(answer: object) -> Reply:
    """The outputs of a reply, in the request's order; WebRefused for ONNX Runtime Web's own
    error, BackendCrash for anything that is not a reply."""
    if not isinstance(answer, dict):
        raise BackendCrash(f"the host sent {type(answer).__name__}, not a reply")
    if "error" in answer:
        raise WebRefused(" ".join(str(answer["error"]).split()))
    try:
        arrays = [_array(output) for output in answer["outputs"]]
        return Reply(arrays, float(answer.get("compile_ms", 0)) / 1000, float(answer.get("run_ms", 0)) / 1000)
    except (KeyError, TypeError, ValueError) as exc:
        raise BackendCrash(f"the host sent a malformed reply ({type(exc).__name__}: {exc})") from None


def _array(output: dict[str, Any]) -> np.ndarray[Any, Any]:
    dtype = NUMPY_TYPES[output["type"]].newbyteorder("<")
    data = base64.b64decode(output["data"])
    return np.frombuffer(data, dtype=dtype).astype(dtype.newbyteorder("="), copy=True).reshape(output["dims"])


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


# ONNX Runtime's verbose log at session creation (session_state.cc, from the function named
# below): "All nodes placed on [P]. Number of nodes: N", or per provider "Node(s) placed on
# [P]. Number of nodes: N" followed by one "<OpType> (<node name>)" line per node.
_SOURCE = "VerifyEachNodeIsAssignedToAnEp]"
_ALL = re.compile(r"All nodes placed on \[(\w+)\]")
_SOME = re.compile(r"Node\(s\) placed on \[(\w+)\]")
_NODE = re.compile(r"^(\w+) \(([^)]*)\)$")


def placement_lines(lines: Iterable[str]) -> list[str]:
    """The log's placement lines, without ONNX Runtime's timestamp and source prefix."""
    kept = []
    for line in lines:
        if _SOURCE in line and "[V:" in line:
            text = " ".join(line.split(_SOURCE, 1)[1].split())
            if text != "Node placements":
                kept.append(text)
    return kept


def placements(lines: Iterable[str]) -> dict[str, set[str]] | None:
    """The providers placement lines (placement_lines) put each op type on ("*": every node),
    or None where there are none."""
    found: dict[str, set[str]] | None = None
    provider = ""  # the provider whose node lines follow
    for line in lines:
        if every := _ALL.search(line):
            found = {**(found or {}), "*": {every.group(1)}}
            provider = ""
        elif some := _SOME.search(line):
            found = found if found is not None else {}
            provider = some.group(1)
        elif provider and found is not None and (node := _NODE.match(line)):
            found.setdefault(node.group(1), set()).add(provider)
        else:
            provider = ""
    return found
