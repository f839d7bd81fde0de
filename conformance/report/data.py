"""What the HTML report shows, computed from a results file (and the case files, where they
can be found): plain dicts and lists for the templates, nothing rendered here."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.backends.record import KERNEL_FAMILIES
from conformance.cases.corpus import default_case_roots
from conformance.cases.loader import load_cases
from conformance.core.keys import has_nan
from conformance.findings.records import Finding
from conformance.operator.discrepancy import kept_elements
from conformance.operator.interfaces import Case
from conformance.operator.record import Operator
from conformance.ops.registry import DEFAULT, OPERATORS, operator
from conformance.report import findings as report_findings
from conformance.report.repro import repro_snippet, variant_for
from conformance.results.records import VERDICTS, Result, ResultsFile
from conformance.results.timing import CLIFF_RATIO, backend_times, cliffs

SEVERITY = ("crash", "fail", "error", "divergent", "pass", "skip")  # worst first
DISCREPANT = ("crash", "fail", "error", "divergent")
PLACEMENT = "placement:"  # how the runner begins an error where the node ran elsewhere (running/runner.py)
FAMILIES = ("onnx", "openvino", "directml")
_REPO = Path(__file__).resolve().parents[2]  # the checkout (conformance/report/data.py)

# --- cases ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class CaseInfo:
    case: Case
    file: str  # as a repro should name it: relative to the working directory where it can be

    @property
    def id(self) -> str:
        return self.case.id

    @property
    def dtype(self) -> str:
        return self.case.dtype_name

    @property
    def shape(self) -> list[int]:
        return [int(d) for d in self.case.x.shape]

    @property
    def has_nan(self) -> bool:
        return has_nan(self.case.x)

    @property
    def levels(self) -> str:
        """The DirectML feature levels whose tables admit the case, described; an operator
        without tables says so (an empty cell reads as a missing value)."""
        return operator(self.case.op).report.levels(self.case) or f"no DirectML tables for {self.case.op}"

    @property
    def input_line(self) -> str:
        """Its input's type and shape, then the operator's own fields."""
        own = operator(self.case.op).report.input_line(self.case)
        return f"{self.dtype} {self.shape}" + (f", {own}" if own else "")


def load_case_infos(results: Sequence[Result]) -> dict[str, CaseInfo]:
    """The cases the results name, from the case files they record (`case_file`), else from
    `cases/` or the corpus shipped with the package; a file that is missing or broken is
    left out (the report then says "case file not found" where it would use the case)."""
    wanted = {r.case for r in results}
    found: dict[str, CaseInfo] = {}

    def take(paths: list[Path]) -> None:
        try:
            loaded = load_cases(paths)
        except Exception:  # a report is written whatever state the case files are in
            return
        for case in loaded.cases:
            if case.id in wanted and case.id not in found:
                found[case.id] = CaseInfo(case, _shown(case.file))

    files = list(dict.fromkeys(getattr(r, "case_file", "") for r in results))
    paths = [p for p in (_resolve(f) for f in files if f) if p is not None]
    if paths:
        take(paths)
    if wanted - found.keys():
        # Where a run looks when no case is named: cases/ here, else the shipped corpus.
        roots = [root for root in default_case_roots() if root.is_dir()]
        if roots:
            take(roots)
    return found


def _resolve(name: str) -> Path | None:
    path = Path(name)
    for candidate in (path, Path.cwd() / path, _REPO / path):
        try:
            if candidate.is_file():
                return candidate
        except (OSError, ValueError):  # a name too long, a NUL: a results file says anything
            return None
    return None


def _shown(path: Path) -> str:
    for root in (Path.cwd(), _REPO):
        try:
            return str(path.resolve().relative_to(root.resolve()))
        except ValueError:
            continue
    return str(path)


# --- small helpers -------------------------------------------------------------------------

def worst(verdicts: Iterable[str]) -> str:
    present = set(verdicts)
    return next((v for v in SEVERITY if v in present), "skip")


def message_kind(message: str) -> str:
    """A message with its particulars (numbers, lists, addresses, quoted names) blanked,
    so that the same failure on different inputs groups together."""
    text = re.split(r"; first at (?:the only )?sequence", message, maxsplit=1)[0]
    text = re.sub(r"0x[0-9a-fA-F]+", "0x…", text)
    for _ in range(3):  # nested lists, innermost first
        text = re.sub(r"\[[^\[\]]*\]", "[…]", text)
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", text)
    text = re.sub(r"(?<![\w=.])\d+(?:\.\d+)?(?:e[-+]?\d+)?", "#", text)
    text = " ".join(text.split())
    return text[:160] + ("…" if len(text) > 160 else "")


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit} more characters)"


# --- sequences in discrepancy details --------------------------------------------------------

def sequence_view(values: Any, marks: Iterable[int], edge: int = 20, around: int = 3,
                  full_up_to: int = 60, most_marks: int = 12) -> list[dict[str, Any]]:
    """A sequence for the page: every element when short, else the first and last `edge`
    and a few around the marked positions, the gaps counted. Marked elements say so. The
    sequence is a list, or a discrepancy record's summary of a long one (only its kept
    elements can be shown; the rest count as gaps)."""
    n, present = kept_elements(values)
    marked = sorted({m for m in marks if 0 <= m < n})
    if n <= full_up_to:
        keep = set(range(n))
    else:
        keep = set(range(min(edge, n))) | set(range(max(0, n - edge), n))
        for m in marked[:most_marks]:
            keep |= set(range(max(0, m - around), min(n, m + around + 1)))
    keep &= present.keys()
    values = present
    marked_set = set(marked)
    items: list[dict[str, Any]] = []
    previous = -1
    for position in sorted(keep):
        if position > previous + 1:
            items.append({"gap": position - previous - 1})
        items.append({"pos": position, "text": _value_text(values[position]), "mark": position in marked_set})
        previous = position
    if previous < n - 1:
        items.append({"gap": n - 1 - previous})
    return items


def _value_text(value: Any) -> str:
    return value if isinstance(value, str) else repr(value) if isinstance(value, float) else str(value)


def _differing(got: Any, want: Any) -> list[int]:
    """Positions where two record fields (lists or summaries) differ, among those both keep."""
    (n_got, got_kept), (n_want, want_kept) = kept_elements(got), kept_elements(want)
    positions = sorted(set(got_kept) | set(want_kept) | set(range(min(n_got, n_want), max(n_got, n_want))))
    return [
        j for j in positions
        if j not in got_kept or j not in want_kept or _value_text(got_kept[j]) != _value_text(want_kept[j])
    ]


def _record(op: str) -> Operator[Any, Any] | None:
    """The operator a result names, or None for one this suite does not know."""
    return OPERATORS.get(op)


def discrepancy_detail(result: Result, info: CaseInfo | None) -> dict[str, Any] | None:
    note = result.discrepancy
    if not note:
        return None
    record = _record(result.op)
    shown = (record.report.outputs_shown or record.outputs) if record else tuple(
        key.removeprefix("expected_") for key in note if key.startswith("expected_"))
    # Each field is a list, or (for a long sequence) a summary keeping some positions.
    got = {name: note.get(name, []) for name in shown}
    want = {name: note.get(f"expected_{name}", []) for name in shown}
    diff = sorted(set().union(*(_differing(got[name], want[name]) for name in shown)))
    x = note.get("input", [])
    index = record.report.index_output if record and record.report.index_output in shown else ""
    kept_i = [kept_elements(field)[1] for field in (got[index], want[index])] if index else []
    in_marks = {int(kept[j]) for kept in kept_i for j in diff if isinstance(kept.get(j), int)}
    length_of = index or (shown[0] if shown else "")
    return {
        "rule": note.get("rule", ""),
        "sequence": note.get("sequence", []),
        "n": kept_elements(x)[0],
        "k": kept_elements(want[length_of])[0] if length_of else 0,
        "length_label": record.report.length_label if record else "",
        "input": sequence_view(x, in_marks),
        "outputs": list(shown),
        **{f"got_{name}": sequence_view(got[name], diff) for name in shown},
        **{f"want_{name}": sequence_view(want[name], diff) for name in shown},
        "differing": len(diff),
        "reference_from": reference_from(result, info),
    }


def reference_from(result: Result, info: CaseInfo | None) -> str:
    """Where the answer the output was compared with came from (the operator's word)."""
    record = _record(result.op)
    if record is None:
        return "the case's reference answer (operator unknown)"
    variant = variant_for(result.graph, result.k_source, result.op)
    if info is None or variant is None or info.case.op != result.op:
        return record.report.reference_unknown
    return record.report.reference_from(info.case, variant)


# --- the whole report ----------------------------------------------------------------------

def build(data: ResultsFile, infos: dict[str, CaseInfo] | None = None,
          findings: report_findings.Records | None = None) -> dict[str, Any]:
    """Everything the template shows, from a results file; `findings`: the finding records and
    their history where the caller has read them already (by default they are read here)."""
    results = list(data.results)
    if infos is None:
        infos = load_case_infos(results)
    backends = list(dict.fromkeys(
        [name for name in data.backends if any(r.backend == name for r in results)]
        + [r.backend for r in results]
    ))
    backends = by_family(backends, data.backends)
    order = {name: i for i, name in enumerate(backends)}
    ids = {id(r): f"r{i}" for i, r in enumerate(results)}
    cases = list(dict.fromkeys(r.case for r in results))
    case_tags: dict[str, list[str]] = {}
    for r in results:
        case_tags.setdefault(r.case, [])
        case_tags[r.case] = list(dict.fromkeys([*case_tags[r.case], *r.tags]))
    machines_of: dict[str, list[str]] = {}
    for r in results:
        if r.machine:
            machines_of.setdefault(r.backend, [])
            if r.machine not in machines_of[r.backend]:
                machines_of[r.backend].append(r.machine)
    records, history = findings or report_findings.load()
    groups = _groups(results, infos, ids, order, records)
    present_rules = {rule for r in results for rule in r.rules}
    ops = _operators(results)
    rules = list(dict.fromkeys(rule for op in ops for rule in op.rules))
    return {
        "summary": {
            "results": len(results), "cases": len(cases), "backends": len(backends),
            "discrepancies": sum(1 for r in results if r.verdict in DISCREPANT),
            "groups": len(groups), "counts": Counter(r.verdict for r in results),
        },
        "verdicts": VERDICTS,
        "backends": backends,
        # An operator whose record compares no documents gets a line, not an empty table.
        "documents": [_documents(op, results, infos, backends) for op in ops if op.report.aspects],
        "undocumented": [op.name for op in ops if not op.report.aspects],
        "levels_tables": ", ".join(op.report.levels_tables for op in ops if op.report.levels_tables),
        "groups": groups,
        "slowest": _slowest(results, backends),
        "times": backend_times(results),
        "cliffs": cliffs(results)[:CLIFFS_SHOWN],
        "cliff_count": sum(1 for r in results if r.cliff),
        "cliff_ratio": CLIFF_RATIO,
        "environments": _environments(data, results),
        "backend_info": _backend_info(data, backends),
        "case_errors": list(data.case_errors),
        "filters": {
            "verdict": list(VERDICTS),
            "rule": [rule for rule in rules if rule in present_rules] + sorted(present_rules - set(rules)),
            "tag": sorted({t for r in results for t in r.tags}),
            "backend": backends,
            "domain": ["defined", "undefined"],
            "op": sorted({r.op for r in results}),
        },
        "cases_found": sum(1 for c in cases if c in infos),
        # The finding records of the backends of its results and of its models.
        "findings": report_findings.section(records, history, [*backends, *(
            name for model in data.models for name in model.get("backends", {}))]),
        "infos": infos, "machines_of": machines_of, "case_tags": case_tags,  # for the page's data (payload.py)
    }


# The report's column groups: where the backends' kernels come from (BackendRecord.family).
FAMILY_LABELS = {"reference": "reference evaluator", "hand-written": "hand-written kernels",
                 "compiled": "kernels a compiler generates", "shaders": "GPU shaders, on a CPU Vulkan here",
                 "": "kernels not described"}


def by_family(backends: list[str], described: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The backends grouped by kernel family (KERNEL_FAMILIES' order; results without one last), in
    their own order within a family."""
    def rank(name: str) -> int:
        family = described.get(name, {}).get("family", "")
        return KERNEL_FAMILIES.index(family) if family in KERNEL_FAMILIES else len(KERNEL_FAMILIES)
    return sorted(backends, key=rank)


def _groups(results: list[Result], infos: dict[str, CaseInfo], ids: dict[int, str],
            order: dict[str, int], records: Mapping[str, Finding]) -> list[dict[str, Any]]:
    grouped: dict[tuple[Any, ...], list[Result]] = {}
    for r in results:
        if r.verdict in DISCREPANT:
            key = (r.backend, r.verdict, tuple(r.rules), r.domain, message_kind(r.message))
            grouped.setdefault(key, []).append(r)
    ordered = sorted(
        grouped.items(),
        key=lambda item: (item[0][3] != "defined", SEVERITY.index(item[0][1]), order.get(item[0][0], 99),
                          -len(item[1])),
    )
    groups = []
    for number, ((backend, verdict, rules, domain, kind), members) in enumerate(ordered):
        first = next((m for m in members if m.discrepancy), members[0])
        info = infos.get(first.case)
        case_file = info.file if info else first.case_file
        groups.append({
            "id": f"g{number}", "backend": backend, "verdict": verdict, "rules": list(rules), "domain": domain,
            # An error where nothing raised: the node ran on another provider, or none took it.
            "placement": verdict == "error" and all(m.message.startswith(PLACEMENT) for m in members),
            "kind": kind, "count": len(members), "cases": len({m.case for m in members}),
            "findings": report_findings.matching(members, records),
            "first": {
                "result": first, "id": ids[id(first)],
                "source": info.case.source if info else "",
                "case_file": case_file,
                "input": info.input_line if info else "",
                "levels": info.levels if info else "",
                "detail": discrepancy_detail(first, info),
                "repro": repro_snippet(first.case, case_file, first.backend, first.graph, first.k_source,
                                       first.verdict, first.rules, first.op),
            },
            "members": [{"result": m, "id": ids[id(m)]} for m in members],
        })
    return groups


def member_message(message: str) -> str:
    """A group member's message without what the group heading already says."""
    head, sep, tail = message.partition("; first at ")
    return _short("first at " + tail if sep else head, 240)


def _operators(results: list[Result]) -> list[Operator[Any, Any]]:
    """The known operators the results name, in order; with no results, the default one (its
    documents are still shown)."""
    if not results:
        return [operator(DEFAULT)]
    return [op for op in (_record(name) for name in dict.fromkeys(r.op for r in results)) if op]


def _documents(op: Operator[Any, Any], results: list[Result], infos: dict[str, CaseInfo],
               backends: list[str]) -> dict[str, Any]:
    """The operator's documents, and what each backend did on each of their aspects."""
    of_op = [r for r in results if r.op == op.name]
    cases = {key: info.case for key, info in infos.items() if info.case.op == op.name}
    by_backend = {b: [r for r in of_op if r.backend == b] for b in backends}
    return {
        "op": op.name, "documents": op.report.documents,
        "aspects": [
            {"name": aspect.name, "documents": aspect.documents,
             "observed": [aspect.observed(by_backend[b], cases) for b in backends]}
            for aspect in op.report.aspects
        ],
    }


CLIFFS_SHOWN = 50


def _slowest(results: list[Result], backends: list[str], top: int = 10) -> list[dict[str, Any]]:
    return [
        {"backend": b, "results": sorted((r for r in results if r.backend == b), key=lambda r: -r.seconds)[:top]}
        for b in backends
    ]


def _environments(data: ResultsFile, results: list[Result]) -> list[dict[str, Any]]:
    environment = data.environment
    merged = environment.get("merged") if isinstance(environment, dict) else None
    listed = [e for e in merged if isinstance(e, dict)] if isinstance(merged, list) else [environment]
    backends_by_machine: dict[str, list[str]] = {}
    for r in results:
        backends_by_machine.setdefault(r.machine, [])
        if r.backend not in backends_by_machine[r.machine]:
            backends_by_machine[r.machine].append(r.backend)
    views = []
    for env in listed:
        machine = str(env.get("machine", ""))
        backends = backends_by_machine.get(machine, [])
        if len(listed) == 1:  # a single run: every result came from here
            backends = list(dict.fromkeys(r.backend for r in results))
        packages = env.get("packages", {})
        views.append({
            "machine": machine or "unknown", "platform": str(env.get("platform", "")),
            "python": str(env.get("python", "")),
            "packages": sorted((str(k), str(v)) for k, v in packages.items()) if isinstance(packages, dict) else [],
            "other": sorted((str(k), str(v)) for k, v in env.items()
                            if k not in ("machine", "platform", "python", "packages")),
            "backends": backends,
        })
    return views


def _backend_info(data: ResultsFile, backends: list[str]) -> list[dict[str, Any]]:
    names = list(dict.fromkeys([*backends, *data.backends]))
    views = []
    for name in names:
        info = data.backends.get(name, {})
        views.append({
            "name": name, "ran": name in backends,
            "available": bool(info.get("available")) if info else None,
            "reason": str(info.get("reason", "")), "device": str(info.get("device", "")),
            "semantics": str(info.get("semantics", "")),
            "other": [(str(k), str(v)) for k, v in info.items()
                      if k not in ("available", "reason", "device", "semantics")],
        })
    return views
