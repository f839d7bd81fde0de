"""A model's outcome on several backends, as results.json's `models` entry holds it: each node
per backend, each pair's class, the model's outputs compared, and where the backends part."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from conformance.models.capture import Capture, JudgedNode, constants
from conformance.models.compare import all_equal, difference, equal
from conformance.models.judging import NodeVerdict, judge_node, pair_class
from conformance.models.running import BackendRun
from conformance.models.source import ModelSource

PARTING = ("admitted", "flipped", "fail")  # classes where two backends' choices differ


@dataclass
class NodeOutcome:
    node: JudgedNode
    verdicts: dict[str, NodeVerdict] = field(default_factory=dict)
    pairs: list[tuple[str, str, str, str]] = field(default_factory=list)  # (a, b, class, message)
    iteration: int | None = None  # of a node in a Loop body: which iteration this is (from 0)

    @property
    def key(self) -> str:
        """The node's position, and its iteration where it has one: unique among a model's outcomes."""
        return str(self.node.position) if self.iteration is None else f"{self.node.position}.{self.iteration}"

    @property
    def label(self) -> str:
        return self.node.name if self.iteration is None else f"{self.node.name} (iteration {self.iteration})"

    def answer_groups(self) -> list[list[str]]:
        """The backends that answered at this node, grouped by equal outputs."""
        return grouped({backend: verdict.outputs for backend, verdict in self.verdicts.items()
                        if verdict.outputs and all(output is not None for output in verdict.outputs)})


@dataclass
class ModelOutcome:
    source: ModelSource
    inputs: dict[str, Any]  # name -> dtype, shape and where it came from
    runs: dict[str, BackendRun]
    nodes: list[NodeOutcome]
    outputs: list[tuple[str, str, str, str]]  # (output, a, b, how they compare)
    captured_changed: dict[str, str]  # backend -> how capturing changed the model's own outputs
    runs_info: dict[str, Any] = field(default_factory=dict)  # each backend's description, as results.json's `backends`
    interrupted: str = ""  # "stopped by SIGINT" where a signal stopped the backends that had not answered
    signum: int = 0  # that signal's number

    @property
    def parting(self) -> NodeOutcome | None:
        """The first judged node, in the order the model runs them, where two backends' choices differ."""
        return next((node for node in self.nodes if any(pair[2] in PARTING for pair in node.pairs)), None)

    def output_groups(self, name: str) -> list[list[str]]:
        """The backends that gave the model's output `name`, grouped by equal answers."""
        given = {backend: run.untouched.outputs[name] for backend, run in self.runs.items()
                 if run.untouched.outputs is not None and name in run.untouched.outputs}
        return grouped(given)

    def failing(self) -> list[tuple[NodeOutcome, str]]:
        return [(node, backend) for node in self.nodes for backend, verdict in node.verdicts.items()
                if verdict.verdict == "fail"]


def grouped(given: Mapping[str, Any]) -> list[list[str]]:
    """Names grouped by equal arrays (or tuples of arrays), in the order first seen."""
    groups: list[tuple[Any, list[str]]] = []
    for name, value in given.items():
        for first, members in groups:
            if all_equal(first, value) if isinstance(value, tuple) else equal(first, value):
                members.append(name)
                break
        else:
            groups.append((value, [name]))
    return [members for _, members in groups]


def _node_verdict(node: JudgedNode, run: BackendRun, fixed: Mapping[str, np.ndarray[Any, Any]],
                  feeds: Mapping[str, np.ndarray[Any, Any]], source: ModelSource, backend: str,
                  capture: Capture, iteration: int | None) -> NodeVerdict:
    if node.not_captured:
        return NodeVerdict("skip", message=node.not_captured)
    answer = run.captured
    if answer.outputs is None:
        return NodeVerdict(answer.verdict, message=answer.described)
    ran = (answer.elsewhere.get(node.name) or answer.elsewhere.get(f"op:{node.op_type}")
           or answer.elsewhere.get("*"))
    if ran:
        return NodeVerdict("skip", message=f"the node ran on {ran}, not on {backend}'s own device "
                           f"({answer.placement}): its answer is not {backend}'s")
    tensors = {**fixed, **feeds, **_returned(answer.outputs, capture)}
    if node.per_iteration and iteration is None:
        return NodeVerdict("skip", message=f"its Loop ran no iteration on {backend}")
    if iteration is not None:
        count = _iterations(node, tensors, capture)
        if count is not None and iteration >= count:
            return NodeVerdict("skip", message=f"its Loop ran {count} iterations on {backend}")
        tensors.update({name: per_iteration(tensors[name], capture.stacked[name])[iteration]
                        for name in capture.stacked if name in tensors})
    for condition, runs_when in node.conditions:  # the outermost If first
        value = tensors.get(condition)
        if value is None:
            continue
        flat = np.asarray(value).reshape(-1)
        if not flat.size:  # the stand-in of a branch around this If that did not run
            return NodeVerdict("skip", message=f"its branch did not run on {backend} (an If around its If "
                               "did not run)")
        if bool(flat[0]) != runs_when:
            return NodeVerdict("skip", message=f"its branch did not run on {backend} (the If's condition was "
                               f"{not runs_when})")
    each = "" if iteration is None else f"-{iteration}"
    case_id = f"model-{source.path.stem}-{node.name}{each}-{backend}".lower()
    return judge_node(node, tensors, source.opset, source.path, "".join(c if c.isalnum() or c in "._-" else "-"
                                                                          for c in case_id))


def _returned(outputs: Mapping[str, Any], capture: Capture) -> dict[str, Any]:
    """The captured tensors among a run's outputs, by the tensors' own names."""
    return {name: outputs[output] for name, output in capture.tensors.items() if output in outputs}


def per_iteration(array: np.ndarray[Any, Any], shape: tuple[int | None, ...] | None) -> np.ndarray[Any, Any]:
    """A Loop's scan output with a row per iteration. ONNX's text says scan outputs are
    "concatenated" and its pseudocode stacks them: ONNX Runtime stacks (one more dimension),
    the ONNX reference concatenates along the first; where one iteration's first dimension is
    known, a concatenated output is split back into its iterations."""
    if shape is not None and array.ndim == len(shape) and shape and shape[0] and array.shape[0] % shape[0] == 0:
        return array.reshape((array.shape[0] // shape[0], shape[0], *array.shape[1:]))
    return array


def _iterations(node: JudgedNode, tensors: Mapping[str, Any], capture: Capture) -> int | None:
    """How many iterations of its Loop a backend ran, from the node's stacked tensors."""
    rows = [len(per_iteration(tensors[name], capture.stacked[name])) for name in (*node.inputs, *node.outputs)
            if name in capture.stacked and name in tensors]
    return max(rows) if rows else None


def _runs_of(node: JudgedNode, runs: dict[str, BackendRun], capture: Capture) -> list[int | None]:
    """The iterations a node is judged in: None for a node outside a Loop; for one inside, one
    per iteration the most any backend ran (None where no backend ran one)."""
    if not node.per_iteration or node.not_captured:
        return [None]
    counts = [_iterations(node, _returned(run.captured.outputs or {}, capture), capture) for run in runs.values()]
    most = max((count for count in counts if count is not None), default=0)
    return list(range(most)) or [None]


def judged(source: ModelSource, inputs: dict[str, Any], feeds: Mapping[str, np.ndarray[Any, Any]],
           nodes: list[JudgedNode], runs: dict[str, BackendRun], model_outputs: tuple[str, ...],
           capture: Capture, runs_info: dict[str, Any]) -> ModelOutcome:
    """Each node judged on each backend (a node in a Loop body, in each iteration), each pair
    classed, the model's outputs compared; `capture` says which output of the copy holds each
    captured tensor."""
    fixed = constants(source.model, {name for node in nodes for name in node.inputs})
    outcomes = []
    calls = [(node, iteration) for node in nodes for iteration in _runs_of(node, runs, capture)]
    for node, iteration in calls:
        outcome = NodeOutcome(node, {name: _node_verdict(node, run, fixed, feeds, source, name, capture, iteration)
                                     for name, run in runs.items()}, iteration=iteration)
        for a, b in itertools.combinations(runs, 2):
            kind, message = pair_class(node, outcome.verdicts[a], outcome.verdicts[b], source.opset, source.path)
            outcome.pairs.append((a, b, kind, message))
        outcomes.append(outcome)
    outputs = [(name, a, b, _compared(runs[a].untouched.outputs, runs[b].untouched.outputs, name))
               for name in model_outputs for a, b in itertools.combinations(runs, 2)]
    changed = {name: how for name, run in runs.items() if (how := _capture_changed(run, model_outputs))}
    return ModelOutcome(source, inputs, runs, outcomes, outputs, changed, runs_info)


def _compared(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None, name: str) -> str:
    if a is None or b is None or name not in a or name not in b:
        return "not compared: a backend gave no output"
    how = difference(a[name], b[name])
    return how if how == "equal" else f"differ: {how}"


def _capture_changed(run: BackendRun, model_outputs: tuple[str, ...]) -> str:
    """How the copy's own outputs differ from the untouched model's on the same backend
    (capturing made the backend run something else: a fused node, an inlined branch)."""
    if run.captured.outputs is None and run.untouched.outputs is not None:
        return (f"the copy could not run where the untouched model ran ({run.captured.verdict}: "
                f"{run.captured.described[:300]}): its nodes are not judged there")
    if run.captured.outputs is None or run.untouched.outputs is None:
        return ""
    differing = [name for name in model_outputs
                 if _compared(run.captured.outputs, run.untouched.outputs, name) != "equal"]
    return f"the copy's outputs {', '.join(differing)} differ from the untouched model's" if differing else ""

