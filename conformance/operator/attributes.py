"""`attributes: all | minimal` (contract section 7), the same for every operator. A minimal
case's ONNX graphs carry only the attributes whose values differ from the ONNX default of
that opset, as upstream tests often write a node: a runtime then reads each absent attribute
through code of its own. Such graphs are variants of their own, named `<graph>-minimal`, that
run on minimal cases only, while the usual ONNX variants run on the other cases only; native
OpenVINO and DirectML variants have no defaults to leave out and run on both.

An operator takes part with a `minimal: bool = False` field on its variant, twins of its
ONNX variants with `minimal=True`, and three calls: `graph_name` in `Variant.graph`,
`runs_on_case` in `Variant.runs_on`, `onnx_attributes` where its ONNX node is made."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, Final, Literal

import onnx.defs
from onnx import AttributeProto, helper

from conformance.operator.interfaces import Case

Attributes = Literal["all", "minimal"]
ALL: Final = "all"
MINIMAL: Final = "minimal"
MODES: Final = (ALL, MINIMAL)
MINIMAL_SUFFIX: Final = "-minimal"  # of the `graph` field of a minimal ONNX graph's results


def graph_name(name: str, minimal: bool) -> str:
    """A variant's `graph` field: `onnx-opset13` or, for its minimal twin, `onnx-opset13-minimal`."""
    return name + MINIMAL_SUFFIX if minimal else name


def is_minimal_graph(graph: str) -> bool:
    """Whether a `graph` field names a minimal ONNX graph."""
    return graph.endswith(MINIMAL_SUFFIX)


def runs_on_case(kind: str, minimal: bool, case: Case) -> bool:
    """Whether a variant of this dialect, minimal or not, gives the case a result: a minimal
    case's ONNX graphs are the minimal ones, every other case's the usual ones. A variant
    that does not run on a case has no row for it (not a skip)."""
    return kind != "onnx" or minimal == (case.attributes == MINIMAL)


@cache
def onnx_defaults(op_type: str, opset: int) -> Mapping[str, Any]:
    """The attributes of the ONNX operator at `opset` that have a default, with it (read from
    the installed onnx's schema: TopK's axis -1, ArgMax's keepdims 1, ...)."""
    schema = onnx.defs.get_schema(op_type, opset, "")
    return {
        name: helper.get_attribute_value(attribute.default_value)
        for name, attribute in schema.attributes.items()
        if attribute.default_value.type != AttributeProto.UNDEFINED
    }


def onnx_attributes(op_type: str, opset: int, attributes: Mapping[str, Any], minimal: bool) -> dict[str, Any]:
    """The attributes an ONNX node is made with: all of them, or for a minimal graph those
    whose value is not the default at that opset. Values are compared as written (axis 1 of
    a rank-2 input is kept beside a default of -1: the same axis, another value); a required
    attribute (TopK-1's k) has no default and always stays."""
    if not minimal:
        return dict(attributes)
    defaults = onnx_defaults(op_type, opset)
    return {name: value for name, value in attributes.items() if name not in defaults or defaults[name] != value}
