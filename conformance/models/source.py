"""A user's ONNX model, read within limits, and the inputs it is run on (contract section 9).
The user's file is only read: external data outside the model's folder is refused before
anything of it is read."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import external_data_helper, helper

MAX_BYTES_VARIABLE = "TOPK_CONFORMANCE_MODEL_MAX_BYTES"
DEFAULT_MAX_BYTES = 2 * 1024**3  # the model file and its external data, together
FILLS = ("zeros", "ones", "random", "tiles")
TILE = 8  # the side of the patch `tiles` repeats over an input's last two dimensions


class ModelError(Exception):
    """The model or its inputs cannot be used: the message names the file and what is wrong."""


@dataclass(frozen=True)
class ModelSource:
    path: Path
    sha256: str
    model: onnx.ModelProto  # external data loaded
    opset: int  # of the default domain


def max_bytes() -> int:
    given = os.environ.get(MAX_BYTES_VARIABLE, "")
    if not given:
        return DEFAULT_MAX_BYTES
    if not given.isdigit() or int(given) < 1:
        raise ModelError(f"{MAX_BYTES_VARIABLE}={given!r}: not a whole number of bytes >= 1")
    return int(given)


def read_model(path: Path) -> ModelSource:
    limit = max_bytes()
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ModelError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if size > limit:
        raise ModelError(f"{path}: {size} bytes, more than the {limit} a model may have ({MAX_BYTES_VARIABLE})")
    data = path.read_bytes()
    try:
        model = onnx.load_model_from_string(data)
    except Exception as exc:  # protobuf's DecodeError, or whatever the bytes make of it
        raise ModelError(f"{path}: not an ONNX model ({type(exc).__name__})") from None
    if model.ir_version < 1 or not model.graph.node:
        raise ModelError(f"{path}: not an ONNX model (no IR version or no graph nodes)")
    size += _external_bytes(path, model, limit - size)
    if any(external_data_helper.uses_external_data(t) for t in external_data_helper._get_all_tensors(model)):
        external_data_helper.load_external_data_for_model(model, str(path.parent))
    opset = next((entry.version for entry in model.opset_import if entry.domain in ("", "ai.onnx")), 0)
    return ModelSource(path, hashlib.sha256(data).hexdigest(), model, opset)


def _external_bytes(path: Path, model: onnx.ModelProto, room: int) -> int:
    """The external data files' bytes, each refused (never read) where it lies outside the
    model's folder or is missing, and all together within the limit."""
    folder = path.parent.resolve()
    total = 0
    for tensor in external_data_helper._get_all_tensors(model):
        if not external_data_helper.uses_external_data(tensor):
            continue
        location = next((entry.value for entry in tensor.external_data if entry.key == "location"), "")
        target = (folder / location).resolve()
        if not location or os.path.isabs(location) or not target.is_relative_to(folder):
            raise ModelError(f"{path}: tensor {tensor.name!r}: its external data {location!r} lies outside the "
                             f"model's folder {folder}; refused, nothing of it read")
        try:
            total += target.stat().st_size
        except OSError:
            raise ModelError(f"{path}: tensor {tensor.name!r}: its external data {location!r} is missing") from None
    if total > room:
        raise ModelError(f"{path}: its external data makes it more than the {room} bytes left under "
                         f"{MAX_BYTES_VARIABLE}")
    return total


def parse_shape(text: str) -> tuple[str, int]:
    """`--shape NAME=N`: a symbolic dimension's size."""
    match = re.fullmatch(r"([^=]+)=(\d+)", text)
    if not match:
        raise ValueError(f"{text!r}: give NAME=N, a symbolic dimension and its size")
    return match.group(1), int(match.group(2))


def graph_inputs(model: onnx.ModelProto) -> list[onnx.ValueInfoProto]:
    """The inputs the caller feeds: graph inputs that no initializer gives."""
    given = {initializer.name for initializer in model.graph.initializer}
    return [value for value in model.graph.input if value.name not in given]


def _expected(value: onnx.ValueInfoProto, shapes: Mapping[str, int], where: str) -> tuple[np.dtype[Any],
                                                                                          tuple[int, ...]]:
    tensor = value.type.tensor_type
    if not value.type.HasField("tensor_type"):
        raise ModelError(f"{where}: input {value.name!r} is not a tensor; only tensor inputs can be fed")
    dtype = np.dtype(helper.tensor_dtype_to_np_dtype(tensor.elem_type))
    dims = []
    for position, dim in enumerate(tensor.shape.dim):
        if dim.HasField("dim_value"):
            dims.append(dim.dim_value)
        elif dim.dim_param in shapes:
            dims.append(shapes[dim.dim_param])
        else:
            name = dim.dim_param or f"dimension {position}"
            raise ModelError(f"{where}: input {value.name!r}: its dimension {position} ({name}) is symbolic: give "
                             f"--shape {dim.dim_param or 'NAME'}=N")
    return dtype, tuple(dims)


def read_inputs(source: ModelSource, npz: Path, shapes: Mapping[str, int]) -> dict[str, np.ndarray[Any, Any]]:
    """The inputs from an .npz file, each checked against the model's input of that name."""
    try:
        with np.load(npz, allow_pickle=False) as given:
            arrays = {name: given[name] for name in given.files}
    except Exception as exc:
        raise ModelError(f"{npz}: not a readable .npz file ({type(exc).__name__}: {exc})") from None
    feeds = {}
    for value in graph_inputs(source.model):
        if value.name not in arrays:
            raise ModelError(f"{npz}: no array {value.name!r}, an input of {source.path.name}")
        dtype, shape = _expected(value, {**shapes, **_symbolic_sizes(value, arrays[value.name])}, str(npz))
        array = arrays[value.name]
        if array.dtype != dtype or array.shape != shape:
            raise ModelError(f"{npz}: input {value.name!r} is {array.dtype} {list(array.shape)}; "
                             f"{source.path.name} expects {dtype} {list(shape)}")
        feeds[value.name] = array
    return feeds


def _symbolic_sizes(value: onnx.ValueInfoProto, array: np.ndarray[Any, Any]) -> dict[str, int]:
    """A given array fixes the input's symbolic dimensions (where its rank agrees)."""
    dims = value.type.tensor_type.shape.dim
    if len(dims) != array.ndim:
        return {}
    return {dim.dim_param: size for dim, size in zip(dims, array.shape, strict=True) if dim.dim_param}


def filled_inputs(source: ModelSource, fill: str, seed: int, shapes: Mapping[str, int]) -> dict[str, np.ndarray[Any,
                                                                                                                Any]]:
    """Inputs made for the model: zeros, ones, random (normal floats, small integers) or
    tiles (one random patch repeated over the last two dimensions: the flat, repeating
    inputs on which detectors and classifiers meet equal scores)."""
    rng = np.random.default_rng(seed)
    feeds = {}
    for value in graph_inputs(source.model):
        dtype, shape = _expected(value, shapes, str(source.path))
        feeds[value.name] = _filled(fill, dtype, shape, rng)
    return feeds


def _filled(fill: str, dtype: np.dtype[Any], shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray[Any,
                                                                                                           Any]:
    if fill == "zeros":
        return np.zeros(shape, dtype)
    if fill == "ones":
        return np.ones(shape, dtype)

    def drawn(drawn_shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
        if np.issubdtype(dtype, np.floating):
            return rng.standard_normal(drawn_shape).astype(dtype)
        if dtype == np.bool_:
            return rng.integers(0, 2, drawn_shape).astype(dtype)
        return rng.integers(0, 10, drawn_shape).astype(dtype)

    if fill == "random" or len(shape) < 2:
        return drawn(shape)
    patch = drawn((*shape[:-2], min(TILE, shape[-2]), min(TILE, shape[-1])))
    reps = (-(-shape[-2] // patch.shape[-2]), -(-shape[-1] // patch.shape[-1]))
    return np.ascontiguousarray(np.tile(patch, (*([1] * (len(shape) - 2)), *reps))[..., :shape[-2], :shape[-1]])
