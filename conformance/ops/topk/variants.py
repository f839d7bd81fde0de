"""Graph variants: the ways one case becomes a graph (dialect, operator version, where K
comes from and in what type, static or symbolic input dimensions), which of them can
express a case, and the profile each is judged by."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cache
from typing import ClassVar, Literal

import onnx.defs

from conformance.operator.attributes import graph_name, runs_on_case
from conformance.operator.interfaces import GraphKind
from conformance.ops.topk import profiles
from conformance.ops.topk.case import Case
from conformance.ops.topk.profiles import Profile

KSource = Literal["constant", "input", "attribute"]

_ONNX_FLOATS = ("float16", "float32", "float64")

# OpenVINO's integer element types, as OpenVINO names them: (bits, signed). TopK's spec
# takes K as "a scalar of any integer type"; OpenVINO's TopK node accepts every type whose
# `is_integral_number()` holds, which also says yes for nf4 (a 4-bit normal-float format)
# and string, neither an integer type: those two are left out. i64 is the K of the plain
# `constant` and `input` variants.
OPENVINO_K_TYPES: dict[str, tuple[int, bool]] = {
    "i4": (4, True), "i8": (8, True), "i16": (16, True), "i32": (32, True),
    "u1": (1, False), "u2": (2, False), "u3": (3, False), "u4": (4, False), "u6": (6, False),
    "u8": (8, False), "u16": (16, False), "u32": (32, False), "u64": (64, False),
}
DYNAMIC_SHAPE = "dynamic-shape"  # the k_source suffix of graphs whose input dims are symbolic
# The cases OpenVINO's K-type variants (K in u1 ... u64, i4 ... i32) run on: those about K
# itself. On the whole corpus their verdicts were fixed by K's type alone (u1, u2, u3 and u6
# refused, every other type as i64), never by the case's data, so running them on every
# case made half of openvino-cpu's graph runs and told nothing new (docs/semantics.md).
K_TYPE_TAGS = frozenset({"documented", "k_type", "k_zero", "k_too_large", "k_negative"})


@cache
def onnx_topk_versions() -> tuple[int, ...]:
    """ONNX TopK versions the installed `onnx` defines: (1, 10, 11, 24) with onnx 1.23."""
    versions = {
        schema.since_version
        for schema in onnx.defs.get_all_schemas_with_history()
        if schema.name == "TopK" and schema.domain == ""
    }
    return tuple(sorted(v for v in versions if v <= onnx.defs.onnx_opset_version()))


@dataclass(frozen=True)
class Variant:
    op: ClassVar[str] = "topk"
    kind: GraphKind
    version: int  # ONNX opset, OpenVINO TopK version, DirectML TOP_K1 (1) or TOP_K (0)
    k_source: KSource
    stable: bool | None = None  # OpenVINO TopK-11 only
    # OpenVINO's element type of K where it is not i64 (native TopK-11 stable=true only).
    k_type: str = ""
    # Every dimension of X symbolic in the graph (ONNX opset 11 only); else all fixed.
    dynamic: bool = False
    # ONNX only: the node writes only the attributes that are not the opset's defaults, for
    # the cases with `attributes: minimal` (contract section 7); graph `onnx-opset<N>-minimal`.
    minimal: bool = False

    @property
    def graph(self) -> str:
        """The `graph` field of a result (contract section 4)."""
        if self.kind == "onnx":
            return graph_name(f"onnx-opset{self.version}", self.minimal)
        if self.kind == "directml":
            return "directml-topk1" if self.version == 1 else "directml-topk"
        suffix = "" if self.stable is None else ("-stable" if self.stable else "-unstable")
        return f"openvino-topk{self.version}{suffix}"

    @property
    def k_label(self) -> str:
        """The `k_source` field of a result: where K comes from (`attribute`, `constant`,
        `input`), with a suffix where the variant differs in how else the graph takes its
        inputs: K's element type (`input-u8`) or symbolic dimensions of X
        (`constant-dynamic-shape`). With the graph name it tells every variant apart."""
        if self.k_type:
            return f"{self.k_source}-{self.k_type}"
        if self.dynamic:
            return f"{self.k_source}-{DYNAMIC_SHAPE}"
        return self.k_source

    @property
    def x_shape(self) -> str:
        """The `x_shape` field of a result: `dynamic` where every dimension of X is symbolic."""
        return "dynamic" if self.dynamic else "static"

    @property
    def label(self) -> str:
        return f"{self.graph}-{self.k_label}"

    def runs_on(self, case: Case) -> bool:
        """Whether the case gets a result from this variant at all (K-type variants run on
        the cases K_TYPE_TAGS names only, minimal ONNX graphs on minimal cases only, the
        usual ONNX graphs on the others); otherwise its row is left out, not skipped."""
        if not runs_on_case(self.kind, self.minimal, case):
            return False
        return not self.k_type or not K_TYPE_TAGS.isdisjoint(case.tags)

    def cannot_express(self, case: Case) -> str | None:
        """Why this graph cannot express the case (a skip), or None."""
        if self.kind == "onnx":
            return _onnx_cannot_express(self.version, case)
        if self.kind == "directml":
            return _directml_cannot_express(self.version, case)
        return _openvino_cannot_express(self, case)

    def profile(self, case: Case) -> Profile:
        if self.kind == "onnx":
            return profiles.onnx(sorted_=case.sort != "none")
        if self.kind == "directml":
            operator = "TOP_K1" if self.version == 1 else "TOP_K"
            return profiles.directml(directml_index_type(case), operator)
        # OpenVINO's default index type is i32 (TopK-1 has no other).
        return profiles.openvino(case.sort, bool(self.stable), case.index_type or "int32")


def _onnx_cannot_express(opset: int, case: Case) -> str | None:
    if case.sort == "index":
        return "ONNX TopK has no sort-by-index order"
    if case.index_type == "int32":
        return "ONNX TopK indices are always int64"
    if opset < 11 and not case.largest:
        return f"ONNX TopK-{opset} selects the largest only (no 'largest' attribute)"
    if opset < 11 and case.sort == "none":
        return f"ONNX TopK-{opset} always sorts (no 'sorted' attribute)"
    if opset < 11 and case.dtype_name not in _ONNX_FLOATS:
        return f"ONNX TopK-{opset} takes float16/float/double only, not {case.dtype_name}"
    if opset < 24 and case.dtype_name == "bfloat16":
        return f"ONNX TopK-{opset} has no bfloat16 (added in opset 24)"
    return None


def _openvino_cannot_express(variant: Variant, case: Case) -> str | None:
    if variant.k_type:
        low, high = k_type_range(variant.k_type)
        if not low <= case.k <= high:
            return f"K = {case.k} does not fit OpenVINO's {variant.k_type} ({low}..{high})"
    if variant.version == 11:
        if case.stable is not None and case.stable != variant.stable:
            return f"the case asks for stable={str(case.stable).lower()}"
        return None
    if case.stable:
        return f"OpenVINO TopK-{variant.version} has no 'stable' attribute"
    if variant.version == 1 and case.index_type == "int64":
        return "openvino.opset1.topk builds TopK-1 with int32 indices only"
    return None


def directml_index_type(case: Case) -> str:
    """DirectML's index tensor for a case: UINT32 by default, UINT64 where the case asks for
    64-bit indices; a case asking for int32 gets INT32, which the documents do not allow,
    to see what DirectML does with it."""
    return {None: "uint32", "int64": "uint64"}.get(case.index_type, case.index_type or "uint32")


def _directml_cannot_express(version: int, case: Case) -> str | None:
    if case.sort == "index":
        return "DirectML orders by value only"
    if version == 0 and not case.largest:
        return "DML_TOP_K selects the largest only (no AxisDirection; TOP_K1 has one)"
    if case.dtype_name == "bfloat16":
        return "DirectML has no bfloat16 tensor type"
    if not 0 <= case.k < 2**32:
        return f"DirectML's K is a UINT; {case.k} does not fit"
    return None


def directml_variants() -> list[Variant]:
    # K is a field of the operator description, as an attribute is.
    return [Variant("directml", 1, "attribute"), Variant("directml", 0, "attribute")]


def k_type_range(k_type: str) -> tuple[int, int]:
    bits, signed = OPENVINO_K_TYPES[k_type]
    return (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)


def onnx_variants() -> list[Variant]:
    variants: list[Variant] = []
    for opset in onnx_topk_versions():
        if opset == 1:
            variants.append(Variant("onnx", 1, "attribute"))
        else:
            variants += [Variant("onnx", opset, "constant"), Variant("onnx", opset, "input")]
        if opset == 11:
            # The same graph with every dimension of X symbolic: shapes known at run time only.
            variants += [Variant("onnx", 11, k_source, dynamic=True) for k_source in ("constant", "input")]
    return variants


def minimal_variants() -> list[Variant]:
    """The ONNX variants' minimal twins, for the cases with `attributes: minimal`. Symbolic
    dimensions are left to the usual graphs: the twins differ from them in attributes only."""
    return [dataclasses.replace(variant, minimal=True) for variant in onnx_variants() if not variant.dynamic]


def openvino_variants() -> list[Variant]:
    variants: list[Variant] = []
    for stable in (True, False):
        variants += [Variant("openvino", 11, "constant", stable), Variant("openvino", 11, "input", stable)]
        if stable:
            # K in every other integer type OpenVINO has, as a constant and as an input.
            variants += [
                Variant("openvino", 11, k_source, True, k_type)
                for k_type in OPENVINO_K_TYPES for k_source in ("constant", "input")
            ]
    for version in (3, 1):
        variants += [Variant("openvino", version, "constant"), Variant("openvino", version, "input")]
    return variants


def all_variants() -> list[Variant]:
    """Every TopK graph variant of every dialect, in the order results are given."""
    return onnx_variants() + minimal_variants() + openvino_variants() + directml_variants()
