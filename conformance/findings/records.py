"""Reading the finding records: findings/ID/finding.yaml, checked against
conformance/schemas/finding.schema.json and against its folder (the id is the folder's name, the
repro and the files it lists are there). A record that cannot be used is a FindingError naming
the file and the field; the others still load."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from conformance.core.machine import Scope, ScopeError
from conformance.core.safe_yaml import FileRefused, Limits, LimitsError, find_problem, parse, read_text, yaml_message
from conformance.core.tool_input import InputError, check
from conformance.findings.runtimes import OPERATOR_PREFIXES, distributions, id_prefixes, id_problem, releases_of

_PACKAGE = Path(__file__).resolve().parent.parent  # conformance/
# Inside an installed wheel: the copy of findings/ the build made (setup.py).
PACKAGED_FINDINGS = _PACKAGE / "finding_records"
# In a checkout (or an editable install of one): the repository's own findings/.
CHECKOUT_FINDINGS = _PACKAGE.parent / "findings"
RECORD = "finding.yaml"
_REF = re.compile(r"^(?P<owner>[^/]+)/(?P<repo>[^#]+)#(?P<number>\d+)$")
# A finding's id in prose (a baseline's note, a report: OV3, AM-ORTDML5, NMS-OV1): an operator family's prefix, a
# runtime's (longest first: ORTDML before ORT), a number.
ID_PATTERN = re.compile(r"\b(?:" + "|".join(map(re.escape, OPERATOR_PREFIXES)) + r")?(?:"
                        + "|".join(sorted(id_prefixes(), key=len, reverse=True)) + r")\d+\b")


class FindingError(ValueError):
    """A record that cannot be used: `str()` names the file and the field."""


@dataclass(frozen=True)
class UpstreamIssue:
    ref: str  # owner/repo#number
    relation: str  # same | related | fix | docs
    state: str = ""
    title: str = ""

    @property
    def short(self) -> str:
        """`openvino#35824`: the repository's name and the number, as its tracker writes it."""
        match = _REF.match(self.ref)
        return f"{match['repo']}#{match['number']}" if match else self.ref

    @property
    def url(self) -> str:
        match = _REF.match(self.ref)  # GitHub sends an issue link of a pull request to the pull request
        return f"https://github.com/{match['owner']}/{match['repo']}/issues/{match['number']}" if match else ""


@dataclass(frozen=True)
class Upstream:
    status: str  # known | related | none-found
    looked_up: str
    issues: tuple[UpstreamIssue, ...] = ()
    note: str = ""

    @property
    def leading(self) -> tuple[UpstreamIssue, ...]:
        """The issues that stand for the finding upstream: the same report, else its fix, else related
        threads (never documentation threads alone)."""
        for relation in ("same", "fix", "related"):
            found = tuple(issue for issue in self.issues if issue.relation == relation)
            if found:
                return found
        return ()

    @property
    def summary(self) -> str:
        """One line: `known: openvino#35824 (open)`, `none found (looked up 2026-11-26)`."""
        if self.status == "none-found":
            return f"none found (looked up {self.looked_up})"
        refs = ", ".join(f"{issue.short} ({issue.state})" if issue.state else issue.short
                         for issue in (self.leading or self.issues)[:3])
        return f"{self.status}: {refs}" if refs else self.status


@dataclass(frozen=True)
class Repro:
    script: str
    needs: tuple[str, ...]
    history: str = ""  # the distribution whose releases `findings history` varies
    windows: str = ""
    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class Finding:
    id: str
    folder: Path
    runtime: str
    section: str
    operators: tuple[str, ...]
    title: str
    domain: str
    cases: tuple[str, ...]
    rules: tuple[str, ...]
    documents: tuple[tuple[str, str], ...]  # (document, quote)
    input: str
    expected: str
    actual: str
    recorded: dict[str, Any]
    upstream: Upstream
    repro: Repro
    text: str
    kind: str = ""
    backends: tuple[str, ...] = ()
    conditions: dict[str, str] = field(default_factory=dict)
    reproduces_here: bool = True
    not_here_why: str = ""
    baseline_notes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    see_also: tuple[str, ...] = ()  # other findings of the same cause or family

    @property
    def script(self) -> Path:
        return self.folder / self.repro.script

    @property
    def number(self) -> int:
        return int(re.sub(r"\D", "", self.id.rsplit("-", 1)[-1]) or 0)

    @property
    def prefix(self) -> str:
        return self.id.rstrip("0123456789")


@dataclass
class Loaded:
    findings: dict[str, Finding]
    errors: list[str]


def default_root() -> Path:
    """The checkout's findings/ where there is one, else the copy shipped in the wheel."""
    return CHECKOUT_FINDINGS if CHECKOUT_FINDINGS.is_dir() else PACKAGED_FINDINGS


def load_findings(root: Path | None = None) -> Loaded:
    """Every record under root (one folder per finding), in id order; each record that cannot be
    used is one error line and is left out."""
    root = root or default_root()
    found: dict[str, Finding] = {}
    errors: list[str] = []
    folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))) \
        if root.is_dir() else []
    for folder in folders:
        try:
            finding = load_record(folder / RECORD)
        except FindingError as exc:
            errors.append(str(exc))
            continue
        found[finding.id] = finding
    ordered = dict(sorted(found.items(), key=lambda item: (not item[1].section.startswith("topk/"), item[1].section,
                                                          item[1].prefix, item[1].number)))
    return Loaded(ordered, errors)


def load_record(path: Path) -> Finding:
    try:
        limits = Limits.from_environment()  # as for a case file: the limits its messages name
        text = read_text(path, limits)
        parsed = parse(text, limits=limits)
    except LimitsError as exc:
        raise FindingError(f"{path}: {exc}") from None
    except FileNotFoundError:
        raise FindingError(f"{path}: no record ({RECORD}) in the finding's folder") from None
    except (OSError, FileRefused, UnicodeDecodeError) as exc:
        raise FindingError(f"{path}: cannot read: {exc}") from None
    except (yaml.YAMLError, ValueError, RecursionError) as exc:
        raise FindingError(f"{path}: not valid YAML: {yaml_message(exc)}") from None
    document = parsed.document
    problem = find_problem(document, "", parsed) if isinstance(document, dict) else None
    if problem is not None:
        raise FindingError(f"{path}: {problem[0]}: {problem[1]}")
    try:
        check(path, document, "finding.schema.json")
    except InputError as exc:
        raise FindingError(str(exc)) from None
    finding = _finding(path.parent, document)
    _check_folder(path, finding)
    return finding


def _finding(folder: Path, raw: dict[str, Any]) -> Finding:
    upstream = raw["upstream"]
    repro = raw["repro"]
    reproduces = raw.get("reproduces") or {}
    return Finding(
        id=raw["id"], folder=folder, runtime=raw["runtime"], section=raw["section"],
        operators=tuple(raw["operators"]), title=raw["title"], domain=raw["domain"], cases=tuple(raw["cases"]),
        rules=tuple(raw["rules"]), documents=tuple((d["document"], d["quote"]) for d in raw["documents"]),
        input=raw["input"], expected=raw["expected"], actual=raw["actual"], recorded=dict(raw["recorded"]),
        upstream=Upstream(upstream["status"], upstream["looked_up"],
                          tuple(UpstreamIssue(i["ref"], i["relation"], i.get("state", ""), i.get("title", ""))
                                for i in upstream.get("issues") or ()), upstream.get("note", "")),
        repro=Repro(repro["script"], tuple(repro["needs"]), repro.get("history", ""), repro.get("windows", ""),
                    tuple(repro.get("files") or ())),
        text=raw["text"].strip(), kind=raw.get("kind", ""), backends=tuple(raw.get("backends") or ()),
        conditions=dict(raw.get("conditions") or {}), reproduces_here=reproduces.get("here", True),
        not_here_why=reproduces.get("why", ""),
        see_also=tuple(raw.get("see_also") or ()),
        baseline_notes={backend: tuple(keys) for backend, keys in (raw.get("baseline_notes") or {}).items()},
    )


def _check_folder(path: Path, finding: Finding) -> None:
    if finding.id != path.parent.name:
        raise FindingError(f"{path}: id: {finding.id!r} is not the folder's name ({path.parent.name!r})")
    problem = id_problem(finding.id, finding.runtime)
    if problem:
        raise FindingError(f"{path}: {problem}")
    if finding.repro.history and releases_of(finding.repro.history) is None:
        raise FindingError(f"{path}: repro.history: {finding.repro.history!r} is no runtime's distribution "
                           f"(they are: {', '.join(distributions(measured=False))})")
    problem = _status_problem(finding.upstream)
    if problem:
        raise FindingError(f"{path}: {problem}")
    if finding.conditions.get("isa"):
        try:
            Scope.parse(finding.conditions["isa"])
        except ScopeError as exc:
            raise FindingError(f"{path}: conditions.isa: {exc}") from None
    wanted = {"repro.script": finding.repro.script, "repro.windows": finding.repro.windows}
    wanted.update({f"repro.files[{n}]": name for n, name in enumerate(finding.repro.files)})
    for where, name in wanted.items():
        if name and (Path(name).is_absolute() or ".." in Path(name).parts):
            raise FindingError(f"{path}: {where}: {name!r} must name a file in the finding's folder")
        if name and not (path.parent / name).is_file():
            raise FindingError(f"{path}: {where}: {name!r} is not in {path.parent}")


# The day the suite recorded its first finding: a search cannot have been made before it.
FIRST_RECORD = "2026-11-22"
# Relations that are about the finding's own bug: an issue reporting it, a pull request fixing it.
SAME_BUG = frozenset({"same", "fix"})


def _status_problem(upstream: Upstream) -> str:
    """The one status rule ("" where it holds): `known` has an issue or pull request about the
    same bug; `related` has issues, none about the same bug; `none-found` has none (its note
    says what was searched); and the search was made on a day the suite existed."""
    relations = {issue.relation for issue in upstream.issues}
    if upstream.status == "known" and not relations & SAME_BUG:
        return "upstream.status: 'known' needs an issue of relation 'same' or 'fix' (else it is 'related')"
    if upstream.status == "related" and not upstream.issues:
        return "upstream.status: 'related' needs upstream.issues (else it is 'none-found')"
    if upstream.status == "related" and relations & SAME_BUG:
        return "upstream.status: 'related' beside an issue of relation 'same' or 'fix' (it is 'known')"
    if upstream.status == "none-found" and upstream.issues:
        return "upstream.status: 'none-found' lists issues (it is 'related', or 'known')"
    if upstream.status == "none-found" and not upstream.note.strip():
        return "upstream.note: 'none-found' says what was searched"
    if upstream.looked_up < FIRST_RECORD:
        return f"upstream.looked_up: {upstream.looked_up} is before the suite's first record ({FIRST_RECORD})"
    return ""


def upstream_labels(root: Path | None = None) -> dict[str, str]:
    """Finding id -> its upstream issue (`openvino#35824`) or "no upstream issue": what the gate
    prints beside a fixed discrepancy. Records that cannot be read are left out."""
    labels: dict[str, str] = {}
    for finding in load_findings(root).findings.values():
        # Only an issue of the same bug or its fix: a related thread is not the finding's issue.
        labels[finding.id] = ", ".join(i.short for i in finding.upstream.leading if i.relation in SAME_BUG) \
            or "no upstream issue"
    return labels
