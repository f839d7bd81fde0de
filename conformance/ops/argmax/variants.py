"""ArgMax / ArgMin graph variants: ONNX at opsets 1, 11, 12 and 13 (read by ONNX Runtime, the
reference evaluator and OpenVINO's ONNX frontend, which lowers them to TopK-11 with k = 1),
and DirectML's own DML_OPERATOR_ARGMAX / ARGMIN and DML_OPERATOR_REDUCE. Neither has K:
results' `k_source` is `none`."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import onnx.defs

from conformance.operator.attributes import graph_name, runs_on_case
from conformance.operator.interfaces import GraphKind
from conformance.ops.argmax import profiles
from conformance.ops.argmax.case import Case
from conformance.ops.argmax.profiles import Profile

NAMES = {"argmax": "ArgMax", "argmin": "ArgMin"}
# DirectML's operators: its own ARGMAX / ARGMIN, and REDUCE with the ARGMAX / ARGMIN function.
OWN, REDUCE = 1, 0


@cache
def onnx_versions(name: str) -> tuple[int, ...]:
    """The versions of ONNX's ArgMax (ArgMin) the installed `onnx` defines: (1, 11, 12, 13)."""
    versions = {s.since_version for s in onnx.defs.get_all_schemas_with_history() if s.name == name and s.domain == ""}
    return tuple(sorted(v for v in versions if v <= onnx.defs.onnx_opset_version()))


@dataclass(frozen=True)
class Variant:
    op: str  # argmax | argmin
    kind: GraphKind
    version: int  # ONNX opset; DirectML: OWN or REDUCE
    # ONNX only: the node writes only the attributes that are not the opset's defaults, for
    # the cases with `attributes: minimal` (contract section 7); graph `onnx-opset<N>-minimal`.
    minimal: bool = False

    @property
    def graph(self) -> str:
        if self.kind == "onnx":
            return graph_name(f"onnx-opset{self.version}", self.minimal)
        return f"directml-{self.op}" if self.version == OWN else "directml-reduce"

    @property
    def k_label(self) -> str:
        return "none"

    @property
    def x_shape(self) -> str:
        return "static"

    @property
    def label(self) -> str:
        return f"{self.graph}-{self.k_label}"

    def runs_on(self, case: Case) -> bool:
        return case.op == self.op and runs_on_case(self.kind, self.minimal, case)

    def cannot_express(self, case: Case) -> str | None:
        name = NAMES[self.op]
        if self.kind == "onnx":
            if len(case.axes) != 1:
                return f"ONNX {name} reduces one axis (DirectML's Axes may be several)"
            if case.index_type is not None:
                return f"ONNX {name} indices are always int64 (index_type is DirectML's)"
            if case.select_last_index and self.version < 12:
                return f"ONNX {name}-{self.version} has no select_last_index (added in opset 12)"
            if case.dtype_name == "bfloat16" and self.version < 13:
                return f"ONNX {name}-{self.version} has no bfloat16 (added in opset 13)"
            return None
        if case.dtype_name == "bfloat16":
            return "DirectML has no bfloat16 tensor type"
        if not case.keepdims:
            return "DirectML keeps the reduced axes (size 1): it has no keepdims=0"
        if len(set(case.reduced)) != len(case.reduced):
            return "DirectML's Axes must not repeat an axis"
        if self.version == REDUCE and case.select_last_index:
            return "DML_OPERATOR_REDUCE has no AxisDirection: it selects the first of equal values"
        return None

    def profile(self, case: Case) -> Profile:
        if self.kind == "onnx":
            return profiles.onnx(NAMES[self.op], self.version, case.select_last_index)
        operator = self.op.upper() if self.version == OWN else f"REDUCE {self.op.upper()}"
        return profiles.directml(operator, directml_index_type(case), case.select_last_index)


def directml_index_type(case: Case) -> str:
    """DirectML's output tensor type: the case's index_type, else UINT32 (the examples')."""
    return case.index_type or "uint32"


def variants(op: str) -> list[Variant]:
    """Every variant of ArgMax or ArgMin, in the order results are given."""
    onnx = [Variant(op, "onnx", v) for v in onnx_versions(NAMES[op])]
    minimal = [Variant(op, "onnx", v, minimal=True) for v in onnx_versions(NAMES[op])]
    return onnx + minimal + [Variant(op, "directml", OWN), Variant(op, "directml", REDUCE)]
