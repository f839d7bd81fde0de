"""The body of an upstream issue for one finding, in the shape the runtime's tracker asks for:
OpenVINO's bug form, ONNX Runtime's bug form (every provider and ONNX Runtime Web), ONNX's bug
template; tract, DirectML, IREE, TVM, tinygrad, MNN and LiteRT have none here, so theirs is a plain
report with the same parts. The repro goes in whole: it is the steps, and it prints the
versions; a companion file longer than a screen (DirectML's C programs) is attached rather than
inlined. A finding a later release fixes gets no new issue: its body says which release fixes it
and what to add to the issue of the same bug, if there is one."""

from __future__ import annotations

import platform
from collections.abc import Callable
from dataclasses import dataclass

from conformance.findings.records import Finding
from conformance.findings.running import ReproRun
from conformance.findings.runtimes import IssueForm, runtime

SCREEN_LINES = 60  # a companion file longer than this is attached to the issue, not inlined


@dataclass(frozen=True)
class IssueBody:
    tracker: str  # owner/repo
    title: str
    body: str
    attachments: tuple[str, ...] = ()  # files of the finding's folder to attach to the issue
    fixed_in: str = ""  # the release that fixes it: the body is a comment, not a new issue


def issue_body(finding: Finding, run: ReproRun | None, fixed_in: str = "") -> IssueBody:
    """`fixed_in`: the release (of the repro's history distribution) from which on it no longer
    shows, as `findings history` measured."""
    record = runtime(finding.runtime)
    tracker = record.tracker
    attachments = tuple(name for name in _companions(finding) if _long(finding, name))
    if fixed_in:
        return IssueBody(tracker, f"Fixed in {finding.repro.history or finding.runtime} {fixed_in}: {finding.title}",
                         _fixed(finding, run, fixed_in), attachments, fixed_in)
    shape = _SHAPES.get(record.form, _plain)
    title = f"[Bug]: {finding.title}" if record.form == "openvino-bug" else finding.title
    return IssueBody(tracker, title, shape(finding, run).rstrip() + "\n", attachments)


def _companions(finding: Finding) -> list[str]:
    return [*finding.repro.files, *filter(None, [finding.repro.windows])]


def _long(finding: Finding, name: str) -> bool:
    return len((finding.folder / name).read_text(encoding="utf-8").splitlines()) > SCREEN_LINES


def _fixed(finding: Finding, run: ReproRun | None, fixed_in: str) -> str:
    same = [issue for issue in finding.upstream.issues if issue.relation in ("same", "fix")]
    where = (f"Nothing to report: no issue of this bug exists upstream ({finding.upstream.looked_up}), and "
             f"{finding.repro.history or finding.runtime} {fixed_in} fixes it." if not same else
             "What follows may be added as a comment to " + ", ".join(f"{i.short} ({i.url})" for i in same)
             + " to confirm the fix:")
    return (f"> No new issue: measured fixed in {finding.repro.history or finding.runtime} {fixed_in} (it reproduces "
            f"on the releases before it). {where}\n\n"
            f"{finding.text}\n\n**Input:** {finding.input}\n\n**Expected:** {finding.expected}\n\n"
            f"**Actual, before {fixed_in}:** {finding.actual}\n\n"
            f"**To check:**\n\n{_steps(finding)}\nWhat it printed before the fix:\n\n{_output(run)}")


def _versions(finding: Finding) -> str:
    return ", ".join(f"{name} {version}" for name, version in finding.recorded.get("versions", {}).items())


def _known(finding: Finding) -> str:
    same = [issue for issue in finding.upstream.issues if issue.relation == "same"]
    if same:
        refs = ", ".join(f"{issue.short} ({issue.url})" for issue in same)
        return (f"> Already reported upstream as {refs}. What follows adds a standalone repro and the "
                "documents' words; it belongs there as a comment rather than in a new issue.\n\n")
    if finding.upstream.status == "known":
        refs = ", ".join(f"{issue.short} ({issue.relation}, {issue.state or 'state unknown'})"
                         for issue in finding.upstream.leading)
        return f"> Known upstream without an open report of its own: {refs}; see the related threads below.\n\n"
    return ""


def _description(finding: Finding, outcome: bool = True) -> str:
    """What goes wrong; with `outcome`, the input, expected and actual too (a template with
    sections of its own for them passes False, so that each is said once)."""
    conditions = "".join(f"- {name}: {value}\n" for name, value in finding.conditions.items())
    quotes = "\n".join(_quoted(quote) + f"\n>\n> ({document})\n" for document, quote in finding.documents)
    domain = ("Inside the documents' defined domain: they say what the answer is." if finding.domain == "defined"
              else "Outside what the documents promise: reported as an inconsistency, not a broken promise.")
    said = (f"\n\n**Input:** {finding.input}\n\n**Expected:** {finding.expected}\n\n**Actual:** {finding.actual}"
            if outcome else f"\n\n**Input:** {finding.input}")
    return (f"{finding.text}{said}\n\n{domain}\n\n**What the documents say:**\n\n{quotes}\n"
            + (f"**It needs:**\n\n{conditions}\n" if conditions else ""))


def _quoted(text: str) -> str:
    """A markdown quote of every line (a document's sentence may run over several)."""
    return "\n".join(f"> {line}".rstrip() for line in text.strip().splitlines())


def _steps(finding: Finding) -> str:
    parts = [f"Save this as `{finding.repro.script}` and run `python {finding.repro.script}` "
             "(it prints the versions it uses, the input, the output and the documents' answer):\n",
             _fenced(finding, finding.repro.script)]
    for name in _companions(finding):
        where = "On Windows" if name == finding.repro.windows else "Beside it"
        if _long(finding, name):
            lines = len((finding.folder / name).read_text(encoding="utf-8").splitlines())
            parts.append(f"\n{where}, `{name}`: attached to this issue ({lines} lines).\n")
        else:
            parts += [f"\n{where}, `{name}`:\n", _fenced(finding, name)]
    return "\n".join(parts) + "\n"


def _fenced(finding: Finding, name: str) -> str:
    language = {".py": "python", ".mjs": "javascript", ".js": "javascript", ".html": "html", ".c": "c"}
    suffix = "." + name.rsplit(".", 1)[-1]
    text = (finding.folder / name).read_text(encoding="utf-8").rstrip()
    fence = "````" if "```" in text else "```"
    return f"{fence}{language.get(suffix, '')}\n{text}\n{fence}"


def _output(run: ReproRun | None) -> str:
    if run is None:
        return "(the repro was not run for this report)\n"
    return f"```\n{run.output.rstrip()}\n```\n"


def _related(finding: Finding) -> str:
    lines = [f"- {issue.short} ({issue.relation}{', ' + issue.state if issue.state else ''}): "
             f"{issue.title or issue.url} {issue.url if issue.title else ''}".rstrip()
             for issue in finding.upstream.issues]
    searched = f"Trackers searched on {finding.upstream.looked_up}."
    note = f" {finding.upstream.note}" if finding.upstream.note else ""
    return ("\n".join(lines) + "\n\n" if lines else "No related issue found. ") + searched + note + "\n"


def _here() -> str:
    return f"{platform.system()} {platform.release()} ({platform.platform()})"


def _openvino(finding: Finding, run: ReproRun | None) -> str:
    return (
        _known(finding)
        + f"### OpenVINO Version\n\n{finding.recorded.get('versions', {}).get('openvino', _versions(finding))}\n\n"
        f"### Operating System\n\n{_here()}\n\n"
        f"### Device used for inference\n\nCPU{_isa(finding)}\n\n"
        f"### Framework\n\n{'ONNX' if 'ONNX' in finding.text else 'None'}\n\n"
        "### Model used\n\nA one-node model built by the script below.\n\n"
        f"### Issue description\n\n{_description(finding)}\n"
        f"### Step-by-step reproduction\n\n{_steps(finding)}\n"
        f"### Relevant log output\n\n{_output(run)}\n"
        f"### Related upstream threads\n\n{_related(finding)}\n"
        "### Issue submission checklist\n\n- [x] I'm reporting an issue. It's not a question.\n"
        "- [x] I checked the problem with the documentation, FAQ, open issues, Stack Overflow, etc., "
        "and have not found a solution.\n- [x] There is reproducer code and related data files such as "
        "images, videos, models, etc.\n"
    )


def _isa(finding: Finding) -> str:
    return f" (instruction sets: {finding.conditions['isa']})" if finding.conditions.get("isa") else ""


def _onnxruntime(finding: Finding, run: ReproRun | None) -> str:
    versions = finding.recorded.get("versions", {})
    ort = next((v for k, v in versions.items() if k.startswith("onnxruntime")), _versions(finding))
    provider = runtime(finding.runtime).provider(finding.section)
    return (
        _known(finding)
        + f"### Describe the issue\n\n{_description(finding)}\n"
        f"### To reproduce\n\n{_steps(finding)}\nWhat it printed:\n\n{_output(run)}\n"
        "### Urgency\n\nNone: found by a conformance suite; no deadline depends on it.\n\n"
        f"### Platform\n\n{provider.platform or platform.system()}\n\n"
        f"### OS Version\n\n{_here()}\n\n"
        "### ONNX Runtime Installation\n\nReleased Package\n\n"
        f"### ONNX Runtime Version or Commit ID\n\n{ort}\n\n"
        f"### ONNX Runtime API\n\n{provider.api}\n\n"
        f"### Architecture\n\n{platform.machine()}\n\n"
        f"### Execution Provider\n\n{provider.name}\n\n"
        f"### Execution Provider Library Version\n\n{_versions(finding)}\n\n"
        f"### Related upstream threads\n\n{_related(finding)}"
    )


def _onnx(finding: Finding, run: ReproRun | None) -> str:
    return (
        _known(finding)
        + "# Bug Report\n\n### Is the issue related to model conversion?\n\nNo.\n\n"
        f"### Describe the bug\n\n{_description(finding, outcome=False)}\n**Actual:** {finding.actual}\n\n"
        f"### System information\n\n- OS Platform and Distribution: {_here()}\n- {_versions(finding)}\n"
        f"- Python version: {platform.python_version()}\n\n"
        f"### Reproduction instructions\n\n{_steps(finding)}\nWhat it printed:\n\n{_output(run)}\n"
        f"### Expected behavior\n\n{finding.expected}\n\n"
        f"### Notes\n\n{_related(finding)}"
    )


def _plain(finding: Finding, run: ReproRun | None) -> str:
    return (
        _known(finding)
        + f"## What happens\n\n{_description(finding, outcome=False)}\n"
        f"## Environment\n\n- {_versions(finding)}\n- {_here()}, Python {platform.python_version()}\n"
        + "".join(f"- {name}: {value}\n" for name, value in finding.conditions.items())
        + f"\n## To reproduce\n\n{_steps(finding)}\nWhat it printed:\n\n{_output(run)}\n"
        f"## Expected\n\n{finding.expected}\n\n## Actual\n\n{finding.actual}\n\n"
        f"## Related\n\n{_related(finding)}"
    )


_SHAPES: dict[IssueForm, Callable[[Finding, ReproRun | None], str]] = {
    "openvino-bug": _openvino,
    "onnxruntime-bug": _onnxruntime,
    "onnx-bug": _onnx,
}
