"""`ort-web-wasm` and `ort-web-webgpu`: ONNX graphs on ONNX Runtime Web, the npm package
`setup web` installs. wasm: ONNX Runtime's CPU kernels built for WebAssembly, in Node.
webgpu: its WebGPU execution provider's WGSL shaders, in headless Chromium on whatever
WebGPU adapter the browser offers (SwiftShader, a CPU Vulkan, where there is no GPU).

Placement is proved per graph from ONNX Runtime's own log ("All nodes placed on [...]"):
a node on any provider but the backend's (under WebGPU, a fall-back to the wasm kernels,
which ONNX Runtime Web does silently) is a PlacementError naming where it went."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

import onnx

from conformance.backends.base import (
    EVERY_OPERATOR,
    Availability,
    Backend,
    BackendCrash,
    Execution,
    Graph,
    PlacementError,
)
from conformance.backends.ort_session import operator_type
from conformance.backends.record import BackendRecord
from conformance.backends.web import protocol, provision
from conformance.backends.web.browser_host import BrowserHost, NoAdapter
from conformance.backends.web.environment import PACKAGE, VERSION, WebSetup, default_setup
from conformance.backends.web.hosts import Host, Hung
from conformance.backends.web.node_host import NodeHost
from conformance.ops.registry import by_onnx_op_type


class OrtWebBackend(Backend):
    provider: str  # ONNX Runtime's name of the provider the operator's node must be placed on

    def __init__(self, setup: WebSetup | None = None) -> None:
        self.setup = setup or default_setup()
        self._host: Host | None = None
        self._status: Availability | None = None
        self._info: dict[str, str] = {}
        # Placement lines come at session creation only: kept per model for the runs that
        # reuse its session.
        self._placed: dict[str, list[str]] = {}

    def __getstate__(self) -> dict[str, Any]:
        # A worker process starts its own Node or Chromium.
        return {**self.__dict__, "_host": None, "_placed": {}}

    @abstractmethod
    def missing(self) -> str:
        """What is not installed for this backend, or ""."""

    @abstractmethod
    def new_host(self) -> Host:
        """A host not yet started."""

    @abstractmethod
    def described(self, host: Host) -> dict[str, str]:
        """describe()'s fields, from a started host."""

    def availability(self) -> Availability:
        if self._status is None:
            missing = self.missing()
            if missing:
                self._status = Availability(False, missing)
            else:
                try:
                    self.host()  # kept for this process's runs
                    self._status = Availability(True)
                except (NoAdapter, BackendCrash, OSError, RuntimeError) as exc:
                    self._status = Availability(False, str(exc))
        return self._status

    def describe(self) -> dict[str, str]:
        return dict(self._info)

    def isa(self) -> str:
        # WebAssembly's and WGSL's arithmetic is the same on every CPU; what the WebGPU answers
        # depend on is the adapter, which describe() names.
        return ""

    def host(self) -> Host:
        """This process's host, started on first use or after a crash."""
        if self._host is None or not self._host.alive:
            self._placed.clear()  # a fresh host opens fresh sessions
            host = self.new_host()
            host.start()
            self._host = host
            self._info = self.described(host)
        return self._host

    def warm_up(self) -> None:
        # Node or Chromium takes about a second to start: not part of the first case's time.
        try:
            self.host()
        except Exception:  # raised again, as a result, by the first run
            self._host = None

    def close(self) -> None:
        if self._host is not None:
            self._host.close()
            self._host = None

    def run(self, graph: Graph) -> Execution:
        model = graph.model
        if graph.signature:
            # Graph reuse: graphs equal up to their name (`topk_<case id>`) share one session.
            model = onnx.ModelProto()
            model.CopyFrom(graph.model)
            model.graph.name = "graph"
        request = protocol.request(model, graph.feeds)
        # A user's model may take longer than a case's graph: a hang and its retry within its limit.
        answer, lines, retried = self._asked(request, graph.time_limit * 0.45 or None)
        logged = protocol.placement_lines(lines)  # only where this request opened the session
        placed = logged or self._placed.get(request["key"], [])
        if placed:
            self._placed[request["key"]] = placed
        elsewhere: dict[str, str] = {}
        try:
            if graph.variant.op == "model":  # a user's whole model: its selection nodes' placement, named
                elsewhere = self.elsewhere(placed, model)
                placement = self.provider
            else:
                placement = self.check_placement(placed, operator_type(model), "error" in answer)
            if answer.get("stage") in ("compiling", "running"):
                self.failed_while(str(answer["stage"]))
            reply = protocol.reply(answer)
        except (PlacementError, protocol.WebRefused) as exc:
            if retried:
                raise type(exc)(f"{exc}; {retried}") from None
            raise
        self.timed_elsewhere(reply.compile_seconds, reply.run_seconds, int(bool(logged)))
        placement = f"{placement}; {retried}" if retried else placement
        return Execution.named(graph.outputs, reply.arrays, placement=placement, elsewhere=elsewhere)

    def elsewhere(self, placed: list[str], model: onnx.ModelProto) -> dict[str, str]:
        """The model's selection op types (`op:TopK`) the log puts on another provider, or
        says nothing of: their nodes' answers are not this provider's."""
        providers = protocol.placements(placed) or {}
        judged = by_onnx_op_type()
        present = {node.op_type for node in model.graph.node if node.op_type in judged}
        found = {}
        for op_type in sorted(present):
            where = providers.get(op_type) or providers.get("*") or set()
            if where != {self.provider}:
                found[f"op:{op_type}"] = ", ".join(sorted(where)) or "a provider ONNX Runtime Web's log does not name"
        return found

    def _asked(self, request: dict[str, Any], seconds: float | None) -> tuple[dict[str, Any], list[str], str]:
        """The host's reply, the log lines and a note: a request whose host hung is asked once
        more of a fresh host (the note says so). Seen here: now and then a graph gets no
        answer from Chromium under load, a different graph each run and none twice; a hang
        that repeats is the runtime's, a crash."""
        try:
            return (*self.host().call(request, seconds), "")
        except Hung as first:
            try:
                answer, lines = self.host().call(request, seconds)
            except Hung as second:
                raise Hung(f"{second}, as it did on the host before ({first})") from None
            return answer, lines, f"answered by a fresh host; the one before hung ({first})"

    def check_placement(self, placed: list[str], op_type: str, failed: bool) -> str:
        """The placement field for a graph whose log has these placement lines; PlacementError
        where the operator's node went to another provider, or (for a graph that ran) where
        the log says nothing of it."""
        providers = protocol.placements(placed) or {}
        where = providers.get(op_type) or providers.get("*") or set()
        if where and where != {self.provider}:
            fallback = " (the wasm kernels)" if "CPUExecutionProvider" in where else ""
            raise PlacementError(f"{op_type} fell back to {', '.join(sorted(where))}{fallback}, not {self.provider}: "
                                 + "; ".join(placed))
        if not where and not failed:
            raise PlacementError(f"ONNX Runtime Web logged no placement of the {op_type} node")
        return f"{self.provider} ({'; '.join(placed)})" if placed else self.provider


class OrtWebWasm(OrtWebBackend):
    # ONNX Runtime Web's wasm backend is ONNX Runtime's CPU provider, compiled to WebAssembly.
    provider = "CPUExecutionProvider"

    def missing(self) -> str:
        return self.setup.node_missing()

    def new_host(self) -> Host:
        return NodeHost(self.setup)

    def described(self, host: Host) -> dict[str, str]:
        assert isinstance(host, NodeHost)
        versions = host.versions
        return {
            "device": "WebAssembly (ONNX Runtime Web's wasm execution provider, in Node.js)",
            "onnxruntime-web": versions.get("web", "?"), "package": f"npm {PACKAGE} {VERSION}",
            "node": versions.get("node", "?"), "v8": versions.get("v8", "?"),
        }


class OrtWebWebGpu(OrtWebBackend):
    provider = "WebGpuExecutionProvider"

    def missing(self) -> str:
        return self.setup.browser_missing()

    def new_host(self) -> Host:
        return BrowserHost(self.setup)

    def described(self, host: Host) -> dict[str, str]:
        assert isinstance(host, BrowserHost)
        adapter = host.info.get("adapter") or {}
        versions = host.info.get("versions") or {}
        named = ", ".join(f"{key} {adapter.get(key) or '-'}" for key in ("vendor", "architecture", "description"))
        return {
            "device": f"WebGPU adapter: {named} (Chromium {host.browser_version}, headless)",
            "adapter_vendor": str(adapter.get("vendor", "")),
            "adapter_architecture": str(adapter.get("architecture", "")),
            "adapter_description": str(adapter.get("description", "")),
            "browser": f"Chromium {host.browser_version}", "user_agent": str(versions.get("userAgent", "")),
            "onnxruntime-web": str(versions.get("web", "?")), "package": f"npm {PACKAGE} {VERSION}",
            "playwright": _playwright_version(),
        }


def _playwright_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("playwright")
    except metadata.PackageNotFoundError:
        return "?"


WASM = BackendRecord(
    name="ort-web-wasm", runtime="ONNX Runtime Web (wasm execution provider), in Node.js", packages=(PACKAGE,),
    kernels="WebAssembly, ONNX Runtime's CPU kernels compiled to wasm, in Node.js", kinds=("onnx",),
    operators=EVERY_OPERATOR, isolation="host process", extra=None, setup=provision.SETUP, adapter=OrtWebWasm,
)
WEBGPU = BackendRecord(
    name="ort-web-webgpu", runtime="ONNX Runtime Web (WebGPU execution provider), in headless Chromium",
    packages=(PACKAGE,), kernels="WebGPU shaders in headless Chromium (Dawn; SwiftShader where there is no GPU)",
    kinds=("onnx",), operators=EVERY_OPERATOR, isolation="browser", extra="web", setup=provision.SETUP,
    family="shaders", adapter=OrtWebWebGpu,
    no_kernel=("nms",),  # no NonMaxSuppression kernel: ONNX Runtime Web runs the node on its wasm kernels
    # float16 needs shader-f16, and an adapter may flush subnormals: the answers are the adapter's.
    depends_on=("adapter_vendor", "adapter_architecture"),
)
