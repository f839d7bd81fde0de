"""Two backends' tensors compared bit for bit, and how they differ in words: for a node's
inputs and outputs, and for the model's own outputs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

Tensors = Sequence[np.ndarray[Any, Any] | None]


def equal(x: Any, y: Any) -> bool:
    """Bit for bit, element type and shape included (None only equals None)."""
    if x is None or y is None:
        return x is None and y is None
    a, b = np.asarray(x), np.asarray(y)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def all_equal(a: Tensors, b: Tensors) -> bool:
    return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=True))


def difference(x: Any, y: Any) -> str:
    """"equal", or how two tensors differ: element types, shapes, or how many elements and by
    how much at most."""
    if x is None or y is None:
        return "equal" if x is None and y is None else "one is missing"
    a, b = np.asarray(x), np.asarray(y)
    if a.dtype != b.dtype:
        return f"element types {a.dtype} and {b.dtype}"
    if a.shape != b.shape:
        return f"shapes {list(a.shape)} and {list(b.shape)}"
    if a.tobytes() == b.tobytes():
        return "equal"
    if not (np.issubdtype(a.dtype, np.number) and a.size):
        return "their elements"
    with np.errstate(invalid="ignore"):
        largest = float(np.nanmax(np.abs(a.astype(np.float64) - b.astype(np.float64))))
    return f"{int(np.count_nonzero(a != b))} of {a.size} elements, by at most {largest:.3g}"


def differences(a: Tensors, b: Tensors) -> str:
    """How tensors given in the same order differ, those that do, "; " apart."""
    return "; ".join(how for x, y in zip(a, b, strict=True) if (how := difference(x, y)) != "equal") or "equal"
