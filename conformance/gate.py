"""The vendor gate: a baseline of known discrepancies, and the comparison of a run with it.

A baseline is a YAML file, sorted and diff-friendly: the backends it covers, notes (why a
group of discrepancies is known), and one entry per result that is neither pass nor skip.
A run is held to it: a result worse than recorded, or a new discrepancy, is a regression
(exit status 1); a recorded discrepancy that now passes is listed as fixed, and fails the
gate only with `strict`, as does a backend of the run that the baseline does not cover (a
strict gate that checked nothing must not hold).

Where answers depend on the machine, an entry (or the whole file, with a top-level `isa`)
is scoped to a range of instruction-set tiers (`isa: "<avx512_core_bf16"`,
conformance/core/machine.py): it applies to a result whose `isa` is in the range, and an entry
scoped elsewhere is never reported, neither as new nor as fixed nor as not run."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from conformance.core.atomic_files import atomic_write_text
from conformance.core.machine import TIER_NAMES, Scope, ScopeError, scopes_between, tier_order
from conformance.core.safe_yaml import Limits, LimitsError, Refused, find_problem, parse, yaml_message
from conformance.core.tool_input import InputError, check, limit, limit_note, read_text
from conformance.findings.records import ID_PATTERN
from conformance.ops.registry import OPERATORS
from conformance.results.records import Result

# Worse is higher. Among the discrepancies that break something, a change of kind (an
# error that becomes a fail) or new broken rules count as worse too.
_RANK = {"pass": 0, "skip": 0, "divergent": 1, "error": 2, "fail": 2, "crash": 3}
Key = tuple[str, str, str, str, str]  # op, backend, case, graph, k_source
ScopedKey = tuple[str, str, str, str, str, str]  # ... and the entry's isa scope ("" everywhere)


def result_key(result: Result) -> Key:
    return (result.op, result.backend, result.case, result.graph, result.k_source)


@dataclass(frozen=True)
class Entry:
    backend: str
    case: str
    graph: str
    k_source: str
    verdict: str
    rules: tuple[str, ...] = ()
    note: str = ""  # a key of Baseline.notes
    isa: str = ""  # the scope: the instruction-set tiers where it holds ("" everywhere)
    op: str = "topk"  # the operator; a baseline written before operators had it means TopK
    # The runtime answers it differently from run to run (memory never written, a heap corrupted
    # at random): the verdict and rules are the worst seen over several runs, and a run is held
    # only to not being worse than that (any verdict up to it, rules among those), never "fixed".
    varies: bool = False

    @property
    def key(self) -> ScopedKey:
        return (*self.result_key, self.isa)

    @property
    def result_key(self) -> Key:
        return (self.op, self.backend, self.case, self.graph, self.k_source)

    def holds_on(self, tier: str) -> bool:
        return Scope(self.isa).holds(tier)

    @staticmethod
    def of(result: Result, note: str = "", isa: str = "", varies: bool = False) -> Entry:
        return Entry(result.backend, result.case, result.graph, result.k_source, result.verdict,
                     tuple(result.rules), note, isa, result.op, varies)


@dataclass
class Baseline:
    backends: list[str]
    entries: dict[ScopedKey, Entry]
    notes: dict[str, str] = field(default_factory=dict)
    recorded_with: dict[str, Any] = field(default_factory=dict)
    # backend -> the values of its record's `depends_on` keys where it was recorded (a driver's
    # device and version, a browser's adapter)
    recorded_on: dict[str, dict[str, str]] = field(default_factory=dict)
    _by_key: dict[Key, list[Entry]] | None = field(default=None, init=False, repr=False, compare=False)

    def scoped(self, key: Key) -> list[Entry]:
        """Every entry of a result key, whatever its scope."""
        if self._by_key is None:
            self._by_key = {}
            for entry in self.entries.values():
                self._by_key.setdefault(entry.result_key, []).append(entry)
        return self._by_key.get(key, [])

    def applying(self, result: Result) -> Entry | None:
        """The entry that holds for this result: its key, in scope of its isa."""
        key = result_key(result)
        return next((entry for entry in self.scoped(key) if entry.holds_on(result.isa)), None)

    def narrowed(self, tier: str) -> Baseline:
        """The entries that hold on a machine of this tier."""
        kept = {key: entry for key, entry in self.entries.items() if entry.holds_on(tier)}
        return Baseline(self.backends, kept, self.notes, self.recorded_with, self.recorded_on)

    def only(self, backends: Collection[str]) -> Baseline:
        """The part of the baseline that covers these backends."""
        kept = {key: entry for key, entry in self.entries.items() if entry.backend in backends}
        return Baseline([b for b in self.backends if b in backends], kept, self.notes, self.recorded_with,
                        {b: on for b, on in self.recorded_on.items() if b in backends})

    def moved(self, described: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
        """backend -> how where it runs now differs from where it was recorded (`recorded_on`),
        for each backend of this baseline that runs somewhere else now."""
        moved = {}
        for backend, recorded in self.recorded_on.items():
            now = described.get(backend)
            if now is None:
                continue
            changed = [f"{key} {value!r} recorded, {str(now.get(key, ''))!r} here"
                       for key, value in recorded.items() if str(now.get(key, "")) != value]
            if changed:
                moved[backend] = "; ".join(changed)
        return moved


class BaselineError(ValueError):
    """A baseline file that cannot be read; the message names the file and the entry."""


def is_discrepancy(result: Result) -> bool:
    return result.verdict not in ("pass", "skip")


def record(results: Iterable[Result], recorded_with: dict[str, Any], previous: Baseline | None = None,
           recorded_on: Mapping[str, dict[str, str]] | None = None, varies: frozenset[Key] = frozenset()) -> Baseline:
    """A baseline of these results; notes of a previous baseline carry over to the entries
    that are still there. Results of one backend on machines of several instruction-set
    tiers (several results files, or a backend held to a lower tier recorded as another's,
    `baseline --as`) give one entry where every tier agrees, and scoped entries where
    they disagree (machine.scopes_between: each boundary at the higher observed tier)."""
    results = list(results)
    old_notes = {entry.result_key: entry.note for entry in (previous.entries.values() if previous else ())}
    outcomes: dict[Key, dict[str, Result | None]] = {}
    tiers: dict[str, set[str]] = {}
    for result in results:
        key = result_key(result)
        outcomes.setdefault(key, {})[result.isa] = result if is_discrepancy(result) else None
        tiers.setdefault(result.backend, set()).add(result.isa)
    for backend, seen in tiers.items():
        if len(seen) > 1 and "" in seen:
            raise BaselineError(f"results of {backend} from a machine of unknown instruction-set tier (a results "
                                "file older than the `isa` field) cannot be scoped beside results of known tiers")
    entries: dict[ScopedKey, Entry] = {}
    for key, by_tier in outcomes.items():
        note = old_notes.get(key, "")
        for entry in _entries_of(by_tier, note):
            entries[entry.key] = dataclasses.replace(entry, varies=True) if key in varies else entry
    used = {entry.note for entry in entries.values()}
    notes = {key: text for key, text in (previous.notes if previous else {}).items() if key in used}
    return Baseline(sorted(tiers), entries, notes, recorded_with, dict(recorded_on or {}))


def worst_of(variants: list[Result]) -> Result:
    """One result standing for a key's several answers (`baseline --prefer worst`): the worst
    verdict seen (the first of its rank) with every rule any of them broke."""
    discrepancies = [result for result in variants if is_discrepancy(result)] or variants
    worst = max(discrepancies, key=lambda result: _RANK[result.verdict])
    rules = tuple(dict.fromkeys(rule for result in discrepancies for rule in result.rules))
    return dataclasses.replace(worst, rules=list(rules))


def _entries_of(by_tier: dict[str, Result | None], note: str) -> list[Entry]:
    """One result key's entries from its outcome on each tier it ran on."""
    def outcome(result: Result | None) -> tuple[str, tuple[str, ...]] | None:
        return None if result is None else (result.verdict, tuple(result.rules))

    if len({outcome(result) for result in by_tier.values()}) == 1:
        only = next(iter(by_tier.values()))
        return [Entry.of(only, note)] if only is not None else []
    ordered = sorted(by_tier, key=tier_order)
    if any(tier not in TIER_NAMES for tier in ordered):  # off x86-64: each tier by its name
        return [Entry.of(result, note, tier) for tier, result in by_tier.items() if result is not None]
    runs: list[tuple[str, Result | None]] = []  # (first tier, outcome) of each run of equal outcomes
    for tier in ordered:
        if not runs or outcome(runs[-1][1]) != outcome(by_tier[tier]):
            runs.append((tier, by_tier[tier]))
    scopes = scopes_between([tier for tier, _ in runs])
    return [Entry.of(result, note, scope.text) for (_, result), scope in zip(runs, scopes, strict=True)
            if result is not None]


def write_baseline(path: Path, baseline: Baseline) -> None:
    lines = [
        "# topk-conformance baseline: every known discrepancy (a result neither pass nor skip)",
        "# of the backends below. `topk-conformance run --baseline FILE` fails on anything worse.",
        "# Regenerate with `topk-conformance baseline RESULTS.json -o FILE` after reading the",
        "# results; notes (why a discrepancy is known) carry over to entries still present.",
        "# An entry with `isa` holds only on machines of those instruction-set tiers.",
        yaml.safe_dump({"recorded_with": baseline.recorded_with}, sort_keys=True, width=100).rstrip(),
        *([yaml.safe_dump({"recorded_on": baseline.recorded_on}, sort_keys=True, width=100).rstrip()]
          if baseline.recorded_on else []),
        yaml.safe_dump({"backends": baseline.backends}, default_flow_style=None, width=100).rstrip(),
        yaml.safe_dump({"notes": baseline.notes}, sort_keys=True, width=100).rstrip()
        if baseline.notes else "notes: {}",
        "results:",
    ]
    for key in sorted(baseline.entries):
        entry = baseline.entries[key]
        fields: dict[str, Any] = {
            "op": entry.op, "backend": entry.backend, "case": entry.case, "graph": entry.graph,
            "k_source": entry.k_source, "verdict": entry.verdict, "rules": list(entry.rules),
        }
        if entry.note:
            fields["note"] = entry.note
        if entry.isa:
            fields["isa"] = entry.isa
        if entry.varies:
            fields["varies"] = True
        flow = yaml.safe_dump(fields, default_flow_style=True, sort_keys=False, width=10_000).strip()
        lines.append(f"- {flow}")
    atomic_write_text(path, "\n".join(lines) + "\n")


def read_baseline(path: Path) -> Baseline:
    """A baseline, read as safely as a case file (conformance/core/safe_yaml.py: limits, keys given
    twice refused) and checked against conformance/schemas/baseline.schema.json; a
    BaselineError names the file and the field (`results[3].rules`) where it is not one."""
    try:
        text = read_text(path, "baseline_bytes")
        # A case file's limits as the environment sets them (a note's length, aliases), with a
        # baseline's own node count: a whole-corpus baseline holds many more entries than a case file.
        limits = dataclasses.replace(Limits.from_environment(), nodes=limit("baseline_nodes"))
        parsed = parse(text, limits=limits, nodes_note=limit_note("baseline_nodes"))
    except LimitsError as exc:
        raise BaselineError(f"{path}: {exc}") from None
    except InputError as exc:
        raise BaselineError(str(exc)) from None
    except Refused as exc:
        raise BaselineError(f"{path}: {exc}") from None
    except (yaml.YAMLError, ValueError, RecursionError) as exc:
        raise BaselineError(f"{path}: not valid YAML: {yaml_message(exc)}") from None
    document = parsed.document
    if not isinstance(document, dict):
        raise BaselineError(f"{path}: a baseline is a mapping with 'backends' and 'results', not "
                            f"{type(document).__name__ if document is not None else 'an empty file'}")
    problem = find_problem(document, "", parsed)  # a key given twice
    if problem is not None:
        raise BaselineError(f"{path}: {problem[0]}: {problem[1]}")
    try:
        check(path, document, "baseline.schema.json")
    except InputError as exc:
        raise BaselineError(str(exc)) from None
    notes = document.get("notes") or {}
    file_scope = _scope(path, "isa", document.get("isa", ""))
    entries: dict[ScopedKey, Entry] = {}
    for position, raw in enumerate(document.get("results") or []):
        entry = Entry(
            raw["backend"], raw["case"], raw["graph"], raw["k_source"], raw["verdict"], tuple(raw.get("rules") or ()),
            raw.get("note", ""), _scope(path, f"results[{position}].isa", raw.get("isa", "")) or file_scope,
            _operator(path, position, raw.get("op", "topk")), bool(raw.get("varies", False)),
        )
        if entry.note and entry.note not in notes:
            raise BaselineError(f"{path}: results[{position}].note: {entry.note!r} is not under 'notes'")
        if entry.key in entries:
            raise BaselineError(f"{path}: results[{position}]: the same op, backend, case, graph, k_source and isa "
                                "as an earlier entry")
        entries[entry.key] = entry
    baseline = Baseline(list(document["backends"]), entries, dict(notes), document.get("recorded_with") or {},
                        {backend: {key: str(value) for key, value in on.items()}
                         for backend, on in (document.get("recorded_on") or {}).items()})
    _check_scopes_apart(path, baseline)
    return baseline



def _operator(path: Path, position: int, name: str) -> str:
    if name not in OPERATORS:
        raise BaselineError(f"{path}: results[{position}].op: {name!r} is not an operator of this suite "
                            f"({', '.join(OPERATORS)})")
    return name


def _scope(path: Path, where: str, value: object) -> str:
    if not isinstance(value, str):
        raise BaselineError(f"{path}: {where}: a scope is a string such as \"<avx512_core_bf16\", not {value!r}")
    try:
        return Scope.parse(value).text
    except ScopeError as exc:
        raise BaselineError(f"{path}: {where}: {exc}") from None


def _check_scopes_apart(path: Path, baseline: Baseline) -> None:
    """Two entries of one result key must never both hold on one tier."""
    for entry in baseline.entries.values():
        others = [e for e in baseline.scoped(entry.result_key) if e is not entry]
        for other in others:
            tiers = (*TIER_NAMES, entry.isa, other.isa)
            overlap = next((t for t in tiers if entry.holds_on(t) and other.holds_on(t)), None)
            if overlap is not None:
                raise BaselineError(f"{path}: {_describe(entry)}: two entries hold on {overlap} "
                                    f"(isa {entry.isa or 'everywhere'!r} and {other.isa or 'everywhere'!r})")


@dataclass
class Comparison:
    regressions: list[str] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)
    not_run: list[str] = field(default_factory=list)  # recorded, but skipped or absent now
    ungated: list[str] = field(default_factory=list)  # backends the baseline does not cover
    # backend -> how it runs elsewhere than recorded (Baseline.moved), and their comparison
    # apart, which does not fail the gate (a driver's or an adapter's difference is not the
    # runtime's)
    moved: dict[str, str] = field(default_factory=dict)
    apart: Comparison | None = None

    @property
    def elsewhere(self) -> list[str]:
        """The differences of the backends that run elsewhere than recorded."""
        apart = self.apart
        return [*apart.regressions, *apart.fixed, *apart.not_run] if apart else []

    def failed(self, strict: bool) -> bool:
        return bool(self.regressions or (strict and (self.fixed or self.not_run or self.ungated)))


def _describe(entry: Entry | Result) -> str:
    rules = f" [{', '.join(entry.rules)}]" if entry.rules else ""
    scope = f" where isa {entry.isa}" if isinstance(entry, Entry) and entry.isa else ""
    where = f"{entry.op} {entry.case} on {entry.backend} ({entry.graph}, K {entry.k_source})"
    return f"{where}{scope}: {entry.verdict}{rules}"


def _findings_of(entry: Entry, baseline: Baseline, findings: Mapping[str, str]) -> str:
    """`OV3 (openvino#35824)`: the findings the entry's note names, with their upstream issue."""
    named = dict.fromkeys(ID_PATTERN.findall(baseline.notes.get(entry.note, "")))
    return ", ".join(f"{finding} ({findings[finding]})" for finding in named if finding in findings)


def compare(results: Iterable[Result], baseline: Baseline, other_shards: Collection[str] = (),
            findings: Mapping[str, str] | None = None,
            described: Mapping[str, Mapping[str, Any]] | None = None) -> Comparison:
    """This run's results against the baseline. `other_shards`: case ids that another shard of
    the run runs (run --shard): their entries are not missed here. `findings`: finding id ->
    its upstream issue (or "no upstream issue"), to say which finding a fixed entry was.
    `described`: the backends' descriptions in this run; a backend that runs on another
    device or adapter than its baseline records (Baseline.moved) is compared apart, and its
    differences are listed in `elsewhere` without failing the gate."""
    results = list(results)
    moved = baseline.moved(described or {})
    if not moved:
        return _compare(results, baseline, other_shards, findings or {})
    comparison = _compare([r for r in results if r.backend not in moved],
                          baseline.only(set(baseline.backends) - set(moved)), other_shards, findings or {})
    comparison.moved = moved
    comparison.apart = _compare([r for r in results if r.backend in moved], baseline.only(moved), other_shards,
                                findings or {})
    return comparison


def _compare(results: list[Result], baseline: Baseline, other_shards: Collection[str],
             findings: Mapping[str, str]) -> Comparison:
    comparison = Comparison()
    covered = set(baseline.backends)
    seen: set[Key] = set()
    tiers: dict[str, set[str]] = {}  # per backend, the tiers this run's results came from
    for result in results:
        if result.backend not in covered:
            if result.backend not in comparison.ungated:
                comparison.ungated.append(result.backend)
            continue
        key = result_key(result)
        seen.add(key)
        tiers.setdefault(result.backend, set()).add(result.isa)
        recorded = baseline.applying(result)
        if recorded is None:
            if is_discrepancy(result):
                elsewhere = baseline.scoped(key)
                where = (f"; recorded only where isa is {' or '.join(repr(e.isa) for e in elsewhere)} "
                         f"(this run: {result.isa or 'unknown'})") if elsewhere else ""
                comparison.regressions.append(f"new: {_describe(result)}{where}")
            continue
        if result.verdict == "skip":
            # Left out as the backend's record says (it does not finish here): the crash the
            # baseline records is what `run --slow` gives, and what this run chose not to pay for.
            if not (result.unfinished and recorded.verdict == "crash"):
                comparison.not_run.append(f"{_describe(recorded)}, now skipped: {result.message}")
            continue
        old, new = _RANK[recorded.verdict], _RANK[result.verdict]
        worse = new > old or (new == old >= 2 and (
            result.verdict != recorded.verdict or not set(result.rules) <= set(recorded.rules)))
        if recorded.varies:  # held to the worst seen: another kind at its rank, or fewer rules, is no news
            worse = new > old or not set(result.rules) <= set(recorded.rules)
            if not worse:
                continue
        if worse:
            named = _findings_of(recorded, baseline, findings)
            comparison.regressions.append(f"worse: {_describe(result)}; recorded {recorded.verdict}"
                                          + (f" (finding {named})" if named else ""))
        elif new < old:
            named = _findings_of(recorded, baseline, findings)
            comparison.fixed.append(f"{'fixed: ' + named + ': ' if named else 'better: '}{_describe(result)}; "
                                    f"recorded {recorded.verdict}")
    for entry in baseline.entries.values():
        if entry.result_key in seen or entry.backend not in covered or entry.case in other_shards:
            continue
        ran_on = tiers.get(entry.backend) or {""}
        if any(entry.holds_on(tier) for tier in ran_on):  # an entry scoped elsewhere is not missed
            comparison.not_run.append(f"{_describe(entry)}, not in this run")
    return comparison
