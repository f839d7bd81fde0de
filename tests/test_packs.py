"""Packs (run --pack N) change no result: OpenVINO's CPU runs graphs of several cases as
one model, and every graph gets the verdict, rules, domain and message it gets alone. A
pack that does not compile, or whose worker dies, is split until each graph has its own
answer; one that hangs sends its graphs alone; a wrong answer in a pack is recorded from the
graph's run alone. Real OpenVINO;
the faults are injected into the packs only (tests/pack_backends.py)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from harness import CASES, DOCUMENTED, run_cli
from pack_backends import HANG_LOG, POISONED, CompileFailingPacks, DyingPacks, SlowInPacks, WrongPacks

from conformance.backends.base import Backend
from conformance.backends.openvino_native import OpenVINO
from conformance.backends.record import Spoiler
from conformance.cases.loader import load_cases
from conformance.operator.interfaces import Case
from conformance.results.records import Result
from conformance.running.probed import variants_taken
from conformance.running.runner import GraphCache, execute, execute_pack, packable
from conformance.running.suite import Executors, _Pack, _Unit, _units, run_cases
from conformance.running.workers import takes_here

# Passes, errors (K out of range), fails and divergent results on openvino-cpu, in 3 files.
FILES = (DOCUMENTED / "openvino-topk11.yaml",
         CASES / "fuzz" / "fuzz-openvino-cpu-onnx-opset11-tie-order-uint32-8f834c0c.yaml")


def _cases() -> list[Case]:
    loaded = load_cases(list(FILES))
    assert not loaded.errors
    return list(loaded.cases)


def _record(result: Result) -> tuple[Any, ...]:
    return (result.case, result.graph, result.k_source, result.verdict, tuple(result.rules), result.domain,
            result.message, result.discrepancy)


def _run(backend: Backend, pack: int) -> list[Result]:
    return run_cases(_cases(), [backend], executors=Executors(timeout=60, jobs=1, pack=pack))


@pytest.fixture(scope="module")
def alone() -> list[Result]:
    return _run(OpenVINO("CPU"), 1)


def test_the_files_hold_every_kind_of_answer(alone: list[Result]) -> None:
    assert {r.verdict for r in alone} >= {"pass", "fail", "error", "divergent", "skip"}


def test_a_pack_records_its_passes_as_alone_and_sends_the_rest_alone() -> None:
    backend, graphs = OpenVINO("CPU"), GraphCache()
    takes = takes_here(backend)
    items = [(case, variant) for case in _cases() if packable(case) for variant in variants_taken(takes, case)]
    isolated = [execute(case, OpenVINO("CPU"), variant, GraphCache()) for case, variant in items]
    answers = execute_pack(items, backend, graphs)
    assert any(answer is None for answer in answers) and any(answer is not None for answer in answers)
    for answer, alone in zip(answers, isolated, strict=True):
        if answer is None:
            assert alone.verdict not in ("pass", "skip")  # judged again alone
        else:
            assert _record(answer) == _record(alone)
            assert answer.placement == alone.placement
    # The graphs that pass alone, as one pack: one compilation for all of them.
    passing = [item for item, alone in zip(items, isolated, strict=True) if alone.verdict == "pass"]
    answers = execute_pack(passing, OpenVINO("CPU"), GraphCache())
    assert all(answer is not None and answer.verdict == "pass" for answer in answers)
    assert [answer.compilations for answer in answers if answer] == [1] + [0] * (len(passing) - 1)


@pytest.mark.parametrize("pack", [2, 7, 64])
def test_packs_give_every_result_the_graph_gets_alone(alone: list[Result], pack: int) -> None:
    assert [_record(r) for r in _run(OpenVINO("CPU"), pack)] == [_record(r) for r in alone]


@pytest.mark.parametrize("backend", [CompileFailingPacks(), DyingPacks(), WrongPacks()],
                         ids=["compile-fails", "worker-dies", "wrong-answer"])
def test_a_faulty_pack_is_split_or_rerun_and_every_graph_keeps_its_answer_alone(
        alone: list[Result], backend: Backend) -> None:
    packed = _run(backend, 16)
    assert [_record(r) for r in packed] == [_record(r) for r in alone]
    poisoned = [r for r in packed if r.case == POISONED and r.verdict != "skip"]
    # Poisoned graphs that pass alone: recorded from those runs, not from the pack's.
    assert "pass" in {r.verdict for r in poisoned}
    assert all(r.compilations == 1 for r in poisoned if r.compilations)


def test_a_pack_that_hangs_sends_every_graph_alone_once(alone: list[Result], tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A pack past its time limit is not split in halves (each half that holds the slow graph
    would wait out the limit again, about 7 times for a pack of 64): its graphs go alone,
    each with its own limit, and get the answers they get alone."""
    log = tmp_path / "hangs.log"
    monkeypatch.setenv(HANG_LOG, str(log))
    packed = run_cases(_cases(), [SlowInPacks()], executors=Executors(timeout=5, jobs=1, pack=16))
    assert [_record(r) for r in packed] == [_record(r) for r in alone]
    hung = [int(size) for size in log.read_text().split()]  # graphs of each pack that held the slow ones
    assert hung and all(size > 16 // 2 for size in hung), f"a half of a pack waited out the limit again: {hung}"


def test_graphs_a_baseline_lists_run_alone_from_the_start(alone: list[Result]) -> None:
    """run --pack N --baseline B: a graph B lists as a discrepancy would run again alone, so
    it goes alone at once; every other graph still packs, and every result is the same."""
    known = frozenset((r.op, r.backend, r.case, r.graph, r.k_source) for r in alone
                      if r.verdict in ("fail", "divergent", "error"))
    assert known
    executors = Executors(timeout=60, jobs=1, pack=8)
    backend = OpenVINO("CPU")
    probed = Executors.probe_once([backend], 60)
    units = list(_units(_cases(), probed, lambda result: None, 8, known))
    packed = {(case.op, backend.name, case.id, variant.graph, variant.k_label)
              for unit in units if isinstance(unit, _Pack) for case, variant in unit.items}
    single = [(unit.case.op, backend.name, unit.case.id, variant.graph, variant.k_label)
              for unit in units if isinstance(unit, _Unit) for variant in unit.variants]
    assert packed and not packed & known and known <= set(single)
    executors.alone = known
    assert [_record(r) for r in run_cases(_cases(), [backend], executors=executors)] == [_record(r) for r in alone]


def test_the_gate_with_packs_holds_and_records_what_a_run_alone_records(tmp_path: Path) -> None:
    """The vendor's fast gate, `run --pack N --baseline B --strict-baseline`: B's discrepancies
    run alone at once, the rest in packs, and the results file is the one a run alone writes."""
    args = [arg for path in FILES for arg in ("--cases", path)] + ["--backend", "openvino-cpu", "--jobs", "1"]
    alone = run_cli("run", *args, "--out", tmp_path / "alone")
    assert alone.returncode == 0, alone.stderr
    recorded = run_cli("baseline", tmp_path / "alone" / "results.json", "-o", tmp_path / "baseline.yaml")
    assert recorded.returncode == 0, recorded.stderr
    gated = run_cli("run", *args, "--pack", "8", "--baseline", tmp_path / "baseline.yaml", "--strict-baseline",
                    "--out", tmp_path / "packed")
    assert gated.returncode == 0 and "gate: held" in gated.stderr, gated.stderr

    def records(folder: str) -> list[tuple[Any, ...]]:
        results = json.loads((tmp_path / folder / "results.json").read_text(encoding="utf-8"))["results"]
        return [(r["case"], r["graph"], r["k_source"], r["verdict"], r["rules"], r["domain"], r["message"])
                for r in results]

    assert records("packed") == records("alone")


def test_cases_whose_graphs_corrupt_the_process_go_in_no_pack() -> None:
    """A record's spoilers (TVM2: TopK on bfloat16 corrupts TVM's heap) run as units of their
    own case, never in a pack, where the corruption would reach the pack's other graphs."""
    probed = Executors.probe_once([OpenVINO("CPU")], 60)
    dtype = _cases()[0].dtype_name
    spoiling = [replace(probed[0], record=replace(probed[0].record, spoilers=(Spoiler("topk", dtype, "FAKE1"),)))]
    units = list(_units(_cases(), spoiling, lambda result: None, 8))
    packed = [case for unit in units if isinstance(unit, _Pack) for case, _ in unit.items]
    single = [unit.case for unit in units if isinstance(unit, _Unit)]
    assert not any(case.dtype_name == dtype for case in packed)
    assert any(case.dtype_name == dtype for case in single)
    assert packed, "the other cases still pack"
