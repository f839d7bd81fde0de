"""What each document promises about an ArgMax / ArgMin output (contract section 6)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from conformance.core.dtypes import INDEX_DTYPES

Dialect = Literal["onnx", "directml"]

# DML_ARGMAX / DML_ARGMIN tensor support: FL 3.0 inputs, and FL 4.1's 64-bit ones; 1 to 8
# dimensions; INT64, INT32, UINT64 or UINT32 indices.
DIRECTML_DTYPES = frozenset({
    "float32", "float16", "int32", "int16", "int8", "uint32", "uint16", "uint8", "int64", "uint64",
})
DIRECTML_RANKS = (1, 8)
DIRECTML_INDEX_DTYPES = frozenset({"int64", "int32", "uint64", "uint32"})
# ONNX ArgMax/ArgMin input types: v1 to v12; v13 adds bfloat16.
ONNX_DTYPES = frozenset({
    "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
})


@dataclass(frozen=True)
class Profile:
    dialect: Dialect
    strict_ties: bool  # the first (or, with select_last_index, the last) index of the extreme
    last: bool  # the last index, not the first, where ties are strict
    index_dtype: np.dtype[Any]
    label: str  # "ONNX ArgMax-12 select_last_index=0", "DirectML ARGMAX"
    defined_dtypes: frozenset[str]
    defined_ranks: tuple[int, int] | None = None

    def defines(self, dtype: str, rank: int) -> bool:
        if dtype not in self.defined_dtypes:
            return False
        return self.defined_ranks is None or self.defined_ranks[0] <= rank <= self.defined_ranks[1]


def onnx(name: str, opset: int, select_last_index: bool) -> Profile:
    # Before opset 12 the documents have no tie rule: any index of an extreme value is valid.
    strict = opset >= 12
    label = f"ONNX {name}-{opset}" + (f" select_last_index={int(select_last_index)}" if strict else "")
    dtypes = ONNX_DTYPES | ({"bfloat16"} if opset >= 13 else set())
    return Profile("onnx", strict, select_last_index, INDEX_DTYPES["int64"], label, frozenset(dtypes))


def directml(operator: str, index_type: str, last: bool) -> Profile:
    # AxisDirection: INCREASING selects the first of equal values, DECREASING the last.
    return Profile("directml", True, last, INDEX_DTYPES[index_type], f"DirectML {operator}",
                   DIRECTML_DTYPES, DIRECTML_RANKS)
