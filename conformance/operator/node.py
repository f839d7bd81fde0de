"""A node of a user's model as it ran (the `model` command, contract section 9): what an
operator's record reads to make the case that node was, so that its own judge can judge the
node's output for the input the node was given."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from conformance.core.dtypes import DTYPES, name_of


class NodeUnreadable(ValueError):
    """The node cannot be made a case (an element type the suite has no name for, an input
    left out that the operator needs): the node is not judged, and the message says why."""


@dataclass(frozen=True)
class NodeCall:
    """The node's attributes (decoded: ints, floats, strings), its inputs in order (None for
    one left out) and the opset of the default domain its model imports."""

    attributes: Mapping[str, Any]
    inputs: tuple[np.ndarray[Any, Any] | None, ...]
    opset: int

    def input(self, position: int) -> np.ndarray[Any, Any] | None:
        return self.inputs[position] if position < len(self.inputs) else None

    def required(self, position: int, name: str) -> np.ndarray[Any, Any]:
        given = self.input(position)
        if given is None:
            raise NodeUnreadable(f"its input {name} was not given")
        return given


def tensor_field(array: np.ndarray[Any, Any], name: str) -> dict[str, Any]:
    """A case's tensor field holding the array itself (the loader takes it as it is)."""
    dtype = name_of(array.dtype)
    if dtype not in DTYPES:
        raise NodeUnreadable(f"its {name} is {array.dtype}, an element type the suite does not judge")
    return {"dtype": dtype, "shape": list(array.shape), "data": np.ascontiguousarray(array)}


def scalar_int(array: np.ndarray[Any, Any], name: str) -> int:
    if array.size != 1:
        raise NodeUnreadable(f"its {name} has {array.size} elements, not one")
    return int(array.reshape(-1)[0])


def scalar_float(array: np.ndarray[Any, Any], name: str) -> float | str:
    """A number as a case field holds it: NaN and the infinities by name."""
    if array.size != 1:
        raise NodeUnreadable(f"its {name} has {array.size} elements, not one")
    value = float(array.reshape(-1)[0])
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value
