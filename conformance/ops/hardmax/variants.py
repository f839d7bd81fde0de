"""Hardmax graph variants: ONNX Hardmax at opsets 1, 11 and 13 (read by ONNX Runtime, the
reference evaluator, tract and OpenVINO's ONNX frontend, which lowers it to TopK-11 with
k = 1 and OneHot, behind a Reshape for opsets 1 and 11), each with its minimal twin
(`attributes: minimal`), and DirectML's own DML_OPERATOR_ACTIVATION_HARDMAX and
ACTIVATION_HARDMAX1. No K: results' `k_source` is `none`.

What a row is depends on the graph (contract section 7): Hardmax-1 and -11 coerce the input
to 2-D at `axis` (a row is every dimension from `axis` on, flattened); Hardmax-13 chooses along
one axis; HARDMAX along the last dimension of an input of effective rank <= 2; HARDMAX1 along
`Axes`, flattened in order. A case's integer `axis` is the ONNX attribute (each opset reads
it its own way) and, for DirectML, the one axis HARDMAX1 takes; a list names the rows
themselves, which a graph expresses only where its rows are those."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import onnx.defs

from conformance.operator.attributes import graph_name, runs_on_case
from conformance.operator.interfaces import GraphKind
from conformance.ops.hardmax import profiles
from conformance.ops.hardmax.case import Case, canonical
from conformance.ops.hardmax.profiles import Profile

NAME = "Hardmax"
HARDMAX, HARDMAX1 = 0, 1  # DirectML's operators, as the variant's version
# The opsets whose Hardmax coerces the input to 2-D (1 and 11); from 13, one axis.
ONE_AXIS_FROM = 13


@cache
def onnx_versions() -> tuple[int, ...]:
    """The versions of ONNX's Hardmax the installed `onnx` defines: (1, 11, 13)."""
    versions = {s.since_version for s in onnx.defs.get_all_schemas_with_history() if s.name == NAME and s.domain == ""}
    return tuple(sorted(v for v in versions if v <= onnx.defs.onnx_opset_version()))


def default_axis(opset: int) -> int:
    """The schema's default axis: 1 for opsets 1 and 11, -1 from 13."""
    return -1 if opset >= ONE_AXIS_FROM else 1


def effective_rank(shape: tuple[int, ...]) -> int:
    """DirectML's effective rank: the dimension count without the leftmost dimensions of size 1."""
    leading = next((d for d, size in enumerate(shape) if size != 1), len(shape))
    return len(shape) - leading


@dataclass(frozen=True)
class Variant:
    kind: GraphKind
    version: int  # ONNX opset; DirectML: HARDMAX or HARDMAX1
    minimal: bool = False  # ONNX only: the node leaves out attributes at their default (section 7)
    op = "hardmax"

    @property
    def graph(self) -> str:
        if self.kind == "onnx":
            return graph_name(f"onnx-opset{self.version}", self.minimal)
        return "directml-hardmax" if self.version == HARDMAX else "directml-hardmax1"

    @property
    def k_label(self) -> str:
        return "none"

    @property
    def x_shape(self) -> str:
        return "static"

    @property
    def label(self) -> str:
        return f"{self.graph}-{self.k_label}"

    @property
    def operator(self) -> str:
        return "ACTIVATION_HARDMAX" if self.version == HARDMAX else "ACTIVATION_HARDMAX1"

    def runs_on(self, case: Case) -> bool:
        return case.op == self.op and runs_on_case(self.kind, self.minimal, case)

    def onnx_axis(self, case: Case) -> int | None:
        """The node's axis: the case's integer axis, the opset's default where the case has
        none, for a list the axis whose rows are those; None where no axis gives them."""
        written = case.axis_written
        if written is None:
            return default_axis(self.version)
        if isinstance(written, int):
            return written
        rank = case.x.ndim
        wanted = canonical(case.x.shape, case.own_rows)
        if self.version >= ONE_AXIS_FROM:
            candidates = list(range(rank))
            found = [a for a in candidates if canonical(case.x.shape, (a,)) == wanted]
        else:
            found = [a for a in range(rank + 1) if canonical(case.x.shape, tuple(range(a, rank))) == wanted]
        # The list's own first axis where it is one of them, so that the graph reads as written.
        first = min(case.own_axes)
        return first if first in found else (found[0] if found else None)

    def row_axes(self, case: Case) -> tuple[int, ...]:
        """Where this graph chooses for the case (counted from the front, sorted)."""
        rank = case.x.ndim
        if self.kind == "onnx":
            axis = self.onnx_axis(case)
            assert axis is not None, "row_axes asked of a graph that cannot express the case"
            axis = axis + rank if axis < 0 else axis
            return tuple(range(axis, rank)) if self.version < ONE_AXIS_FROM else (axis,)
        if self.version == HARDMAX:
            return (rank - 1,)
        return case.own_rows

    def cannot_express(self, case: Case) -> str | None:
        if self.kind == "onnx":
            return self._onnx_cannot_express(case)
        if case.dtype_name == "bfloat16":
            return "DirectML has no bfloat16 tensor type"
        if not case.axes_in_range:
            return "DirectML's Axes are UINTs below the dimension count: an axis out of range has no value there"
        if len(set(case.own_axes)) != len(case.own_axes):
            return "DirectML's Axes must not repeat an axis"
        if self.version == HARDMAX:
            if effective_rank(case.x.shape) > 2:
                return (f"DML_ACTIVATION_HARDMAX needs an input of effective rank <= 2; {list(case.x.shape)} has "
                        f"{effective_rank(case.x.shape)}")
            if canonical(case.x.shape, case.own_rows) != canonical(case.x.shape, (case.x.ndim - 1,)):
                return "DML_ACTIVATION_HARDMAX chooses along the last dimension only (it has no axis)"
        return None

    def _onnx_cannot_express(self, case: Case) -> str | None:
        if case.dtype_name not in profiles.ONNX_DTYPES | {"bfloat16"}:
            return f"ONNX Hardmax takes float16, float and double (13: bfloat16), not {case.dtype_name}"
        if case.dtype_name == "bfloat16" and self.version < 13:
            return f"ONNX Hardmax-{self.version} has no bfloat16 (added in opset 13)"
        written = case.axis_written
        if isinstance(written, list):
            if not case.axes_in_range or len(set(case.own_axes)) != len(case.own_axes):
                return "ONNX Hardmax has one axis: a list of axes is DirectML HARDMAX1's"
            if self.onnx_axis(case) is None:
                rows = "one axis" if self.version >= ONE_AXIS_FROM else "the axes from `axis` on, flattened"
                return (f"ONNX Hardmax-{self.version} chooses along {rows}: no axis gives the rows "
                        f"{list(case.own_rows)} of {list(case.x.shape)}")
        if written is None and self.version < ONE_AXIS_FROM and case.x.ndim < 2:
            return f"ONNX Hardmax-{self.version}'s default axis 1 is out of range for a rank-1 input"
        return None

    def profile(self, case: Case) -> Profile:
        axes = self.row_axes(case) if case.axes_in_range else ()
        if self.kind == "onnx":
            axis = self.onnx_axis(case)
            shown = None if self.minimal and axis == default_axis(self.version) else axis
            return profiles.onnx(self.version, shown, axes)
        return profiles.directml(self.operator, axes)


def variants() -> list[Variant]:
    """Every Hardmax variant, in the order results are given."""
    onnx = [Variant("onnx", v) for v in onnx_versions()]
    minimal = [Variant("onnx", v, minimal=True) for v in onnx_versions()]
    return onnx + minimal + [Variant("directml", HARDMAX), Variant("directml", HARDMAX1)]
