"""What each document promises about a Hardmax output (contract section 7): where it chooses
(the row axes, which the variant works out for the case) and which types and ranks it
defines. Every document here takes the first maximum: ties are always strict."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Dialect = Literal["onnx", "directml"]

# ONNX Hardmax-1 and -11: float16, float, double; -13 adds bfloat16.
ONNX_DTYPES = frozenset({"float16", "float32", "float64"})
# DML_ACTIVATION_HARDMAX (FL 3.0 table) and HARDMAX1: FLOAT32, FLOAT16, 1 to 8 dimensions.
DIRECTML_DTYPES = frozenset({"float32", "float16"})
DIRECTML_RANKS = (1, 8)


@dataclass(frozen=True)
class Profile:
    dialect: Dialect
    label: str  # "ONNX Hardmax-11 axis=1 (rows: axes 1..2 flattened)"
    row_axes: tuple[int, ...]  # counted from the front, sorted: where the graph chooses
    defined_dtypes: frozenset[str]
    defined_ranks: tuple[int, int] | None = None

    def defines(self, dtype: str, rank: int) -> bool:
        if dtype not in self.defined_dtypes:
            return False
        return self.defined_ranks is None or self.defined_ranks[0] <= rank <= self.defined_ranks[1]


def rows_text(row_axes: tuple[int, ...]) -> str:
    if len(row_axes) == 1:
        return f"rows along axis {row_axes[0]}"
    return f"rows: axes {', '.join(map(str, row_axes))} flattened"


def onnx(opset: int, axis: int | None, row_axes: tuple[int, ...]) -> Profile:
    written = "axis left out" if axis is None else f"axis={axis}"
    dtypes = ONNX_DTYPES | ({"bfloat16"} if opset >= 13 else set())
    return Profile("onnx", f"ONNX Hardmax-{opset} {written} ({rows_text(row_axes)})", row_axes, frozenset(dtypes))


def directml(operator: str, row_axes: tuple[int, ...]) -> Profile:
    return Profile("directml", f"DirectML {operator} ({rows_text(row_axes)})", row_axes,
                   DIRECTML_DTYPES, DIRECTML_RANKS)
