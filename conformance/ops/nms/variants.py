"""NonMaxSuppression graph variants (contract section 8): ONNX NonMaxSuppression at opsets 10
and 11, its optional inputs (cap, IoU threshold, score threshold) as constants or as graph inputs,
or left out where the case leaves all of them out, each with its minimal twin (`attributes:
minimal`: center_point_box written only where it is 1); OpenVINO's native NonMaxSuppression-5
and -9, sort_result_descending each way where the case leaves it open, output_type i64, with the
same sources. DirectML has no such operator: its one variant, `directml-nms`, skips every case
saying so, so that a DirectML backend's results say why it has none."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from conformance.operator.attributes import graph_name, runs_on_case
from conformance.operator.interfaces import GraphKind
from conformance.ops.nms import profiles
from conformance.ops.nms.case import Case
from conformance.ops.nms.profiles import Profile

Source = Literal["constant", "input", "none"]
ONNX_OPSETS = (10, 11)
OPENVINO_VERSIONS = (5, 9)


@dataclass(frozen=True)
class Variant:
    op: ClassVar[str] = "nms"
    kind: GraphKind
    version: int  # ONNX opset, or OpenVINO's NonMaxSuppression version
    source: Source  # how the cap and thresholds reach the graph (results' k_source)
    sort_descending: bool | None = None  # OpenVINO only
    minimal: bool = False  # ONNX only: center_point_box left out where it is 0

    @property
    def graph(self) -> str:
        if self.kind == "onnx":
            return graph_name(f"onnx-opset{self.version}", self.minimal)
        if self.kind == "directml":
            return "directml-nms"
        return f"openvino-nms{self.version}-{'sorted' if self.sort_descending else 'unsorted'}"

    @property
    def k_label(self) -> str:
        return self.source

    @property
    def x_shape(self) -> str:
        return "static"

    @property
    def label(self) -> str:
        return f"{self.graph}-{self.k_label}"

    def runs_on(self, case: Case) -> bool:
        if case.op != self.op or not runs_on_case(self.kind, self.minimal, case):
            return False
        if self.kind == "directml":
            return True
        if (self.source == "none") != (not case.inputs_given):
            return False  # "none" is the graph of a case that gives none of the optional inputs
        return self.kind != "openvino" or case.sort_result_descending in (None, self.sort_descending)

    def cannot_express(self, case: Case) -> str | None:
        if self.kind == "directml":
            return "DirectML has no NonMaxSuppression operator (DML_OPERATOR_TYPE lists none)"
        # What runs_on leaves out, said for a caller that runs every variant (the fuzzer).
        if (self.source == "none") != (not case.inputs_given):
            return ("the case gives the cap or a threshold: its graphs take them" if case.inputs_given
                    else "the case gives neither the cap nor a threshold: its graph leaves all three out")
        if self.kind == "openvino" and case.sort_result_descending not in (None, self.sort_descending):
            return f"the case asks for sort_result_descending {str(case.sort_result_descending).lower()}"
        if self.kind == "onnx" and case.dtype_name not in profiles.ONNX_DTYPES:
            return f"ONNX NonMaxSuppression takes float boxes and scores only, not {case.dtype_name}"
        if self.kind == "openvino" and case.dtype_name not in profiles.OPENVINO_DTYPES:
            return f"OpenVINO NonMaxSuppression takes floating-point boxes and scores, not {case.dtype_name}"
        return None

    def profile(self, case: Case) -> Profile:
        if self.kind != "openvino":
            return profiles.onnx(self.version)
        return profiles.openvino(self.version, bool(self.sort_descending))


def variants() -> list[Variant]:
    """Every NonMaxSuppression variant, in the order results are given."""
    sources: tuple[Source, ...] = ("constant", "input", "none")
    onnx = [Variant("onnx", v, s) for v in ONNX_OPSETS for s in sources]
    minimal = [Variant("onnx", v, s, minimal=True) for v in ONNX_OPSETS for s in sources]
    native = [Variant("openvino", v, s, sort_descending=d) for v in OPENVINO_VERSIONS for d in (False, True)
              for s in sources]
    return onnx + minimal + native + [Variant("directml", 0, "none")]
