"""Graph variants: the ways one case becomes a graph (dialect, operator version, where K
comes from), which of them can express a case, and the profile each is judged by."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal

import onnx.defs

from conformance import profiles
from conformance.case import Case
from conformance.profiles import Profile

GraphKind = Literal["onnx", "openvino", "directml"]
KSource = Literal["constant", "input", "attribute"]

_ONNX_FLOATS = ("float16", "float32", "float64")


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
    kind: GraphKind
    version: int  # ONNX opset, OpenVINO TopK version, DirectML TOP_K1 (1) or TOP_K (0)
    k_source: KSource
    stable: bool | None = None  # OpenVINO TopK-11 only

    @property
    def graph(self) -> str:
        """The `graph` field of a result (contract section 4)."""
        if self.kind == "onnx":
            return f"onnx-opset{self.version}"
        if self.kind == "directml":
            return "directml-topk1" if self.version == 1 else "directml-topk"
        suffix = "" if self.stable is None else ("-stable" if self.stable else "-unstable")
        return f"openvino-topk{self.version}{suffix}"

    @property
    def label(self) -> str:
        return f"{self.graph}-{self.k_source}"

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


def onnx_variants() -> list[Variant]:
    variants: list[Variant] = []
    for opset in onnx_topk_versions():
        if opset == 1:
            variants.append(Variant("onnx", 1, "attribute"))
        else:
            variants += [Variant("onnx", opset, "constant"), Variant("onnx", opset, "input")]
    return variants


def openvino_variants() -> list[Variant]:
    variants: list[Variant] = []
    for stable in (True, False):
        variants += [Variant("openvino", 11, "constant", stable), Variant("openvino", 11, "input", stable)]
    for version in (3, 1):
        variants += [Variant("openvino", version, "constant"), Variant("openvino", version, "input")]
    return variants
