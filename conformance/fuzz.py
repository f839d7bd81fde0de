"""`topk-conformance fuzz`: differential testing driven by hypothesis.

Hypothesis draws an operator's inputs (its record's `fuzz`: conformance/ops/topk/fuzz.py);
each runs on the backend through every graph variant it takes, with the suite's own runner
in a worker process (a crash is a result, as in `run`), and each result is judged as in `run`. A discrepancy (a
result neither pass nor skip) has a *signature* per broken rule: (backend, graph, rule,
element type), where the rule is the judge's rule for a `fail` and `raised`, `divergent` or
`crash` for the other verdicts.

A budget is spent on many different discrepancies rather than one many times. The search
runs as a series of hypothesis searches; in each, the test function raises only on a
signature not found before. The first such signature becomes the search's target, and from
then on (hypothesis is shrinking) only the graph variant that showed it is run, and only it
counts: hypothesis shrinks the input to a minimal one with that signature. The signature is
then known, the minimal input is run once more through every variant, written as a case
file ready to commit (`DIR/<case id>.yaml`, with the seed, the verdict and the rules seen,
and the versions in `source:` and in a comment), loaded back with the suite's loader and run
again to check that it reproduces, and the next search starts.

Outcomes are remembered per (input, variant), so hypothesis replaying an input (shrinking,
the example database) costs nothing, and a backend whose answer would differ between runs
cannot make the search flaky. The example database (`DIR/.hypothesis/examples`) persists
between runs: its minimal inputs are tried first in the next run, and are never deleted
when a later search of the same run no longer counts them (see `KeepingDatabase`)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import sys
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.live import Live
from rich.text import Text

from conformance.backends.base import Backend
from conformance.cases.corpus import default_case_roots
from conformance.cases.loader import load_cases
from conformance.core.atomic_files import WriteError, atomic_write_text
from conformance.core.dtypes import to_jsonable
from conformance.core.interrupts import Interrupted, interruptible
from conformance.core.options import positive_seconds
from conformance.core.text import printable
from conformance.core.tool_input import InputError, limit, limit_note
from conformance.fuzz_known import KnownClasses, Signature, known_classes, rules_broken
from conformance.gate import BaselineError, read_baseline
from conformance.operator.attributes import is_minimal_graph
from conformance.operator.interfaces import Case, Variant
from conformance.ops.registry import DEFAULT, OPERATORS, operator
from conformance.results.output import FolderInUse, OutputFolder
from conformance.results.records import Result, environment
from conformance.running.probed import variants_taken
from conformance.running.suite import Executor, Executors, PackExecutor
from conformance.running.workers import takes_here

if TYPE_CHECKING:  # hypothesis, which the strategies need, is imported only when fuzzing
    from conformance.operator.fuzzing import FuzzExample, FuzzSupport

DEFAULT_OUT = Path("reports/fuzz")
DEFAULT_BUDGET = 60.0
EXAMPLES_PER_SEARCH = 25  # a search without a new signature ends after this many inputs
GRACE = 0.25  # shrinking may run this share of the budget (at least 10 s) past it
SHRINK_SECONDS = 30.0  # hypothesis's shrinking of one signature runs inputs for at most this long
TIGHTEN_RUNS = 200  # inputs the final pass (`Session.tighten`) may run


def signatures(result: Result, dtype: str) -> list[Signature]:
    """One signature per broken rule of a discrepancy; none for pass and skip."""
    return [(result.backend, result.graph, rule, dtype) for rule in rules_broken(result.verdict, result.rules)]


def signature_text(signature: Signature) -> str:
    backend, graph, rule, dtype = signature
    return f"{backend} {graph} {rule} {dtype}"


@dataclass
class Finding:
    """A signature and the minimal input that shows it."""

    signature: Signature
    example: FuzzExample
    result: Result  # the target variant's result on the minimal input
    seed: int
    search: int
    all_results: list[Result] = field(default_factory=list)  # every variant, minimal input
    also: list[Signature] = field(default_factory=list)  # other new signatures the input shows
    shrunk: FuzzExample | None = None  # hypothesis's minimal input, before `Session.tighten`
    path: Path | None = None
    reproduced: bool | None = None
    reproduced_verdict: str = ""


class NewDiscrepancy(Exception):
    """Raised by the test function: the input shows the search's target signature."""

    def __init__(self, signature: Signature) -> None:
        super().__init__(signature_text(signature))
        self.signature = signature


@dataclass
class Status:
    """What the live line shows."""

    examples: int = 0  # inputs run on the backend (replays from memory not counted)
    searched: int = 0  # inputs run through several graph variants at once (the search, not shrinking)
    packs: int = 0  # of those, the inputs whose graphs ran as one model (the backend runs packs)
    calls: int = 0  # inputs hypothesis asked about
    search: int = 0
    shrinking: str = ""
    shrink_steps: int = 0
    found: list[Signature] = field(default_factory=list)


class Session:
    """One fuzz run on one backend: the executor, what was found, the current search."""

    def __init__(self, backend: Backend, execute: Executor, out: Path, seed: int, budget: float,
                 dtypes: tuple[str, ...] | None = None, on_change: Callable[[], None] = lambda: None,
                 takes: Collection[str] | None = None, op: str = DEFAULT,
                 execute_pack: PackExecutor | None = None, known: KnownClasses | None = None) -> None:
        self.backend = backend
        self.known = known  # a baseline's classes of discrepancy (fuzz --baseline): each signature is told apart
        # An input's graphs as one model where the backend runs packs: only their passes are
        # taken from it, every other graph runs alone (runner.execute_pack), as in `run --pack`.
        self.execute_pack = execute_pack
        self.op = op
        self.support = _support(op)
        self.execute = execute
        self.out = out
        self.seed = seed
        # Its inputs are cases writing every attribute: minimal graphs are for minimal cases.
        taken = takes if takes is not None else takes_here(backend)  # without an answer: asked here
        self.variants = [v for v in variants_taken(taken, op=op) if not is_minimal_graph(v.graph)]
        self.dtypes = dtypes
        self.started = time.monotonic()
        self.soft_deadline = self.started + budget
        self.hard_deadline = self.soft_deadline + max(10.0, GRACE * budget)
        self.found: dict[Signature, Finding] = {}
        self.status = Status()
        self.on_change = on_change
        self.memory: dict[tuple[str, str], Result] = {}  # (input key, variant label) -> result
        self.examples: dict[str, FuzzExample] = {}
        self.target: Signature | None = None
        self.target_variant: Variant | None = None
        self.target_example: FuzzExample | None = None
        self.shrink_until = 0.0  # hypothesis's shrinking runs new inputs until then
        self.first_example: FuzzExample | None = None  # the first input hypothesis asked about
        self.search_seed = seed
        self.stop: Interrupted | WriteError | None = None
        self.summary_error = ""  # why fuzz.json could not be written
        self.interrupted: Callable[[], bool] = lambda: False  # a signal came: run nothing more

    # --- running one input ------------------------------------------------------------

    def case_of(self, example: FuzzExample) -> Case:
        return example.case(f"fuzz-{example.key()}", self.out / f"fuzz-{example.key()}.yaml")

    def results(self, example: FuzzExample, variants: list[Variant], run: bool = True) -> list[Result] | None:
        """The results of `example` through `variants`, from memory where known; None when
        some are unknown and `run` is false."""
        key = example.key()
        missing = [v for v in variants if (key, v.label) not in self.memory]
        if missing and not run:
            return None
        if missing:
            case = self.case_of(example)
            self.examples[key] = example
            packed = self._packed(case, missing)
            for variant, answer in zip(missing, packed, strict=True):
                self.memory[(key, variant.label)] = answer if answer is not None else self.execute(case, variant)
            self.status.examples += 1
        return [self.memory[(key, v.label)] for v in variants]

    def _packed(self, case: Case, variants: list[Variant]) -> list[Result | None]:
        """The graphs' final results from one pack (None: run it alone); all None where
        there is no pack to run."""
        if len(variants) > 1:
            self.status.searched += 1
        if self.execute_pack is None or len(variants) < 2:
            return [None] * len(variants)
        answers = self.execute_pack([(case, variant) for variant in variants])
        if answers is None or len(answers) != len(variants):
            return [None] * len(variants)  # the worker died or hung: each graph alone
        self.status.packs += 1
        return answers

    # --- the test function hypothesis calls ------------------------------------------

    def check(self, example: FuzzExample) -> None:
        """Raises NewDiscrepancy where `example` shows the search's target (or, before there
        is one, any signature not found yet, which becomes the target). One raise statement:
        hypothesis tells failures apart by where they are raised."""
        self.status.calls += 1
        if self.first_example is None:
            self.first_example = example
        try:
            shows = self._shows_target(example)
        finally:
            self.on_change()
        if shows:
            assert self.target is not None
            raise NewDiscrepancy(self.target)

    def _shows_target(self, example: FuzzExample) -> bool:
        if self.interrupted():
            return False
        now = time.monotonic()
        if self.target is None:
            if now > self.soft_deadline:
                return False  # the budget is spent: no new search work
            results = self.results(example, self.variants)
            assert results is not None
            new = self._new_signatures(results, example)
            if not new:
                return False
            signature, result = new[0]
            self.target = signature
            self.target_variant = next(v for v in self.variants if v.label == _label(result))
            self.target_example = example
            self.status.shrinking = signature_text(signature)
            self.status.shrink_steps = 0
            self.shrink_until = min(self.hard_deadline, now + SHRINK_SECONDS)
            return True
        assert self.target_variant is not None
        # Shrinking: only the target's variant runs, and only the target counts. Past the
        # shrinking's time, only what is already known is answered.
        results = self.results(example, [self.target_variant], run=now <= self.shrink_until)
        if results is None or self.target not in signatures(results[0], example.dtype_name):
            return False
        # Hypothesis replays its minimal input last: the last input that raised is it.
        self.target_example = example
        self.status.shrink_steps += 1
        return True

    def _new_signatures(self, results: list[Result], example: FuzzExample) -> list[tuple[Signature, Result]]:
        new: list[tuple[Signature, Result]] = []
        for result in results:
            for signature in signatures(result, example.dtype_name):
                if signature not in self.found and signature not in (s for s, _ in new):
                    new.append((signature, result))
        # Broken promises first, then raised, divergent, crash; then in variant order.
        order = {"raised": 1, "divergent": 2, "crash": 3}
        new.sort(key=lambda item: order.get(item[0][2], 0))
        return new

    # --- after a search ----------------------------------------------------------------

    def shows(self, example: FuzzExample) -> Result | None:
        """The target variant's result on `example` where it shows the target signature."""
        assert self.target is not None and self.target_variant is not None
        results = self.results(example, [self.target_variant])
        assert results is not None
        return results[0] if self.target in signatures(results[0], example.dtype_name) else None

    def tighten(self, minimal: FuzzExample) -> FuzzExample:
        """What hypothesis shrank, made smaller still where the target still shows: the one
        sequence where it shows, other dimensions cut to one index, elements dropped along
        the axis, a smaller K, plainer settings, simpler values (`simpler`). Greedy, at most
        TIGHTEN_RUNS inputs run, and not past the hard deadline."""
        current, result = minimal, self.shows(minimal)
        if result is None:  # a backend that answers differently now: keep hypothesis's
            return minimal
        tried = 0
        improved = True
        while improved and tried < TIGHTEN_RUNS and time.monotonic() < self.hard_deadline:
            improved = False
            for candidate in self.support.simpler(current, result):
                if tried >= TIGHTEN_RUNS or time.monotonic() >= self.hard_deadline:
                    break
                tried += 1
                shown = self.shows(candidate)
                if shown is not None:
                    current, result, improved = candidate, shown, True
                    self.status.shrink_steps += 1
                    self.on_change()
                    break
        return current

    def settle(self, minimal: FuzzExample, search: int) -> Finding:
        """Record the target as found, with its minimal input run through every variant; the
        other new signatures that input shows are found with it."""
        assert self.target is not None and self.target_variant is not None
        signature = self.target
        shrunk, minimal = minimal, self.tighten(minimal)
        target_result = self.results(minimal, [self.target_variant])
        assert target_result is not None
        everything = self.results(minimal, self.variants) or []
        finding = Finding(signature, minimal, target_result[0], self.search_seed, search, everything, shrunk=shrunk)
        self.found[signature] = finding
        self.status.found.append(signature)
        for other, _ in self._new_signatures(everything, minimal):
            finding.also.append(other)
            self.found[other] = finding
            self.status.found.append(other)
        self.target = self.target_variant = self.target_example = None
        self.status.shrinking = ""
        self.on_change()
        return finding


def _label(result: Result) -> str:
    return f"{result.graph}-{result.k_source}"


# --- hypothesis ----------------------------------------------------------------------------


def keeping_database(path: Path) -> Any:
    """A DirectoryBasedExampleDatabase at `path` whose primary entries (each search's minimal
    inputs) are never deleted: a later search of the same run no longer counts a signature
    already found, and hypothesis would otherwise drop its input as no longer failing."""
    from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

    class KeepingDatabase(ExampleDatabase):
        def __init__(self, inner: DirectoryBasedExampleDatabase) -> None:
            super().__init__()
            self.inner = inner

        def save(self, key: bytes, value: bytes) -> None:
            self.inner.save(key, value)

        def fetch(self, key: bytes) -> Any:
            return self.inner.fetch(key)

        def delete(self, key: bytes, value: bytes) -> None:
            if key.endswith((b".secondary", b".pareto")):
                self.inner.delete(key, value)

        def move(self, src: bytes, dest: bytes, value: bytes) -> None:
            self.inner.move(src, dest, value)

    return KeepingDatabase(DirectoryBasedExampleDatabase(str(path)))


def _search(session: Session, search: int, database: Any) -> FuzzExample | None:
    """One hypothesis search; the minimal input of its target, or None if it found none."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as hypothesis_seed

    from conformance.operator.fuzzing import DTYPE_ORDER

    session.search_seed = session.seed * 1000 + search
    session.status.search = search

    @settings(
        database=database, max_examples=EXAMPLES_PER_SEARCH, deadline=None, derandomize=False,
        phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink), report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet, print_blob=False,
    )
    @hypothesis_seed(session.search_seed)
    @given(session.support.inputs(session.dtypes or DTYPE_ORDER))
    def fuzz_one(example: FuzzExample) -> None:
        session.check(example)

    # One database key per operator and backend (and element types searched): the test's source is the same.
    digest = f"{session.op}:{session.backend.name}:{','.join(session.dtypes or ())}".encode()
    inner = fuzz_one.hypothesis.inner_test  # type: ignore[attr-defined]
    inner._hypothesis_internal_add_digest = digest
    try:
        fuzz_one()
    except NewDiscrepancy:
        assert session.target_example is not None
        return session.target_example
    except Exception as exc:  # hypothesis gave up (flaky, unsatisfiable): keep what it shrank to
        if session.target_example is None or session.interrupted():
            raise  # a signal hypothesis turned into its own error: the caller says it was the signal
        print(f"fuzz: hypothesis stopped: {type(exc).__name__}: {exc}", file=sys.stderr)
        return session.target_example
    return None


def fuzz(backend: Backend, execute: Executor, out: Path, budget: float, seed: int,
         dtypes: tuple[str, ...] | None = None, on_change: Callable[[Session], None] = lambda s: None,
         info: dict[str, Any] | None = None, takes: Collection[str] | None = None, op: str = DEFAULT,
         execute_pack: PackExecutor | None = None, known: KnownClasses | None = None) -> Session:
    """Searches until the budget is spent; every finding is written to `out` and checked.
    SIGINT or SIGTERM (Interrupted) and a file that cannot be written (WriteError) end the
    search: the summary is written with what was found (where it can be), and the session
    keeps what stopped it (`stop`), for the caller to say."""
    out.mkdir(parents=True, exist_ok=True)
    database_path = out / ".hypothesis" / "examples"
    check_database(database_path)
    database = keeping_database(database_path)
    session = Session(backend, execute, out, seed, budget, dtypes, takes=takes, op=op, execute_pack=execute_pack,
                      known=known)
    session.on_change = lambda: on_change(session)
    search = 0
    try:
        # Recorded, not raised: the session runs nothing more once a signal came, hypothesis
        # ends its search, and the loop stops here (an exception raised into hypothesis while
        # it draws data is reported as a flaky strategy, or lost in a callback).
        with interruptible(at_once=False) as received:
            session.interrupted = lambda: received.signum is not None
            while time.monotonic() < session.soft_deadline:
                search += 1
                try:
                    minimal = _search(session, search, database)
                except Exception:
                    if received.signum is None:
                        raise
                    minimal = None  # hypothesis's own error at the input that ran nothing
                if received.signum is not None:
                    raise Interrupted(received.signum)
                if minimal is None:
                    continue
                finding = session.settle(minimal, search)
                write_case(finding, out, info or {})
                verify(finding, execute)
    except (Interrupted, WriteError) as stop:
        session.stop = stop
    try:
        write_summary(session, out)
    except WriteError as exc:
        session.summary_error = str(exc)
    return session


def check_database(path: Path) -> None:
    """Hypothesis's example database as it writes one: a folder of folders of small regular
    files. Anything else (a link, a FIFO, a file too large to be an example) is an
    InputError naming it, before hypothesis reads it."""
    if not os.path.lexists(path):
        return
    if path.is_symlink() or not path.is_dir():
        raise InputError(path, "", "the example database is not a folder; remove it (hypothesis remakes it)")
    most = limit("fuzz_entry_bytes")
    try:
        for key in os.scandir(path):
            if key.is_symlink() or not key.is_dir():
                raise InputError(key.path, "", "not a folder of hypothesis's example database; remove it")
            for value in os.scandir(key.path):
                if value.is_symlink() or not value.is_file():
                    raise InputError(value.path, "", "not a regular file of hypothesis's example database; remove it")
                size = value.stat().st_size
                if size > most:
                    raise InputError(value.path, "", f"an example of {size} bytes, more than {most}; "
                                     f"{limit_note('fuzz_entry_bytes')}")
    except OSError as exc:
        raise InputError(path, "", f"cannot read the example database: {exc.strerror or exc}") from None


# --- the case file ------------------------------------------------------------------------


def case_id(finding: Finding) -> str:
    backend, graph, rule, dtype = finding.signature
    return f"fuzz-{backend}-{graph}-{rule}-{dtype}-{finding.example.key()[:8]}"


def _versions(info: dict[str, Any]) -> str:
    packages = environment().get("packages", {})
    names = [name for name in ("onnx", "onnxruntime", "openvino", "tract", "numpy") if name in packages]
    text = ", ".join(f"{name} {packages[name]}" for name in names)
    extra = {key: value for key, value in info.items() if key not in ("available", "reason", "device")}
    if extra:
        text += "; backend: " + ", ".join(f"{key} {value}" for key, value in extra.items())
    if info.get("device"):
        text += f"; device: {info['device']}"
    return text


def _flow(value: Any) -> str:
    """Nested lists as one YAML flow sequence (JSON is YAML): strings quoted, numbers exact."""
    return json.dumps(value, separators=(", ", ": "))


def case_text(finding: Finding, info: dict[str, Any]) -> str:
    example, result = finding.example, finding.result
    backend, graph, rule, dtype = finding.signature
    rules = f" [{', '.join(result.rules)}]" if result.rules else ""
    versions = _versions(info)
    seen = [r for r in finding.all_results if r.verdict not in ("pass", "skip")]
    support = _support(result.op)
    source = (f"topk-conformance fuzz (hypothesis, seed {finding.seed}): {backend} {graph} K {result.k_source}: "
              f"{result.verdict}{rules}; {versions}")
    lines = [
        # Search i of `--seed N` runs hypothesis seed 1000 N + i (_search): N is not seed // 1000 past search 999.
        f"# Found by `topk-conformance fuzz --backend {backend} --seed {(finding.seed - finding.search) // 1000}` "
        f"(search {finding.search}, hypothesis seed {finding.seed}) and shrunk by hypothesis.",
        f"# Signature: backend {backend}, graph {graph}, rule {rule}, element type {dtype}.",
        *([f"# The same input also shows: {'; '.join(signature_text(s) for s in finding.also)}."]
          if finding.also else []),
        f"# Verdict on {graph} (K {result.k_source}): {result.verdict}{rules}, domain {result.domain}",
        f"#   {printable(result.message)[:400]}",
        f"# Versions: {versions}",
        f"# Every variant on {backend}, this input ({len(seen)} of {len(finding.all_results)} not pass or skip):",
    ]
    lines += [f"#   {line}" for line in variant_lines(seen)]
    lines += ["cases:", f"  - id: {case_id(finding)}", f"    source: {json.dumps(source)}",
              f"    tags: [{', '.join(support.case_tags(example, list(variants_for_result(finding))))}]",
              *(support.tensor_lines(example) if support.tensor_lines else
                ["    input:", f"      dtype: {dtype}", f"      shape: {_flow(list(example.x.shape))}",
                 f"      data: {_flow(to_jsonable(example.x))}"])]
    if result.op != DEFAULT:
        lines.append(f"    op: {result.op}")
    lines += support.case_fields(example)
    if example.expect_error:
        lines.append("    expect_error: true")
    return "\n".join(lines) + "\n"


def _support(op: str) -> FuzzSupport:
    make = operator(op).fuzz
    if make is None:
        raise ValueError(f"the operator {op} has no fuzz strategies")
    return make()


def variant_lines(results: list[Result]) -> list[str]:
    """One line per verdict and rules, the graphs and K sources that gave it: `onnx-opset11
    (constant, input), openvino-topk3 (input): fail [gather]`, in the order first seen."""
    groups: dict[str, dict[str, list[str]]] = {}
    for result in results:
        outcome = result.verdict + (f" [{', '.join(result.rules)}]" if result.rules else "")
        groups.setdefault(outcome, {}).setdefault(result.graph, []).append(result.k_source)
    return [", ".join(f"{graph} ({', '.join(sources)})" for graph, sources in graphs.items()) + f": {outcome}"
            for outcome, graphs in groups.items()]


def write_case(finding: Finding, out: Path, info: dict[str, Any]) -> Path:
    path = out / f"{case_id(finding)}.yaml"
    atomic_write_text(path, case_text(finding, info))
    finding.path = path
    return path


def verify(finding: Finding, execute: Executor) -> bool:
    """Loads the written case with the suite's loader and runs it on the variant that showed
    the signature: it must give the same verdict and rules."""
    from conformance.cases.loader import load_file

    assert finding.path is not None
    loaded = load_file(finding.path)
    from conformance.cases.loader import CaseError

    cases = [item for item in loaded if not isinstance(item, CaseError)]
    if len(cases) != 1:
        finding.reproduced, finding.reproduced_verdict = False, f"did not load: {[str(i) for i in loaded]}"
        return False
    variant = next(v for v in variants_for_result(finding))
    again = execute(cases[0], variant)
    finding.reproduced_verdict = again.verdict + (f" [{', '.join(again.rules)}]" if again.rules else "")
    finding.reproduced = (again.verdict, again.rules) == (finding.result.verdict, finding.result.rules)
    return finding.reproduced


def variants_for_result(finding: Finding) -> Iterator[Variant]:
    wanted = _label(finding.result)
    return (v for v in operator(finding.result.op).variants() if v.label == wanted)


def findings(session: Session) -> list[Finding]:
    """Each finding once (several signatures may share one minimal input), in order found."""
    unique: dict[int, Finding] = {}
    for finding in session.found.values():
        unique.setdefault(id(finding), finding)
    return list(unique.values())


def _stopped(stop: Interrupted | WriteError | None) -> str:
    """Why the search stopped before its budget was spent ("" where it did not)."""
    if stop is None:
        return ""
    return f"stopped by {stop.name}" if isinstance(stop, Interrupted) else str(stop)


def write_summary(session: Session, out: Path) -> Path:
    def signature_dict(signature: Signature) -> dict[str, Any]:
        named: dict[str, Any] = dict(zip(("backend", "graph", "rule", "dtype"), signature, strict=True))
        if session.known is not None:
            entry = session.known.like(signature)
            named["known_like"] = None if entry is None else {
                "case": entry.case, "graph": entry.graph, "k_source": entry.k_source, "note": entry.note}
        return named

    summary = {
        "backend": session.backend.name, "seed": session.seed, "examples": session.status.examples,
        "calls": session.status.calls, "searches": session.status.search,
        "searched": session.status.searched, "packed": session.status.packs,
        "seconds": round(time.monotonic() - session.started, 1),
        "stopped": _stopped(session.stop),
        "baseline": session.known.source if session.known is not None else None,
        "signatures": [
            signature_dict(signature) | {"case": case_id(finding), "shrunk_for_it": signature == finding.signature}
            for signature, finding in session.found.items()
        ],
        "findings": [
            {"signature": signature_dict(f.signature), "also": [signature_dict(s) for s in f.also],
             "case": case_id(f), "file": str(f.path), "graph": f.result.graph, "k_source": f.result.k_source,
             "verdict": f.result.verdict, "rules": f.result.rules, "domain": f.result.domain,
             "reproduced": f.reproduced, "reproduced_verdict": f.reproduced_verdict,
             "message": f.result.message, "input": repr(f.example), "shrunk_by_hypothesis": repr(f.shrunk)}
            for f in findings(session)
        ],
    }
    path = out / "fuzz.json"
    atomic_write_text(path, json.dumps(summary, indent=2) + "\n")
    return path


# --- the command ---------------------------------------------------------------------------


def _line(session: Session) -> str:
    left = max(0.0, session.soft_deadline - time.monotonic())
    text = (f"fuzz {session.backend.name}: search {session.status.search}, {session.status.examples} examples run, "
            f"{len(session.found)} discrepancies found, {left:.0f} s left")
    if session.status.shrinking:
        text += f"; shrinking {session.status.shrinking} ({session.status.shrink_steps} smaller inputs)"
    return text


@contextlib.contextmanager
def _display(console: Console) -> Iterator[Callable[[Session], None]]:
    """A rich Live line on a terminal; a plain line every 10 s (and on each finding) otherwise."""
    if console.is_terminal:
        with Live(Text(""), console=console, refresh_per_second=4, transient=False) as live:
            yield lambda session: live.update(Text(_line(session)))
        return
    last = [0.0, 0]

    def plain(session: Session) -> None:
        now = time.monotonic()
        if now - last[0] >= 10 or len(session.found) != last[1]:
            last[0], last[1] = now, len(session.found)
            print(_line(session), flush=True)

    yield plain


def add_parser(commands: Any) -> None:
    fuzz_command = commands.add_parser(
        "fuzz", help="differential testing with hypothesis: minimal inputs of new discrepancies as case files")
    fuzz_command.add_argument("--backend", required=True, metavar="NAME", help="the backend to fuzz")
    fuzz_command.add_argument("--budget", type=positive_seconds, default=DEFAULT_BUDGET, metavar="SECONDS",
                              help=f"time to search (default: {DEFAULT_BUDGET:g}); shrinking the last finding "
                              f"may take up to {GRACE:.0%}% more")
    fuzz_command.add_argument("--seed", type=int, metavar="N", help="the searches' seeds (default: a random one)")
    fuzz_command.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="DIR",
                              help=f"where the case files, fuzz.json and the example database go "
                              f"(default: {DEFAULT_OUT})")
    fuzz_command.add_argument("--op", default=DEFAULT, choices=sorted(OPERATORS), metavar="OP",
                              help=f"the operator whose inputs to search ({', '.join(OPERATORS)}; default {DEFAULT})")
    fuzz_command.add_argument("--dtype", action="append", metavar="NAME",
                              help="only this element type (repeatable; default: all twelve)")
    fuzz_command.add_argument("--pack", action=argparse.BooleanOptionalAction, default=True,
                              help="run each input's graphs as one model where the backend runs packs (OpenVINO); "
                              "only passes are taken from a pack, every other graph runs alone (default: on)")
    fuzz_command.add_argument("--timeout", type=positive_seconds, default=60.0, metavar="SECONDS",
                              help="time one graph may take before its worker is killed (default: 60)")
    fuzz_command.add_argument("--baseline", type=Path, metavar="FILE",
                              help="a baseline of the backend (tests/baselines/NAME.yaml): each signature found is "
                              "said to be of a class it records (graph, rule, element type of its case, in the "
                              "corpus at cases/ or the shipped one), naming the entry, or of one it lacks")


def main(args: argparse.Namespace, console: Console) -> int:
    from conformance.backends.registry import by_name
    from conformance.operator.fuzzing import DTYPE_ORDER

    try:
        import hypothesis  # noqa: F401
    except ImportError:
        print("topk-conformance fuzz needs hypothesis: pip install hypothesis", file=sys.stderr)
        return 2
    try:
        (backend,) = by_name([args.backend])
    except KeyError as exc:
        print(f"topk-conformance: {printable(str(exc.args[0]))}", file=sys.stderr)
        return 2
    unknown = sorted(set(args.dtype or ()) - set(DTYPE_ORDER))
    if unknown:
        print(f"topk-conformance: unknown element type {unknown[0]!r} (types: {', '.join(DTYPE_ORDER)})",
              file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    try:
        known = _known(args.baseline, backend.name, args.op) if args.baseline else None
    except BaselineError as exc:
        print(f"topk-conformance: {printable(str(exc))}", file=sys.stderr)
        return 2
    try:
        with OutputFolder(args.out), interruptible():  # the lock: one fuzz (or run) at a time on a folder
            return _fuzz_locked(args, backend, seed, known, console)
    except Interrupted as stop:  # before the search started (asking the backend)
        print(f"topk-conformance: fuzz stopped by {stop.name} before it searched", file=sys.stderr)
        return 128 + stop.signum
    except (FolderInUse, WriteError, InputError) as exc:
        print(f"topk-conformance: {printable(str(exc))}", file=sys.stderr)
        return 2


def _known(path: Path, backend: str, op: str) -> KnownClasses:
    """The classes the baseline records for the backend and operator, each entry's element type
    read from its case in the corpus (cases/ where there is one, else the shipped one)."""
    baseline = read_baseline(path)
    loaded = load_cases(default_case_roots())  # a case file with errors names none of its ids: it gives no class
    return known_classes(baseline, str(path), backend, op, {case.id: case for case in loaded.cases})


def _fuzz_locked(args: argparse.Namespace, backend: Backend, seed: int, known: KnownClasses | None,
                 console: Console) -> int:
    from conformance.operator.fuzzing import DTYPE_ORDER

    executors = Executors(timeout=args.timeout)
    try:
        (probed,) = executors.probe([backend])
        if not probed.available:
            print(f"topk-conformance: backend {backend.name} is not available: "
                  f"{printable(probed.availability.reason)}", file=sys.stderr)
            return 2
        info = dict(probed.probe.info)
        execute = executors.for_backend(backend)
        execute_pack = executors.packs_for(probed) if args.pack else None
        takes = probed.takes  # the graph variants it takes, as its worker answered
        dtypes = tuple(d for d in DTYPE_ORDER if d in args.dtype) if args.dtype else None
        console.print(f"fuzz {backend.name}: seed {seed}, budget {args.budget:g} s, {len(takes)} "
                      f"graph variants per input, writing to {args.out}")
        with _display(console) as show:
            session = fuzz(backend, execute, args.out, args.budget, seed, dtypes, show, info, takes, args.op,
                           execute_pack, known)
    finally:
        executors.close()
    for finding in findings(session):
        mark = "reproduces" if finding.reproduced else f"DOES NOT reproduce ({finding.reproduced_verdict})"
        also = f" (also {', '.join(signature_text(s) for s in finding.also)})" if finding.also else ""
        console.print(f"  {signature_text(finding.signature)}{also}: {finding.path} ({mark})", soft_wrap=True)
        if known is not None:
            for signature in (finding.signature, *finding.also):
                console.print(f"    {signature_text(signature)}: {known.describe(signature)}", soft_wrap=True)
    if known is not None:
        lacking = sum(known.like(signature) is None for signature in session.found)
        console.print(f"fuzz {backend.name}: {lacking} of {len(session.found)} signatures of a class "
                      f"{known.source} lacks", soft_wrap=True)
    summary = (f"summary in {args.out / 'fuzz.json'}" if not session.summary_error
               else "no summary: the findings are listed above")
    console.print(f"fuzz {backend.name}: {session.status.examples} examples run, {len(session.found)} "
                  f"discrepancy signatures in {len(findings(session))} case files, in "
                  f"{time.monotonic() - session.started:.0f} s; seed {seed}; {summary}", soft_wrap=True)
    if session.summary_error:
        print(f"topk-conformance: {printable(session.summary_error)}", file=sys.stderr)
    stop = session.stop
    if isinstance(stop, Interrupted):
        print(f"topk-conformance: fuzz stopped by {stop.name}; what it found is listed above", file=sys.stderr)
        return 128 + stop.signum
    if stop is not None:
        print(f"topk-conformance: {printable(str(stop))}; the search stopped there (what it found before is "
              "listed above)", file=sys.stderr)
        return 2
    return 2 if session.summary_error else 0
