"""Why a graph variant of a case did not become a runnable graph. Who refused it decides
the verdict: the suite's own ONNX checks make a skip (the graph is not valid ONNX), a
runtime's graph-building API makes that runtime's verdict (it refused a graph)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class GraphBuildError(Exception):
    """The graph could not be built or did not pass its checks: a skip."""


class CheckerRejected(GraphBuildError):
    """onnx.checker (with full shape inference) rejects the ONNX graph. A skip, except for
    a case that expects an error: that graph is built unchecked and still reaches the
    runtime, and `reason` is recorded beside the runtime's verdict."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"onnx.checker rejects the graph: {reason}")
        self.reason = reason


class RuntimeRefused(Exception):
    """A runtime's own graph-building API (OpenVINO's opset API) raised while the suite
    built the graph: the runtime refused it. Judged like an error the runtime raises at
    run time; the message names the API and carries the runtime's text."""

    def __init__(self, api: str, text: str) -> None:
        super().__init__(f"{api} refused the graph: {' '.join(text.split())}")
        self.api = api


def built_by(api: str, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`function(*args, **kwargs)`, a call of a runtime's graph-building API named `api`; what it
    raises (its own checks: shape inference, attribute rules) is RuntimeRefused."""
    try:
        return function(*args, **kwargs)
    except Exception as exc:
        raise RuntimeRefused(api, f"{type(exc).__name__}: {exc}") from exc
