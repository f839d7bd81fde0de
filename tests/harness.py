"""Helpers shared by the harness tests: where things are, loading shipped cases, and
running the command line the way a CI script does (no TTY, stdin closed, CI=true)."""

from __future__ import annotations

import os
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import pytest

from conformance.backends.base import Backend
from conformance.backends.registry import by_name
from conformance.cases.loader import CaseError, load_cases, load_file
from conformance.gate import Baseline, read_baseline
from conformance.ops.topk.case import Case

REPO = Path(__file__).resolve().parent.parent
CASES = REPO / "cases"
DOCUMENTED = CASES / "documented"
BASELINES = Path(__file__).resolve().parent / "baselines"

CONTRACT_BACKENDS = (
    "onnx-reference", "ort-cpu", "ort-openvino", "ort-cuda", "ort-dml", "ort-dml-wine", "directml-wine",
    "openvino-cpu", "openvino-gpu", "openvino-npu", "ort-web-wasm", "ort-web-webgpu",
)
# OpenVINO's CPU held to a lower instruction-set tier (issue 15; not yet in the contract's list).
ISA_LIMITED_BACKENDS = ("openvino-cpu-avx2", "openvino-cpu-avx")
# Runtimes beyond the contract's list (issue 19: tract, through its Python bindings).
# Issue 35: the compilers, IREE (on the CPU and as SPIR-V shaders on two CPU Vulkans) and TVM.
# Issue 36: the edge and native runtimes (tinygrad, MNN, ONNX Runtime's native WebGPU plugin, LiteRT).
MORE_RUNTIMES = ("tract", "iree-cpu", "iree-vulkan-swiftshader", "iree-vulkan-lavapipe", "tvm-cpu", "tinygrad-cpu",
                 "mnn-cpu", "ort-webgpu", "litert-cpu")


@cache
def documented_cases() -> tuple[Case, ...]:
    loaded = load_cases([DOCUMENTED])
    assert not loaded.errors, [str(e) for e in loaded.errors]
    return tuple(loaded.cases)


def documented(case_id: str) -> Case:
    return next(case for case in documented_cases() if case.id == case_id)


def cases_from_yaml(path: Path, text: str) -> list[Case]:
    """Cases from a YAML text written to `path`; every case must load."""
    path.write_text(text, encoding="utf-8")
    items = load_file(path)
    bad = [str(item) for item in items if isinstance(item, CaseError)]
    assert not bad, bad
    return [item for item in items if not isinstance(item, CaseError)]  # type: ignore[misc]


def run_cli(*args: str | Path, cwd: Path = REPO, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`python -m conformance ARGS` as a CI job runs it: stdout a pipe, stdin closed."""
    env = dict(os.environ, CI="true", COLUMNS="400")
    env.pop("FORCE_COLOR", None)
    return subprocess.run(
        [sys.executable, "-m", "conformance", *map(str, args)],
        cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=timeout, check=False,
    )


ResultKey = tuple[str, str, str, str, str, tuple[str, ...]]


def non_pass_set(results: list[dict[str, Any]]) -> set[ResultKey]:
    """What a baseline records of a backend's results: every one neither pass nor skip."""
    return {
        (r["op"], r["case"], r["graph"], r["k_source"], r["verdict"], tuple(r["rules"]))
        for r in results if r["verdict"] not in ("pass", "skip")
    }


def baseline(backend: str) -> Baseline:
    """The committed gate baseline of a backend (tests/baselines/BACKEND.yaml), as it holds
    on this machine (the entries scoped to the backend's instruction-set tier here)."""
    return read_baseline(BASELINES / f"{backend}.yaml").narrowed(by_name([backend])[0].isa())


def baseline_set(recorded: Baseline, cases: set[str] | None = None) -> set[ResultKey]:
    """The recorded discrepancies, of some cases only if `cases` is given."""
    return {
        (e.op, e.case, e.graph, e.k_source, e.verdict, e.rules)
        for e in recorded.entries.values() if cases is None or e.case in cases
    }


B = TypeVar("B", bound=Backend)


def require_available(backend: B) -> B:
    """The backend, available here; else the test is skipped, and under CI=true it fails, so a
    CI job that lost a backend's setup cannot stay green."""
    status = backend.availability()
    if not status.available:
        if os.environ.get("CI"):
            pytest.fail(f"{backend.name} is not available in CI: {status.reason}")
        pytest.skip(f"{backend.name} is not available: {status.reason}")
    return backend


def ordinary_variants(backend: Backend, op: str = "topk") -> list[Any]:
    """The variants a case without `attributes: minimal` runs on the backend: every variant it
    takes less the minimal ONNX twins, which run on minimal cases only."""
    from conformance.operator.attributes import is_minimal_graph
    from conformance.running.probed import variants_taken
    from conformance.running.workers import takes_here

    return [v for v in variants_taken(takes_here(backend), op=op) if not is_minimal_graph(v.graph)]
