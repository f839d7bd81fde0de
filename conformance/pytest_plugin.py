"""The pytest plugin: `pytest --backend ort-cpu --backend openvino-cpu` runs every case in
cases/ as a test per operator, backend, graph and K source, e.g.
`dml-top-k1-example-3[topk-ort-cpu-onnx-opset11-constant]` or
`dml-argmax-example-1[argmax-ort-cpu-onnx-opset13-none]`. Tags and operators are markers
(`-m ties`, `-m argmax`)."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.backends.base import Availability, Backend
from conformance.backends.registry import by_name
from conformance.cases.corpus import default_case_roots, shipped_corpus
from conformance.cases.loader import CaseError, load_file
from conformance.core.options import positive_seconds
from conformance.core.text import printable
from conformance.findings.records import upstream_labels
from conformance.gate import Baseline, BaselineError, compare, read_baseline
from conformance.operator.interfaces import Case, Variant
from conformance.repro import repro_note
from conformance.results.records import Result
from conformance.running.suite import Executors


class DivergentWarning(UserWarning):
    """Valid under the dialect, but not the DirectML answer."""


class CaseFailed(Exception):
    """A fail, error or crash verdict; the message is the repro note."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("topk-conformance")
    group.addoption("--backend", action="append", default=[], metavar="NAME",
                    help="run the TopK cases on this backend (repeatable)")
    group.addoption("--cases", action="append", default=[], metavar="PATH",
                    help="folders holding case files (default: cases/ under the rootdir if present, "
                    "else the corpus shipped with the package)")
    group.addoption("--allow-unavailable", action="store_true",
                    help="a --backend that cannot run here skips its tests instead of a usage error")
    group.addoption("--baseline", type=Path, metavar="FILE",
                    help="the gate: a discrepancy the baseline records is an xfail; anything worse fails")
    group.addoption("--strict-baseline", action="store_true",
                    help="with --baseline: a recorded discrepancy that now passes fails too")
    group.addoption("--strict-dml", action="store_true",
                    help="fail divergent results (valid, but not the DirectML answer)")
    group.addoption("--case-timeout", type=positive_seconds, default=60.0, metavar="SECONDS",
                    help="time one graph may take before its worker is killed")


def pytest_configure(config: pytest.Config) -> None:
    names = config.getoption("backend")
    if not names:
        return
    try:
        backends = by_name(names)
    except KeyError as exc:
        raise pytest.UsageError(str(exc.args[0])) from None
    state = _State(backends, Executors(timeout=config.getoption("case_timeout")), config)
    missing = [name for name, status in state.availability.items() if not status.available]
    if missing and not config.getoption("allow_unavailable"):
        state.executors.close()
        reasons = "; ".join(f"{name}: {printable(state.availability[name].reason)}" for name in missing)
        # A CI job that lost its runtime must not stay green on a run of skips.
        raise pytest.UsageError(f"backend not available here ({reasons}); --allow-unavailable skips them instead")
    config.stash[_STATE] = state
    _pyargs_to_the_corpus(config)


def _pyargs_to_the_corpus(config: pytest.Config) -> None:
    """`--pyargs conformance` collects the package's folder: in a wheel the corpus lies inside
    it (conformance/corpus/), in an editable install beside it (the checkout's cases/), where
    pytest would find nothing. Either way, the shipped corpus is what it names."""
    corpus = shipped_corpus()
    if config.getoption("pyargs") and corpus is not None and "conformance" in config.args:
        config.args[:] = [str(corpus) if arg == "conformance" else arg for arg in config.args]


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is not None:
        state.executors.close()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    state = parent.config.stash.get(_STATE, None)
    if state is None or file_path.suffix not in (".yaml", ".yml") or not state.holds(file_path):
        return None
    file: CaseFile = CaseFile.from_parent(parent, path=file_path)
    return file


class _State:
    def __init__(self, backends: list[Backend], executors: Executors, config: pytest.Config) -> None:
        self.backends = backends
        self.executors = executors
        baseline_path = config.getoption("baseline")
        try:
            self.baseline: Baseline | None = read_baseline(baseline_path) if baseline_path else None
        except BaselineError as exc:
            raise pytest.UsageError(str(exc)) from None
        # Asked in each backend's worker, under the time limit: a hang there is a reason.
        # Probed once; what each takes is carried from here (its runs() is not called again).
        self.probed = executors.probe(backends)
        self.availability: dict[str, Availability] = {p.name: p.availability for p in self.probed}
        # What the gate compares with the device or adapter a baseline was recorded on.
        self.described = {p.name: p.description() for p in self.probed if p.available}
        # Without --cases: the rootdir's cases/, else the shipped corpus (conformance/cases/corpus.py);
        # `pytest --backend NAME --pyargs conformance` then runs the shipped corpus from anywhere.
        roots = config.getoption("cases") or default_case_roots(config.rootpath)
        self.roots = [(config.rootpath / root).resolve() for root in roots]

        self.config = config
        self.markers: set[str] = set()

    def register_marker(self, tag: str) -> None:
        """Case tags and operators become markers, so `-m ties` selects by tag, `-m argmax` by operator."""
        if tag not in self.markers:
            self.markers.add(tag)
            self.config.addinivalue_line("markers", f"{tag}: cases tagged '{tag}', or of the operator '{tag}'")

    def holds(self, path: Path) -> bool:
        resolved = path.resolve()
        return any(resolved.is_relative_to(root) for root in self.roots)


_STATE = pytest.StashKey[_State]()


class CaseFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        state = self.config.stash[_STATE]
        for item in load_file(self.path):
            if isinstance(item, CaseError):
                yield BadCaseItem.from_parent(self, name=f"{item.case or 'file'}[case-file-error]", error=item)
                continue
            for probed in state.probed:
                for variant in probed.variants(item):
                    test = CaseItem.from_parent(
                        self, name=f"{item.id}[{item.op}-{probed.name}-{variant.label}]",
                        case=item, backend=probed.backend, variant=variant,
                    )
                    for tag in (item.op, *item.tags):
                        state.register_marker(tag)
                        test.add_marker(tag)
                    yield test


class BadCaseItem(pytest.Item):
    def __init__(self, *, error: CaseError, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.error = error

    def runtest(self) -> None:
        raise CaseFailed(str(self.error))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        return str(excinfo.value)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, self.name


@functools.cache
def _upstream_labels() -> dict[str, str]:
    return upstream_labels()


def _held_to_baseline(result: Result, baseline: Baseline, strict: bool,
                      described: dict[str, dict[str, Any]]) -> None:
    """The gate per test: a recorded discrepancy is an xfail naming why it is known; one
    that now passes is a pass (a failure with --strict-baseline); anything worse or new
    falls through to the usual failure. On another device or adapter than the baseline
    records, a difference from it is an xfail that says so."""
    comparison = compare([result], baseline, findings=_upstream_labels(), described=described)
    apart = comparison.apart
    if apart is not None and (apart.regressions or apart.fixed):
        pytest.xfail(f"{[*apart.regressions, *apart.fixed][0]}: {result.backend} runs elsewhere than the baseline "
                     f"was recorded ({comparison.moved[result.backend]})")
    if comparison.regressions or result.backend not in baseline.backends:
        return
    recorded = baseline.applying(result)
    if recorded is None:
        return
    if comparison.fixed:
        if strict:
            raise CaseFailed(f"{comparison.fixed[0]}: the baseline records a discrepancy that is gone; update it")
        return
    why = baseline.notes.get(recorded.note, "") if recorded.note else ""
    pytest.xfail(f"known {recorded.verdict} {list(recorded.rules)} in the baseline" + (f": {why}" if why else ""))


class CaseItem(pytest.Item):
    def __init__(self, *, case: Case, backend: Backend, variant: Variant, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.backend = backend
        self.variant = variant

    def runtest(self) -> None:
        state = self.config.stash[_STATE]
        status = state.availability[self.backend.name]
        if not status.available:
            pytest.skip(f"{self.backend.name} is not available: {status.reason}")
        result: Result = state.executors.for_backend(self.backend)(self.case, self.variant)
        if result.verdict == "skip":
            pytest.skip(result.message)
        if state.baseline is not None:
            _held_to_baseline(result, state.baseline, self.config.getoption("strict_baseline"), state.described)
        if result.verdict == "pass":
            return
        note = repro_note(self.case, result)
        if result.verdict == "divergent" and not self.config.getoption("strict_dml"):
            warnings.warn(DivergentWarning(note), stacklevel=1)
            return
        raise CaseFailed(note)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        # A known discrepancy (xfail) needs its reason, not a traceback: formatting one with
        # source lines cost ~0.2 s per xfail, minutes over a baseline of a thousand entries.
        if isinstance(excinfo.value, CaseFailed | pytest.xfail.Exception):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, self.name
