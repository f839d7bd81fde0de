"""A TopK graph for a case and a variant, in the variant's dialect."""

from __future__ import annotations

from conformance.operator.graph import Graph, checked_onnx_graph
from conformance.ops.topk.case import Case
from conformance.ops.topk.directml import build_directml, directml_feeds
from conformance.ops.topk.onnx import build_onnx, onnx_feeds
from conformance.ops.topk.variants import Variant

OUTPUTS = ("values", "indices")


def build(case: Case, variant: Variant) -> Graph:
    """Raises GraphBuildError, CheckerRejected or RuntimeRefused (OpenVINO's graph API)."""
    if variant.kind == "onnx":
        return _build_onnx(case, variant)
    if variant.kind == "directml":
        return Graph(variant, build_directml(case, variant), directml_feeds(case, variant), outputs=OUTPUTS)
    # OpenVINO loads only where its graphs are built.
    from conformance.ops.topk.openvino import build_openvino, openvino_feed_types, openvino_feeds

    return Graph(variant, build_openvino(case, variant), openvino_feeds(case, variant),
                 feed_types=openvino_feed_types(variant), outputs=OUTPUTS)


def _build_onnx(case: Case, variant: Variant) -> Graph:
    return checked_onnx_graph(variant, lambda check: build_onnx(case, variant, check=check),
                              onnx_feeds(case, variant), OUTPUTS, case.expect_error)
