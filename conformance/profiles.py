"""Dialect profiles: what each of the three documents promises about a TopK output."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from conformance.dtypes import INDEX_DTYPES
from conformance.oracle import Order

Dialect = Literal["onnx", "openvino", "directml"]


@dataclass(frozen=True)
class Profile:
    dialect: Dialect
    order: Order  # the output order the dialect promises
    strict_ties: bool  # lowest-indexed ties selected at the boundary and listed first
    index_dtype: np.dtype[Any]
    label: str  # for messages: "ONNX sorted=1", "OpenVINO sort=index stable=true"

    def k_defined(self, k: int, n: int) -> bool:
        """Whether the dialect defines a result for this K (else the domain is undefined)."""
        if self.dialect == "onnx":
            return 0 <= k <= n
        if self.dialect == "openvino":
            return 1 <= k <= n
        # DML_TOP_K(1): "K must be greater than 0, but less than the number of elements".
        return 1 <= k < n


def onnx(sorted_: bool) -> Profile:
    # ONNX: "the element with the lower index will appear first" for equal values; this
    # binds the selection whatever `sorted` says, and the order only when sorted=1.
    return Profile(
        "onnx", "value" if sorted_ else "none", True, INDEX_DTYPES["int64"],
        f"ONNX sorted={int(sorted_)}",
    )


def openvino(sort: Order, stable: bool, index_type: str = "int32") -> Profile:
    # `stable` "takes effect only if the sort attribute is set to value or index".
    strict = stable and sort != "none"
    label = f"OpenVINO sort={sort}" + (f" stable={str(stable).lower()}" if sort != "none" else "")
    return Profile("openvino", sort, strict, INDEX_DTYPES[index_type], label)


def directml(index_type: str = "uint32") -> Profile:
    return Profile("directml", "value", True, INDEX_DTYPES[index_type], "DirectML TOP_K1")
