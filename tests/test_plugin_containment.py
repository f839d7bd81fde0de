"""A third-party backend's code runs in its worker process, and a wrong answer there costs
that backend (unavailable, the reason naming the method) or one graph (an `error` saying
what it got), never the run, the worker or the results file (docs/vendors/backends.md,
"What the suite does with a plugin's mistakes"). The plugins are the real onnx-reference
with one fault (tests/fault_backends.py); the run path is the real one (run_cases with
worker processes, or the command line)."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fault_backends import (
    CANNOT_RUN_RAISES,
    TRIGGER_CASE,
    TRIGGER_LABEL,
    WRONG_ANSWERS,
    MisbehavingBackend,
    WorkerOnlyBackend,
    WrongAnswersBackend,
)
from harness import DOCUMENTED, documented, ordinary_variants
from plugin_entries import PluginEntry

from conformance import cli
from conformance.backends import registry
from conformance.backends.base import Availability, Backend, Execution, Graph
from conformance.backends.onnx_reference import OnnxReference
from conformance.results.records import Result, read_results
from conformance.running.probed import variants_taken
from conformance.running.suite import run_cases
from conformance.running.workers import takes_here

CASE_FILE = DOCUMENTED / "directml-top-k1.yaml"
SECOND_CASE = CANNOT_RUN_RAISES[0]


def label(result: Result) -> str:
    return f"{result.graph}-{result.k_source}"


def by_backend(results: list[Result]) -> dict[str, list[Result]]:
    grouped: dict[str, list[Result]] = {}
    for result in results:
        grouped.setdefault(result.backend, []).append(result)
    return grouped


# --- the probe: availability(), isa(), runs(), describe() and the worker's start ------------

# (method, what it raises or returns, the reason the backend is unavailable with)
PROBE_FAULTS: list[tuple[str, object, str]] = [
    ("runs", ValueError("boom"), "runs() raised ValueError: boom"),
    ("runs", "yes", "runs() returned 'yes' for onnx-opset1-attribute, not a bool"),
    ("isa", RuntimeError("no cpuid"), "isa() raised RuntimeError: no cpuid"),
    ("isa", 5, "isa() returned 5, not a str"),
    ("availability", OSError("driver gone"), "availability() raised OSError: driver gone"),
    ("availability", True, "availability() returned True, not an Availability"),
    ("describe", KeyError("device"), "describe() raised KeyError: 'device'"),
    ("describe", ["not", "a", "dict"], "describe() returned ['not', 'a', 'dict'], not a dict"),
    ("describe", {1: "one"}, "describe() returned a dict with the key 1, not a str"),
]
# Called in the worker's start (warm_up) or, before it, in the main process (worker_launch).
START_FAULTS: list[tuple[str, object, str]] = [
    ("warm_up", RuntimeError("no device"), "warm_up() raised RuntimeError: no device"),
    ("worker_launch", RuntimeError("no emulator"), "worker_launch() raised RuntimeError: no emulator"),
    ("worker_launch", "qemu", "worker_launch() returned 'qemu', not None or a WorkerLaunch"),
]


def faulty(faults: list[tuple[str, object, str]]) -> dict[str, tuple[Backend, str]]:
    made = {}
    for number, (method, answer, reason) in enumerate(faults, start=1):
        backend = MisbehavingBackend(method, answer, name=f"fault-{method.replace('_', '-')}-{number}")
        made[backend.name] = (backend, reason)
    return made


@pytest.mark.parametrize("isolate", [True, False], ids=["workers", "in-process"])
def test_a_plugin_method_that_raises_or_answers_wrongly_makes_it_unavailable_and_the_run_goes_on(
    isolate: bool,
) -> None:
    """Every faulty backend is unavailable with a reason naming the method and what it
    raised or returned; its graphs are skips saying so; onnx-reference's results, in the
    same run, pass as they do alone."""
    faults = faulty(PROBE_FAULTS + (START_FAULTS if isolate else []))
    case = documented(TRIGGER_CASE)
    backends = [*(backend for backend, _ in faults.values()), OnnxReference()]
    results = by_backend(run_cases([case], backends, isolate=isolate, timeout=60))

    reference = results.pop("onnx-reference")
    assert {r.verdict for r in reference} == {"pass"}
    assert [label(r) for r in reference] == [v.label for v in variants_taken(takes_here(OnnxReference()), case)]
    assert set(results) == set(faults)
    for name, (_, reason) in faults.items():
        skips = results[name]
        # No answer from runs(): the interface's default, the variants of its kinds (onnx).
        assert [label(r) for r in skips] == [label(r) for r in reference], name
        assert {r.verdict for r in skips} == {"skip"}, name
        message = skips[0].message
        assert message.startswith(f"{name} is not available: ") and reason in message, (reason, message)


def test_the_main_process_never_calls_runs_or_isa() -> None:
    """WorkerOnlyBackend raises where runs() or isa() is called in the main process; in
    its worker it takes the opset-11 graphs only, under isa "worker-isa". Its results
    are those graphs, every one carrying that isa, the crash made in the main process
    (the worker aborts on the trigger) too."""
    backend = WorkerOnlyBackend()
    cases = [documented(TRIGGER_CASE), documented(SECOND_CASE)]
    results = run_cases(cases, [backend], timeout=60, jobs=2)
    opset11 = [v.label for v in ordinary_variants(OnnxReference()) if v.graph == "onnx-opset11"]
    assert [label(r) for r in results] == opset11 * 2
    assert Counter(r.verdict for r in results) == {"pass": len(results) - 1, "crash": 1}
    (crashed,) = [r for r in results if r.verdict == "crash"]
    assert (crashed.case, label(crashed)) == (TRIGGER_CASE, TRIGGER_LABEL)
    assert "SIGABRT" in crashed.message
    assert {r.isa for r in results} == {"worker-isa"}


# --- run(): what it returns, and what else raises on the way -------------------------------

# The trigger case's graph variant -> the words of its `error` message.
WRONG_ANSWER_MESSAGES = {
    "onnx-opset1-attribute": "the backend's run() returned values None, not a numpy array",
    "onnx-opset10-constant": "the backend's run() returned indices None, not a numpy array",
    "onnx-opset10-input": "the backend's run() returned values [[[[",
    "onnx-opset11-constant": "the backend's run() returned placement 5, not a str",
    "onnx-opset11-input": "the backend's run() returned (array(",
    "onnx-opset11-constant-dynamic-shape": "the result could not be sent back: TypeError: cannot pickle this placement",
    "onnx-opset11-input-dynamic-shape": "not judged: RuntimeError: cursed array (raised in shape, fault_backends.py:",
    "onnx-opset24-constant": "the backend's run() returned an output named 'scores'; the graph's outputs are "
                             "values, indices",
    "onnx-opset24-input": "the backend's run() returned indices None, not a numpy array",
}


def test_wrong_answers_from_run_are_errors_naming_what_came_and_the_worker_lives_on() -> None:
    assert set(WRONG_ANSWER_MESSAGES) == set(WRONG_ANSWERS)
    cases = [documented(TRIGGER_CASE), documented(SECOND_CASE)]
    results = run_cases(cases, [WrongAnswersBackend()], timeout=60)
    assert len(results) == 2 * len(ordinary_variants(OnnxReference()))
    errors = {(r.case, label(r)): r.message for r in results if r.verdict == "error"}
    expected = {(TRIGGER_CASE, graph): words for graph, words in WRONG_ANSWER_MESSAGES.items()}
    expected[CANNOT_RUN_RAISES] = "the backend's cannot_run() raised ValueError: no such device property"
    assert set(errors) == set(expected)
    for key, words in expected.items():
        assert words in errors[key], (key, errors[key])
    assert "not a numpy array" in errors[(TRIGGER_CASE, "onnx-opset10-input")]
    assert "not an Execution" in errors[(TRIGGER_CASE, "onnx-opset11-input")]
    passed = [r for r in results if r.verdict == "pass"]
    assert len(passed) == len(results) - len(expected)
    assert not [r for r in results if r.verdict == "crash"]
    assert len({r.placement for r in passed}) == 1, "one worker took every graph: none died"


# --- the command line, with the plugin registered through its entry point ---------------------

def run_cli(out: Path, *backends: str) -> int:
    named = [arg for name in backends for arg in ("--backend", name)]
    return cli.main(["run", *named, "--cases", str(CASE_FILE), "--case", TRIGGER_CASE, "--out", str(out)])


def test_run_names_a_plugin_whose_runs_raises_as_unavailable(
    entry_points: list[PluginEntry], tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    entry_points.append(PluginEntry("vendor", lambda: [MisbehavingBackend("runs", ValueError("boom"))]))
    assert run_cli(tmp_path / "out", "fault-runs", "onnx-reference") == 2
    err = capsys.readouterr().err
    assert "backend fault-runs is not available: runs() raised ValueError: boom" in err
    assert "Traceback" not in err


def test_a_description_json_cannot_hold_is_written_as_text(
    entry_points: list[PluginEntry], tmp_path: Path,
) -> None:
    """describe() with an object and a NaN: the run finishes, results.json is strict JSON
    that the suite reads back, the values written as their str()."""
    info = {"device": "vendor npu", "handle": object(), "clock": math.nan, "cores": 8}
    entry_points.append(PluginEntry("vendor", lambda: [MisbehavingBackend("describe", info)]))
    out = tmp_path / "out"
    assert run_cli(out, "fault-describe", "onnx-reference") == 0

    def no_constants(name: str) -> Any:
        raise AssertionError(f"results.json holds {name}, not JSON")

    document = json.loads((out / "results.json").read_text(encoding="utf-8"), parse_constant=no_constants)
    described = document["backends"]["fault-describe"]
    assert described["device"] == "vendor npu" and described["cores"] == 8
    assert described["handle"].startswith("<object object at ") and described["clock"] == "nan"
    results = read_results(out / "results.json").results
    assert {r.backend for r in results} == {"fault-describe", "onnx-reference"}
    assert {r.verdict for r in results} == {"pass"}


# --- names -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["my runtime", "evil\x1b[2J", "trailing-", "a--b", "dotted.name", "x" * 65, "ünï"])
def test_a_plugin_name_not_of_the_documented_form_is_unavailable(entry_points: list[PluginEntry], name: str) -> None:
    entry_points.append(PluginEntry("vendor", lambda: [MisbehavingBackend("none", None, name=name)]))
    (stand_in,) = [b for b in registry.all_backends() if isinstance(b, registry.UnusablePlugin)]
    assert stand_in.name == "vendor", "the stand-in takes the entry point's name"
    status = stand_in.availability()
    assert not status.available
    assert status.reason.startswith("plugin 'vendor' (vendor_plugin:backends): backend ")
    assert repr(name) in status.reason and "letters, digits and single dashes" in status.reason
    assert "at most 64 characters" in status.reason
    assert not any(ord(c) < 32 or 127 <= ord(c) < 160 for c in status.reason), "no control character raw"


def test_a_stand_in_never_takes_a_bad_entry_point_name(entry_points: list[PluginEntry]) -> None:
    def broken() -> list[Backend]:
        raise ImportError("no module named vendor_runtime")

    entry_points.append(PluginEntry("fine", lambda: [MisbehavingBackend("none", None, name="fine-topk")]))
    entry_points.append(PluginEntry("bad\x1b]0;owned\x07", broken))
    names = [b.name for b in registry.all_backends()]
    assert "fine-topk" in names and "plugin-2" in names
    assert all(registry.valid_name(n) for n in names), names
    (stand_in,) = registry.by_name(["plugin-2"])
    assert stand_in.availability() == Availability(
        False, "plugin 'bad\\x1b]0;owned\\x07' (vendor_plugin:backends) failed to load: "
        "ImportError: no module named vendor_runtime")


def test_builtin_backend_names_are_of_the_documented_form() -> None:
    assert all(registry.valid_name(b.name) for b in registry.builtin_backends())


def test_allow_unavailable_runs_the_others(entry_points: list[PluginEntry], tmp_path: Path) -> None:
    entry_points.append(PluginEntry("vendor", lambda: [MisbehavingBackend("runs", ValueError("boom"))]))
    out = tmp_path / "out"
    assert cli.main(["run", "--backend", "fault-runs", "--backend", "onnx-reference", "--allow-unavailable",
                     "--cases", str(CASE_FILE), "--case", TRIGGER_CASE, "--out", str(out)]) == 0
    results = read_results(out / "results.json").results
    assert {r.verdict for r in results if r.backend == "onnx-reference"} == {"pass"}
    skips = [r for r in results if r.backend == "fault-runs"]
    assert skips and all(r.verdict == "skip" and "runs() raised ValueError: boom" in r.message for r in skips)


class InterfaceTwoBackend(OnnxReference):
    """A plugin written for interface 2: it returns TopK's pair, Execution(values, indices, ...)."""

    name = "interface-two"
    interface_version = 2

    def run(self, graph: Graph) -> Execution:
        named = super().run(graph).outputs
        return Execution(named["values"], named["indices"], placement="numpy")


def test_a_plugin_of_interface_2_still_runs_topk() -> None:
    """Interface 3 returns outputs by name; a plugin written for 2 is read as TopK's two
    outputs, is asked about TopK's graphs only, and its documented results pass."""
    backend = InterfaceTwoBackend()
    assert registry.declared_interface_version(InterfaceTwoBackend) == 2
    assert backend.operators_taken() == ("topk",)  # though OnnxReference runs every operator
    results = run_cases([documented(TRIGGER_CASE), documented(SECOND_CASE)], [backend], timeout=120)
    assert {r.op for r in results} == {"topk"}
    verdicts = Counter(r.verdict for r in results)
    assert set(verdicts) <= {"pass", "skip"} and verdicts["pass"] > 0, verdicts
