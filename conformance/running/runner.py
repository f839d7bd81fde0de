"""One case on one backend through one graph variant, built, run and judged. `execute`
takes only picklable arguments, so it runs the same in a worker process."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from conformance.backends.base import Backend, BackendCrash, Execution, Graph, PackError, PlacementError, Stopwatch
from conformance.backends.record import bound_record
from conformance.core.sequences import as_rows, sequence_position
from conformance.core.text import exception_text, short_repr
from conformance.graphs.errors import CheckerRejected, GraphBuildError, RuntimeRefused
from conformance.operator.graph import outside_graphs
from conformance.operator.interfaces import Case, Variant, variant_key
from conformance.operator.outcome import Judgement, Outcome, Outputs, Raised
from conformance.operator.signatures import signature
from conformance.ops.registry import operator
from conformance.results.records import Result

# Worst first: the verdict a repeated case keeps is its worst run's.
SEVERITY = ("crash", "fail", "error", "divergent", "pass")


@dataclass
class GraphCache:
    """Graphs built once per (case, variant) and reused by every backend (and every run of
    a repeated case); a graph that could not be built is remembered as why not. With
    `reuse`, each graph carries its signature (Graph.signature): backends share one session
    or compiled model between graphs that are the same up to their name."""

    built: dict[tuple[str, str], Graph | GraphBuildError | RuntimeRefused] = field(default_factory=dict)
    reuse: bool = True

    def get(self, case: Case, variant: Variant) -> Graph:
        key = (case.id, variant_key(variant))
        if key not in self.built:
            built = _build(case, variant)
            if self.reuse and isinstance(built, Graph):
                built = dataclasses.replace(built, signature=signature(built))
            self.built[key] = built
        graph = self.built[key]
        if isinstance(graph, (GraphBuildError, RuntimeRefused)):
            raise graph
        return graph

    def forget_all(self) -> None:
        self.built.clear()


def _build(case: Case, variant: Variant) -> Graph | GraphBuildError | RuntimeRefused:
    try:
        graph: Graph = operator(case.op).build(case, variant)
        return graph
    except (GraphBuildError, RuntimeRefused) as exc:
        return exc
    except Exception as exc:  # the suite's own builder failed (not a runtime's API)
        return GraphBuildError(f"graph not built: {type(exc).__name__}: {exc}")


@dataclass(frozen=True)
class _Run:
    outcome: Outcome | BackendCrash
    judgement: Judgement
    seconds: float


@dataclass(frozen=True)
class Prepared:
    """A graph ready to run: its result's common fields, the variant's profile, the graph."""

    base: dict[str, Any]
    profile: Any
    graph: Graph


def execute(case: Case, backend: Backend, variant: Variant, graphs: GraphCache) -> Result:
    """One case on one backend through one graph variant, judged; a case with `repeat: N`
    runs the one built graph N times, judges every run and keeps the worst verdict."""
    prepared = prepare(case, backend, variant, graphs)
    if isinstance(prepared, Result):
        return prepared
    return run_prepared(case, backend, prepared)


def prepare(case: Case, backend: Backend, variant: Variant, graphs: GraphCache) -> Prepared | Result:
    """The graph to run, or the result given before any run (a skip, a refusal, an error
    of the backend's cannot_run())."""
    base: dict[str, Any] = {
        "case": case.id, "backend": backend.name, "graph": variant.graph,
        "k_source": variant.k_label, "x_shape": variant.x_shape, "tags": list(case.tags),
        "case_file": str(case.file), "isa": backend.isa(), "op": case.op,
    }
    reason = outside_graphs(case, variant) or variant.cannot_express(case)
    if not reason:
        try:
            reason = backend.cannot_run(case, variant)
        except Exception as exc:
            return Result(**base, verdict="error", message=f"the backend's cannot_run() raised {exception_text(exc)}")
        if reason is not None and not isinstance(reason, str):
            return Result(**base, verdict="error",
                          message=f"the backend's cannot_run() returned {short_repr(reason)}, not a str or None")
    if reason:
        return Result(**base, verdict="skip", message=reason)
    profile = variant.profile(case)
    base["profile"] = profile.label
    judge = operator(case.op).judge
    try:
        graph = graphs.get(case, variant)
    except CheckerRejected as exc:
        return Result(**base, verdict="skip", message=str(exc), checker=f"rejected: {exc.reason}")
    except GraphBuildError as exc:
        return Result(**base, verdict="skip", message=str(exc))
    except RuntimeRefused as exc:
        # The runtime's graph-building API refused the graph: judged as the runtime raising.
        refused = judge(case, profile, Raised(str(exc)))
        return Result(**base, verdict=refused.verdict, rules=list(refused.rules), domain=refused.domain,
                      message=refused.message)
    base["checker"] = graph.checker
    return Prepared(base, profile, graph)


def run_prepared(case: Case, backend: Backend, prepared: Prepared) -> Result:
    """The prepared graph run (`repeat` times) and judged."""
    base, profile, graph = dict(prepared.base), prepared.profile, prepared.graph
    judge = operator(case.op).judge
    runs: list[_Run] = []
    placement = wrapping = ""
    timing = _Timing()
    for _ in range(max(1, case.repeat)):
        watch = backend.start_stopwatch()
        started = time.perf_counter()
        outcome: Outcome
        try:
            execution = backend.run(graph)
            wrong = wrong_execution(execution, graph.outputs)
            if wrong:  # not judged: the answer is not one (nor a refusal)
                timing.add(watch)
                return Result(**base, verdict="error", message=f"the backend's run() returned {wrong}",
                              seconds=time.perf_counter() - started, **timing.fields())
            outcome = execution.outputs_named(graph.outputs)
            placement, wrapping = execution.placement, execution.wrapping
        except BackendCrash as exc:
            timing.add(watch)
            runs.append(_Run(exc, Judgement("crash", (), "defined", str(exc)), time.perf_counter() - started))
            break  # the backend's process is gone: the runs stop here
        except PlacementError as exc:
            # Never judged as an output, nor as an expected error: the provider is unproven. Where
            # its record says it has no kernel for the operator, nothing of its own ran: a skip.
            timing.add(watch)
            record = bound_record(backend)
            if record is not None and record.placed_elsewhere(case.op):
                return Result(**base, verdict="skip", seconds=time.perf_counter() - started, **timing.fields(),
                              message=f"placement: {exc}: the provider has no kernel for {case.op}, whose node "
                                      "ONNX Runtime hands to another provider; no answer of its own to judge")
            return Result(**base, verdict="error", message=f"placement: {exc}",
                          seconds=time.perf_counter() - started, **timing.fields())
        except Exception as exc:
            outcome = Raised(f"{type(exc).__name__}: {' '.join(str(exc).split())}")
        seconds = time.perf_counter() - started
        timing.add(watch)
        runs.append(_Run(outcome, judge(case, profile, outcome), seconds))
    return _result(base, case, profile, runs, placement, wrapping, timing)


def packable(case: Case) -> bool:
    """Whether a case's graphs may run in a pack: not a repeated case (its graph runs N
    times, alone), nor one that expects an error (its graph would fail the whole pack)."""
    return case.repeat <= 1 and not case.expect_error


def execute_pack(items: Sequence[tuple[Case, Variant]], backend: Backend, graphs: GraphCache) -> list[Result | None]:
    """Graphs of any cases run as one model (Backend.run_pack), each judged. A graph's
    result is final only where it came before any run (a skip, a refusal) or passed in the
    pack; every other graph answers None, to be run alone (execute) and recorded from that
    run: a fail, divergent, error or crash in the pack, an answer that is not one, a graph
    the pack does not take (packable(), a graph the checker rejected), and each graph of a
    pack that could not be built, compiled or run, split in halves down to one graph (or,
    where the backend names the graphs that did it, PackError, those taken out)."""
    answers: list[Result | None] = [None] * len(items)
    packed: list[tuple[int, Case, Prepared]] = []
    for at, (case, variant) in enumerate(items):
        prepared = prepare(case, backend, variant, graphs)
        if isinstance(prepared, Result):
            answers[at] = prepared
        elif packable(case) and not prepared.graph.checker and not _empty_feed(prepared.graph):
            packed.append((at, case, prepared))
    _run_pack(packed, backend, answers, _Timing())
    return answers


def _empty_feed(graph: Graph) -> bool:
    """A graph fed an empty tensor runs alone: OpenVINO's CPU plugin answers some of them
    from uninitialized memory (a different answer each run) and crashes on others, which
    in a pack would be another graph's memory, and every graph of the pack lost."""
    return any(getattr(array, "size", 1) == 0 for array in graph.feeds.values())


def _run_pack(packed: list[tuple[int, Case, Prepared]], backend: Backend, answers: list[Result | None],
              spent: _Timing) -> None:
    """Run and judge a pack; `spent`: the time of failed packs before it, recorded with the
    first pass after it."""
    if len(packed) < 2:
        return  # alone
    watch = backend.start_stopwatch()
    started = time.perf_counter()
    try:
        executions = list(backend.run_pack([prepared.graph for _, _, prepared in packed]))
        if len(executions) != len(packed):
            raise ValueError(f"run_pack() returned {len(executions)} executions for {len(packed)} graphs")
    except PackError as exc:
        spent.add(watch)
        named = set(exc.culprits)
        rest = [item for at, item in enumerate(packed) if at not in named]
        if named and len(rest) < len(packed):  # the graphs it names go alone, the others on
            _run_pack(rest, backend, answers, spent)
            return
        half = len(packed) // 2
        _run_pack(packed[:half], backend, answers, spent)
        _run_pack(packed[half:], backend, answers, spent)
        return
    except Exception:
        spent.add(watch)
        half = len(packed) // 2
        _run_pack(packed[:half], backend, answers, spent)
        _run_pack(packed[half:], backend, answers, spent)
        return
    seconds = time.perf_counter() - started
    passed: list[tuple[int, Case, Prepared, Execution]] = []
    for (at, case, prepared), execution in zip(packed, executions, strict=True):
        if wrong_execution(execution, prepared.graph.outputs):
            continue
        try:
            judgement = operator(case.op).judge(case, prepared.profile,
                                                execution.outputs_named(prepared.graph.outputs))
        except Exception:
            continue  # alone, where the same error is recorded as such
        if judgement.verdict == "pass":
            answers[at] = _result(dict(prepared.base), case, prepared.profile, [_Run(Outputs({}), judgement, 0.0)],
                                  execution.placement, execution.wrapping, _Timing())
            passed.append((at, case, prepared, execution))
    if not passed:
        spent.add(watch)
        return
    # The pack's time shared among its passes; its compilations (and those of the failed
    # packs before it) counted on the first.
    share = 1 / len(passed)
    for number, (at, _, _, _) in enumerate(passed):
        answer = answers[at]
        assert answer is not None
        timing = _Timing(watch.compile_seconds * share, watch.run_seconds * share,
                         watch.compilations if number == 0 else 0, watch.reported)
        if number == 0:
            timing.compile_seconds += spent.compile_seconds
            timing.compilations += spent.compilations
            spent.compile_seconds, spent.compilations = 0.0, 0
        answers[at] = dataclasses.replace(answer, seconds=round(seconds * share, 6), **timing.fields())


def wrong_execution(execution: object, names: tuple[str, ...]) -> str:
    """What is wrong with what a backend's run() returned ("" if nothing): an Execution
    with a numpy array for each of the graph's outputs `names` (by name; or, from a backend
    of interface 2, `values` and `indices`) and str placement and wrapping."""
    if not isinstance(execution, Execution):
        return f"{short_repr(execution)}, not an Execution"
    outputs = execution.outputs
    if not isinstance(outputs, Mapping):
        return f"outputs {short_repr(outputs)}, not a mapping of names to arrays"
    if outputs:
        unknown = sorted(str(name) for name in outputs if name not in names)
        if unknown:
            return f"an output named {unknown[0]!r}; the graph's outputs are {', '.join(names)}"
    named = outputs if outputs else {"values": execution.values, "indices": execution.indices}
    for name in names:
        array = named.get(name)
        if not isinstance(array, np.ndarray):
            return f"{name} {short_repr(array)}, not a numpy array"
    for name in ("placement", "wrapping"):
        text = getattr(execution, name)
        if not isinstance(text, str):
            return f"{name} {short_repr(text)}, not a str"
    return ""




@dataclass
class _Timing:
    """Compile and execution time over a result's runs, as the backend timed them itself
    (Backend.compiling / executing); None in every field where a run was not timed."""

    compile_seconds: float = 0.0
    run_seconds: float = 0.0
    compilations: int = 0
    reported: bool = True

    def add(self, watch: Stopwatch) -> None:
        self.reported = self.reported and watch.reported
        self.compile_seconds += watch.compile_seconds
        self.run_seconds += watch.run_seconds
        self.compilations += watch.compilations

    def fields(self) -> dict[str, Any]:
        if not self.reported:
            return {}
        return {"compile_seconds": round(self.compile_seconds, 6), "run_seconds": round(self.run_seconds, 6),
                "compilations": self.compilations}


def _result(base: dict[str, Any], case: Case, profile: Any, runs: list[_Run],
            placement: str, wrapping: str, timing: _Timing) -> Result:
    worst_at = min(range(len(runs)), key=lambda i: SEVERITY.index(runs[i].judgement.verdict))
    worst = runs[worst_at].judgement
    message = worst.message
    runs_field: list[dict[str, Any]] = []
    if case.repeat > 1:
        message, runs_field = _repeat_summary(case, runs, worst_at)
    total = sum(run.seconds for run in runs)
    if worst.verdict == "crash":
        return Result(**base, verdict="crash", message=message, seconds=total, runs=runs_field, **timing.fields())
    return Result(
        **base, verdict=worst.verdict, rules=list(worst.rules), domain=worst.domain,
        message=message, seconds=round(total, 6), placement=placement,
        wrapping=wrapping, discrepancy=worst.discrepancy, runs=runs_field, **timing.fields(),
    )


def _outcome_key(outcome: Outcome | BackendCrash) -> tuple[Any, ...]:
    """Equal keys: the same outcome, bit for bit."""
    if isinstance(outcome, Outputs):
        arrays = {name: np.ascontiguousarray(array) for name, array in outcome.items()}
        return ("outputs", *((name, a.dtype.str, a.shape, a.tobytes()) for name, a in sorted(arrays.items())))
    if isinstance(outcome, Raised):
        return ("raised", outcome.message)
    return ("crash", str(outcome))


def _describe_outcome(outcome: Outcome | BackendCrash) -> str:
    if isinstance(outcome, Outputs):
        return "returned outputs"
    if isinstance(outcome, Raised):
        return f"raised ({outcome.message})"
    return "crashed"


def _row_bits(array: np.ndarray[Any, Any], axis: int) -> np.ndarray[Any, Any]:
    """An output's sequences as unsigned integers of its own width: equal bits, equal rows."""
    contiguous = np.ascontiguousarray(array)
    return as_rows(contiguous.view(np.dtype(f"u{contiguous.dtype.itemsize}")), axis)


def _first_difference(case: Case, first: Outcome | BackendCrash, other: Outcome | BackendCrash) -> str:
    """Where `other` first differs from `first` (both returned outputs), or how it differs."""
    if not (isinstance(first, Outputs) and isinstance(other, Outputs)):
        return f"({_describe_outcome(other)} where run 1 {_describe_outcome(first)})"
    shapes = [[(name, a.shape, a.dtype) for name, a in sorted(o.items())] for o in (first, other)]
    axis = case.axis_index
    arrays = list(first.values())
    if (shapes[0] != shapes[1] or not arrays or len({a.shape for a in arrays}) != 1
            or arrays[0].ndim <= axis):
        return "in its output shapes or types"
    differs = np.logical_or.reduce([(_row_bits(first[name], axis) != _row_bits(other[name], axis)).any(axis=1)
                                    for name in first])
    row = int(np.flatnonzero(differs)[0])
    return f"at sequence {sequence_position(row, arrays[0].shape, axis)}"


def _repeat_summary(case: Case, runs: list[_Run], worst_at: int) -> tuple[str, list[dict[str, Any]]]:
    keys: dict[tuple[Any, ...], int] = {}
    numbers = [keys.setdefault(_outcome_key(run.outcome), len(keys) + 1) for run in runs]
    made = f"{len(runs)} runs" if len(runs) == case.repeat else f"{len(runs)} of {case.repeat} runs"
    all_outputs = all(isinstance(run.outcome, Outputs) for run in runs)
    if len(keys) == 1:
        summary = f"{made}: identical"
    else:
        differing = next(i for i, number in enumerate(numbers) if number != 1)
        where = _first_difference(case, runs[0].outcome, runs[differing].outcome)
        summary = (f"{made}: {len(keys)} distinct {'outputs' if all_outputs else 'outcomes'}; "
                   f"run {differing + 1} differed first {where}")
    worst = runs[worst_at].judgement
    if worst.message:
        summary += f"; {worst.message}" if len(keys) == 1 else f"; run {worst_at + 1}: {worst.message}"
    runs_field = [
        {"run": i + 1, "verdict": run.judgement.verdict, "seconds": round(run.seconds, 6), "outcome": numbers[i]}
        for i, run in enumerate(runs)
    ]
    return summary, runs_field
