"""What every ONNX Runtime backend shares: a session pinned to one execution provider, no
CPU fall-back, and ONNX Runtime's own record of which provider each node was given to."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import onnx
from onnx import helper

from conformance.backends.base import Availability, Backend, Execution, Graph, PlacementError
from conformance.backends.compiled import Compiled
from conformance.ops.registry import by_onnx_op_type

FALLBACK_REFUSED = "fallback to CPU EP has been explicitly disabled"
IDENTITY_WRAPPING = "identity-before-topk"


def ort_module() -> Any:
    import onnxruntime

    # Run-time errors become verdicts; ONNX Runtime need not also print them.
    onnxruntime.set_default_logger_severity(4)
    return onnxruntime


def operator_type(model: onnx.ModelProto) -> str:
    """The op type of the graph's operator node (TopK, ArgMax, ...): the node that is not a
    wrapping Identity."""
    return next((node.op_type for node in model.graph.node if node.op_type != "Identity"), "")


def with_identity_before_topk(model: onnx.ModelProto) -> onnx.ModelProto:
    """The same graph with an Identity feeding the operator node's data input. Identity
    copies bits, so values are unchanged; some providers take a node only when it is not the
    graph's first (OpenVINO's declines a graph of three or fewer nodes that starts with TopK)."""
    wrapped = onnx.ModelProto()
    wrapped.CopyFrom(model)
    graph = wrapped.graph
    topk = next(node for node in graph.node if node.op_type == operator_type(model))
    source = topk.input[0]
    topk.input[0] = f"{source}_identity"
    graph.node.insert(0, helper.make_node("Identity", [source], [topk.input[0]], name="identity"))
    onnx.checker.check_model(wrapped, full_check=True)
    return wrapped


@dataclass(frozen=True)
class _Opened:
    session: Any
    wrapping: str  # IDENTITY_WRAPPING where the provider took the graph behind an Identity only
    elsewhere: dict[str, str] = field(default_factory=dict)  # a model's selection nodes on another provider


class OrtBackend(Backend):
    """A backend on one ONNX Runtime execution provider."""

    provider: str  # e.g. "CPUExecutionProvider"
    package_hint: str  # the wheel that brings the provider
    # Offer a declined one-node graph again behind an Identity (OpenVINO's provider needs it).
    retry_behind_identity = True
    # What ONNX Runtime says as it refuses a session because the provider did not take a node.
    declined_markers: tuple[str, ...] = (FALLBACK_REFUSED,)

    def provider_options(self) -> dict[str, str]:
        return {}

    def session_providers(self) -> list[tuple[str, dict[str, str]]] | None:
        """InferenceSession's `providers`: this provider with its options (None where the
        session options name the provider, as a plugin provider's devices do)."""
        return [(self.provider, self.provider_options())]

    def session_options(self, cpu_fallback: bool = False) -> Any:
        """The options of every session; `cpu_fallback` (a user's whole model) lets ONNX Runtime
        place what this provider declines on its CPU provider, as it does for any model."""
        options = ort_module().SessionOptions()
        options.log_severity_level = 4  # errors become verdicts; warnings are not results
        options.add_session_config_entry("session.record_ep_graph_assignment_info", "1")
        # Idle intra-op threads block instead of spinning: a worker keeps up to 64 sessions
        # (graph reuse) and shares the machine with other workers (--jobs); the spinning
        # threads of idle sessions made opening another take 20-100 ms instead of 0.4 ms.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if self.provider != "CPUExecutionProvider" and not cpu_fallback:
            # Refuse to build a session in which any node falls back to the CPU provider.
            options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
        return options

    def availability(self) -> Availability:
        try:
            ort = ort_module()
        except ImportError as exc:
            return Availability(False, f"onnxruntime is not installed ({exc}); install {self.package_hint}")
        have = ort.get_available_providers()
        if self.provider not in have:
            return Availability(
                False,
                f"{self.provider} is not in this onnxruntime {ort.__version__} build "
                f"(has {', '.join(have)}); it comes with {self.package_hint}",
            )
        return Availability(True)

    def describe(self) -> dict[str, str]:
        ort = ort_module()
        return {"device": self.provider, "onnxruntime": ort.__version__, "package": self.package_hint}

    # Sessions kept between runs (conformance/backends/compiled.py): per graph signature where graph
    # reuse is on, else the last graph's only (a repeated case's runs share one session).
    _sessions: Compiled[_Opened] | None = None

    def __getstate__(self) -> dict[str, Any]:
        # A worker process opens its own sessions.
        return {**self.__dict__, "_sessions": None}

    def close(self) -> None:
        self._sessions = None

    def run(self, graph: Graph) -> Execution:
        if self._sessions is None:
            self._sessions = Compiled()
        opened = self._sessions.get(graph)
        if opened is None:
            opened = self._sessions.put(graph, self._open_model(graph.model) if graph.variant.op == "model"
                                        else self._open(graph.model))
        try:
            with self.executing():
                arrays = opened.session.run(None, graph.feeds)
        except Exception:
            self._sessions.isolate(graph, opened)
            raise
        return Execution.named(graph.outputs, arrays, placement=self.provider, wrapping=opened.wrapping,
                               elsewhere=opened.elsewhere)

    def _open_model(self, model: onnx.ModelProto) -> _Opened:
        """A session for a user's whole model, as ONNX Runtime places it: the selection nodes
        it put on another provider (its CPU fallback) are named, not proven away."""
        ort = ort_module()
        with self.compiling():
            session = ort.InferenceSession(model.SerializeToString(), self.session_options(cpu_fallback=True),
                                           providers=self.session_providers())
        judged = by_onnx_op_type()
        try:
            subgraphs = session.get_provider_graph_assignment_info()
        except Exception:  # no record of placement: every node is said to have run elsewhere than proven
            return _Opened(session, "", {"*": "unknown (onnxruntime reported no node placement)"}
                           if self.provider != "CPUExecutionProvider" else {})
        elsewhere = {node.name: sub.ep_name for sub in subgraphs for node in sub.get_nodes()
                     if node.op_type in judged and sub.ep_name != self.provider}
        return _Opened(session, "", elsewhere)

    def _open(self, model: onnx.ModelProto) -> _Opened:
        """A session for the graph, placement proven; where the provider declines the graph
        alone, one for the same TopK behind an Identity."""
        op_type = operator_type(model)
        try:
            return _Opened(self._session(model, wrapping=""), "")
        except Exception as exc:
            if not any(marker in str(exc) for marker in self.declined_markers) \
                    or self.provider == "CPUExecutionProvider":
                raise
            if not self.retry_behind_identity:
                raise PlacementError(f"{self.provider} declined the {op_type} node") from None
        # The provider declined the one-node graph: hand it TopK behind an Identity.
        wrapped = with_identity_before_topk(model)
        try:
            return _Opened(self._session(wrapped, IDENTITY_WRAPPING), IDENTITY_WRAPPING)
        except Exception as exc:
            if FALLBACK_REFUSED in str(exc):
                raise PlacementError(
                    f"{self.provider} declined the {op_type} node, alone and behind an Identity"
                ) from None
            raise

    def _session(self, model: onnx.ModelProto, wrapping: str) -> Any:
        ort = ort_module()
        with self.compiling():
            session = ort.InferenceSession(
                model.SerializeToString(), self.session_options(),
                providers=self.session_providers(),
                # Keep a wrapping Identity: removing it would hand the provider one node again.
                disabled_optimizers=["EliminateIdentity"] if wrapping else None,
            )
            self.check_placement(session, operator_type(model))
        return session

    def check_placement(self, session: Any, op_type: str = "TopK") -> None:
        """ONNX Runtime's assignment record must put the operator's node on this provider."""
        try:
            subgraphs = session.get_provider_graph_assignment_info()
        except AttributeError:
            raise PlacementError(
                f"onnxruntime {ort_module().__version__} cannot report node placement "
                "(no get_provider_graph_assignment_info)"
            ) from None
        except Exception as exc:  # e.g. the session was built without the recording entry
            raise PlacementError(
                f"onnxruntime did not report node placement: {' '.join(str(exc).split())}"
            ) from None
        placed_on = {sub.ep_name for sub in subgraphs for node in sub.get_nodes() if node.op_type == op_type}
        if placed_on != {self.provider}:
            raise PlacementError(f"{op_type} was assigned to {sorted(placed_on) or 'no provider'}, not {self.provider}")
