"""What every ONNX Runtime backend shares: a session pinned to one execution provider,
with the proof, from ONNX Runtime's own profile, of which provider ran the TopK node."""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import onnx

from backends.base import Availability, Backend, Execution, Graph, PlacementError


def ort_module() -> Any:
    import onnxruntime

    return onnxruntime


@dataclass(frozen=True)
class NodePlacement:
    """Profiled node events: (node name, op type, provider)."""

    nodes: list[tuple[str, str, str]] = field(default_factory=list)

    def providers(self) -> set[str]:
        return {provider for _, _, provider in self.nodes}


def profiled_placement(profile_path: Path) -> NodePlacement:
    events = json.loads(profile_path.read_text(encoding="utf-8"))
    nodes = []
    for event in events:
        args = event.get("args", {})
        if event.get("cat") == "Node" and "provider" in args:
            nodes.append((str(event.get("name", "")), str(args.get("op_name", "")), str(args["provider"])))
    return NodePlacement(sorted(set(nodes)))


class OrtBackend(Backend):
    """A backend on one ONNX Runtime execution provider, with no CPU fall-back."""

    kinds = ("onnx",)
    provider: str  # e.g. "CPUExecutionProvider"
    package_hint: str  # the wheel that brings the provider

    def provider_options(self) -> dict[str, str]:
        return {}

    def session_options(self) -> Any:
        options = ort_module().SessionOptions()
        options.log_severity_level = 3  # warnings about old opsets are not results
        if self.provider != "CPUExecutionProvider":
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

    def run(self, graph: Graph) -> Execution:
        return self.run_model(graph.model, graph.feeds, wrapping="")

    def run_model(self, model: onnx.ModelProto, feeds: dict[str, Any], wrapping: str) -> Execution:
        ort = ort_module()
        options = self.session_options()
        with tempfile.TemporaryDirectory(prefix="topk-ort-") as scratch:
            options.enable_profiling = True
            options.profile_file_prefix = str(Path(scratch) / "profile")
            session = ort.InferenceSession(
                model.SerializeToString(), options,
                providers=[(self.provider, self.provider_options())],
            )
            if self.provider not in session.get_providers():
                raise PlacementError(f"the session did not take {self.provider} (has {session.get_providers()})")
            values, indices = session.run(None, feeds)
            placement = profiled_placement(Path(session.end_profiling()))
        self.check_placement(placement)
        return Execution(values, indices, placement=self.provider, wrapping=wrapping)

    def check_placement(self, placement: NodePlacement) -> None:
        """Every profiled node must have run on this provider, and at least one did."""
        if not placement.nodes:
            raise PlacementError("ONNX Runtime's profile shows no node run at all")
        others = placement.providers() - {self.provider}
        if others:
            raise PlacementError(f"nodes ran on {sorted(others)}, not only on {self.provider}: {placement.nodes}")
