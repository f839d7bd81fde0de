"""What the two Wine backends share: a bridge kept for the worker's life, and a
known-answer proof before any result. Under Wine a broken translation layer returns
success and untouched outputs (docs/semantics.md, DirectML under Wine), so a bridge that does
not reproduce the DirectML answer on inputs with ties never produces a result row."""

from __future__ import annotations

import contextlib
from abc import abstractmethod
from typing import Any

from conformance.backends.base import Availability, Backend, BackendCrash, Execution, Graph
from conformance.backends.wine.bridge import Bridge, BridgeRefused
from conformance.backends.wine.environment import WineSetup, default_setup, translation_layer
from conformance.ops.registry import OPERATORS

# Why its results carry no compile and execution times (the summary's time table says it):
# bridge.exe opens (or reuses) the session and runs it within one request, and says nothing of
# either part; timing the request whole would pass Wine's and the pipe's time off as DirectML's.
UNTIMED = ("compilation and execution are one request to bridge.exe under Wine, which does not time "
           "them apart (`total` holds both)")


class ProofFailed(RuntimeError):
    """The bridge ran, but not to the known answer."""


# Where both Wine backends' kernels run (their records' `kernels`).
WINE_KERNELS = "Vulkan shaders on Mesa lavapipe (a CPU Vulkan), DirectML's own, through Wine's Direct3D 12"


class BridgedBackend(Backend):
    """A backend whose runs go through bridge.exe under Wine."""

    def __init__(self, setup: WineSetup | None = None) -> None:
        self.setup = setup or default_setup()
        self._status: Availability | None = None
        self._info: dict[str, str] = {}
        self._bridge: Bridge | None = None

    def __getstate__(self) -> dict[str, Any]:
        # A worker process starts (and proves) its own bridge.
        return {**self.__dict__, "_bridge": None}

    @abstractmethod
    def query(self, bridge: Bridge) -> dict[str, str]:
        """Ask the bridge what it runs (versions, device); raise when it cannot run."""

    @abstractmethod
    def run_on(self, bridge: Bridge, graph: Graph) -> Execution:
        """One graph on this bridge."""

    def availability(self) -> Availability:
        if self._status is None and self._bridge is not None and self._bridge.alive:
            self._status = Availability(True)  # warm_up started and proved it in this process
        if self._status is None:
            missing = self.setup.missing()
            if missing:
                self._status = Availability(False, missing)
            else:
                try:
                    self._started().close()
                    self._status = Availability(True)
                except (ProofFailed, BridgeRefused, BackendCrash, OSError, RuntimeError) as exc:
                    self._status = Availability(False, str(exc))
                self._bridge = None
        return self._status

    def describe(self) -> dict[str, str]:
        return {**self._info, **translation_layer(), "timing": UNTIMED}

    def bridge(self) -> Bridge:
        """The proven bridge of this process, started (and proven) on first use or after
        a crash."""
        if self._bridge is None or not self._bridge.alive:
            self._bridge = self._started()
        return self._bridge

    def _started(self) -> Bridge:
        bridge = Bridge(self.setup)
        try:
            bridge.start()
            self._info = self.query(bridge)
            self._prove(bridge)
        except BaseException:
            bridge.close()
            raise
        return bridge

    def _prove(self, bridge: Bridge) -> None:
        """Every operator's known-answer inputs (its record's `proof`) through the variants of
        the dialects this backend runs, each judged a pass before any result is given."""
        for operator in (OPERATORS[name] for name in self.operators_taken() if name in OPERATORS):
            for case, variant in [pair for kind in self.kinds for pair in operator.proof(kind)]:
                graph = operator.build(case, variant)
                execution = self.run_on(bridge, graph)
                verdict = operator.judge(case, variant.profile(case), execution.outputs_named(graph.outputs))
                if verdict.verdict != "pass":
                    raise ProofFailed(
                        f"the bridge failed its known-answer proof ({case.id}, {variant.graph}): "
                        f"{verdict.verdict}: {verdict.message or 'wrong output'}; the Wine/vkd3d layer "
                        "returns wrong results here, so no result of this backend could be vouched for"
                    )

    def warm_up(self) -> None:
        # Wine, the device and the proof take seconds: not part of the first case's time.
        with contextlib.suppress(Exception):  # raised again, as a result, by the first run
            self.bridge()

    def close(self) -> None:
        if self._bridge is not None:
            self._bridge.close()
            self._bridge = None

    def run(self, graph: Graph) -> Execution:
        return self.run_on(self.bridge(), graph)
