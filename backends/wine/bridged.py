"""What the two Wine backends share: a bridge kept for the worker's life, and a
known-answer proof before any result. Under Wine a broken translation layer returns
success and untouched outputs (shared/notes/directml-on-wine.md), so a bridge that does
not reproduce the DirectML answer on inputs with ties never produces a result row."""

from __future__ import annotations

import contextlib
from abc import abstractmethod
from pathlib import Path
from typing import Any

import numpy as np

from backends.base import Availability, Backend, BackendCrash, Execution, Graph
from backends.wine.bridge import Bridge, BridgeRefused
from backends.wine.environment import WineSetup, default_setup, translation_layer
from conformance.ops.topk.case import Case
from conformance.ops.topk.judge import Outputs, judge
from conformance.ops.topk.variants import Variant
from conformance.running.runner import GraphCache

# The documented DML_TOP_K1 examples 3 and 4 (ties, both directions, two axes) and a
# tie-heavy 64x1000 input (values 0..3) with K=16: small enough to run in about a second.
_DOCUMENTED_TIES = np.array([[[[1, 2, 2, 3], [3, 4, 5, 5], [6, 6, 6, 6]]]], dtype=np.float32)
_TIE_HEAVY = np.random.default_rng(20261121).integers(0, 4, size=(64, 1000)).astype(np.float32)


def proof_cases() -> list[Case]:
    cases = []
    for name, x, axis, k in (("documented-ties", _DOCUMENTED_TIES, 3, 3),
                             ("documented-ties-axis2", _DOCUMENTED_TIES, 2, 2),
                             ("tie-heavy-64x1000", _TIE_HEAVY, 1, 16)):
        for largest in (True, False):
            cases.append(Case(
                id=f"proof-{name}-{'largest' if largest else 'smallest'}", source="known-answer proof",
                file=Path("<proof>"), x=x, axis=axis, k=k, largest=largest, tags=("proof",),
            ))
    return cases


class ProofFailed(RuntimeError):
    """The bridge ran, but not to the known answer."""


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

    @abstractmethod
    def proof_variants(self) -> list[Variant]:
        """The graph variants the proof runs every known input through."""

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
        return {**self._info, **translation_layer()}

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
        graphs = GraphCache()
        for case in proof_cases():
            for variant in self.proof_variants():
                if variant.cannot_express(case):
                    continue  # DML_TOP_K has no increasing direction
                execution = self.run_on(bridge, graphs.get(case, variant))
                verdict = judge(case, variant.profile(case), Outputs(execution.values, execution.indices))
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
