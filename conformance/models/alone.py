"""Each node that fails on a backend, rerun alone from the case file written for it: a fail that
reproduces in the node's own graph, by the same rules, is a finding candidate (contract
section 9); one that does not depended on the model around the node (a fused or rewritten
node, another precision)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from conformance.backends.base import Backend
from conformance.cases.loader import load_cases
from conformance.models.outcome import ModelOutcome, NodeOutcome
from conformance.operator.interfaces import Case
from conformance.results.records import Result
from conformance.running.suite import run_cases


@dataclass(frozen=True)
class Alone:
    """The node's case on the backend whose input it holds, run as `run --cases` runs it."""

    verdict: str  # the worst verdict of its graphs there ("" where the case file did not load)
    rules: tuple[str, ...]
    candidate: bool  # fails alone by the same rules as in the model
    message: str

    def entry(self) -> dict[str, object]:
        return {"verdict": self.verdict, "rules": list(self.rules), "candidate": self.candidate,
                "message": self.message}


_WORST = ("fail", "crash", "error", "divergent", "pass", "skip")


def rerun_alone(outcome: ModelOutcome, cases: Mapping[tuple[str, str], Path], backends: list[Backend],
                timeout: float) -> dict[tuple[str, str], Alone]:
    """Every written case of a node that fails on its backend, on that backend alone: one run
    of those cases per backend, in one worker, as `run --cases` would."""
    failing: dict[str, list[tuple[NodeOutcome, Path]]] = {}
    for node in outcome.nodes:
        for name, verdict in node.verdicts.items():
            path = cases.get((node.key, name))
            if verdict.verdict == "fail" and path is not None:
                failing.setdefault(name, []).append((node, path))
    found: dict[tuple[str, str], Alone] = {}
    for backend in backends:
        loaded: dict[str, tuple[NodeOutcome, Case]] = {}
        for node, path in failing.get(backend.name, []):
            read = load_cases([path])
            if read.cases:
                loaded[read.cases[0].id] = (node, read.cases[0])
            else:
                why = str(read.errors[0]) if read.errors else "no case in it"
                found[(node.key, backend.name)] = Alone("", (), False, f"{path.name} did not load: {why}")
        if not loaded:
            continue
        results: dict[str, list[Result]] = {}
        for result in run_cases([case for _, case in loaded.values()], [backend], timeout=timeout):
            if result.verdict != "skip":
                results.setdefault(result.case, []).append(result)
        for case_id, (node, _) in loaded.items():
            found[(node.key, backend.name)] = _alone(results.get(case_id, []), set(node.verdicts[backend.name].rules))
    return found


def _alone(results: list[Result], model_rules: set[str]) -> Alone:
    if not results:
        return Alone("skip", (), False, "no graph of the case ran alone")
    worst = min(results, key=lambda result: _WORST.index(result.verdict) if result.verdict in _WORST else 0)
    candidate = any(result.verdict == "fail" and set(result.rules) == model_rules for result in results)
    said = Counter(result.verdict + (f" [{', '.join(result.rules)}]" if result.rules else "") for result in results)
    graphs = "; ".join(f"{what} in {count} of {len(results)} graphs" for what, count in said.items())
    return Alone(worst.verdict, tuple(worst.rules), candidate, graphs)
