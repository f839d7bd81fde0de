"""What the stages read of an operator's case, graph variant and profile. Each operator's
folder has its own classes; these protocols name the part every stage may rely on."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np

GraphKind = Literal["onnx", "openvino", "directml"]  # the graph dialects


class Case(Protocol):
    """A loaded case: the fields every operator's cases share (contract sections 3 and 6)."""

    @property
    def id(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def file(self) -> Path: ...
    @property
    def x(self) -> np.ndarray[Any, Any]: ...
    @property
    def tags(self) -> tuple[str, ...]: ...
    @property
    def expect_error(self) -> bool: ...
    @property
    def graphs(self) -> tuple[str, ...]: ...
    @property
    def repeat(self) -> int: ...
    @property
    def input_spec(self) -> dict[str, Any]: ...
    @property
    def op(self) -> str: ...
    @property
    def dtype_name(self) -> str: ...
    @property
    def axis_index(self) -> int:
        """The axis its outputs' sequences run along (messages number sequences by it)."""
    @property
    def attributes(self) -> str:
        """`all` or `minimal` (contract section 7): whether its ONNX graphs write every
        attribute or only those whose values are not the opset's defaults
        (conformance/operator/attributes.py)."""


class Profile(Protocol):
    """The promises of one dialect for one case, as the operator's judge applies them."""

    @property
    def label(self) -> str: ...


class Variant(Protocol):
    """One way a case becomes a graph: a dialect (`kind`), its operator version, and how
    the graph takes its inputs."""

    @property
    def op(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def graph(self) -> str:
        """The `graph` field of a result (contract section 4)."""
    @property
    def k_label(self) -> str:
        """The `k_source` field of a result."""
    @property
    def x_shape(self) -> str: ...
    @property
    def label(self) -> str:
        """Tells the operator's variants apart (graph and k_source)."""

    def runs_on(self, case: Any) -> bool: ...
    def cannot_express(self, case: Any) -> str | None: ...
    def profile(self, case: Any) -> Any: ...


def variant_key(variant: Variant) -> str:
    """A variant's name among every operator's: the operator and the variant's label."""
    return f"{variant.op}:{variant.label}"
