"""Dialect profiles: what each of the three documents promises about a TopK output."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from conformance.core.dtypes import INDEX_DTYPES
from conformance.ops.topk.oracle import Order

Dialect = Literal["onnx", "openvino", "directml"]


@dataclass(frozen=True)
class Profile:
    dialect: Dialect
    order: Order  # the output order the dialect promises
    strict_ties: bool  # lowest-indexed ties selected at the boundary and listed first
    index_dtype: np.dtype[Any]
    label: str  # for messages: "ONNX sorted=1", "OpenVINO sort=index stable=true"
    # Data types and ranks the document defines a result for (None: any).
    defined_dtypes: frozenset[str] | None = None
    defined_ranks: tuple[int, int] | None = None
    defined_index_dtypes: frozenset[str] | None = None

    def k_defined(self, k: int, n: int) -> bool:
        """Whether the dialect defines a result for this K (else the domain is undefined)."""
        if self.dialect in ("onnx", "openvino"):
            # ONNX: K is "a single positive value"; OpenVINO: K in [1, n].
            return 1 <= k <= n
        # DML_TOP_K(1): "K must be greater than 0, but less than the number of elements".
        return 1 <= k < n


    def defines(self, dtype: str, rank: int) -> bool:
        """Whether the document's tensor-support rules cover this input and index type."""
        if self.defined_dtypes is not None and dtype not in self.defined_dtypes:
            return False
        if self.defined_ranks is not None and not self.defined_ranks[0] <= rank <= self.defined_ranks[1]:
            return False
        return self.defined_index_dtypes is None or str(self.index_dtype) in self.defined_index_dtypes


# DML_TOP_K and DML_TOP_K1 tensor support, DML_FEATURE_LEVEL_5_0 and above (the newest
# table of both documents): 1 to 8 dimensions; UINT32 or UINT64 indices.
DIRECTML_DTYPES = frozenset({
    "float32", "float16", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8",
})
DIRECTML_RANKS = (1, 8)
DIRECTML_INDEX_DTYPES = frozenset({"uint32", "uint64"})


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


def directml(index_type: str = "uint32", operator: str = "TOP_K1") -> Profile:
    return Profile(
        "directml", "value", True, INDEX_DTYPES[index_type], f"DirectML {operator}",
        DIRECTML_DTYPES, DIRECTML_RANKS, DIRECTML_INDEX_DTYPES,
    )
