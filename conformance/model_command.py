"""`topk-conformance model`: a user's ONNX model on backends, its selection nodes judged by
their operators' rules for the input each backend gave them, and where the backends part
(contract section 9)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from conformance.backends.base import Backend
from conformance.backends.registry import all_backends, by_name
from conformance.core.atomic_files import WriteError
from conformance.core.interrupts import Interrupted, interruptible
from conformance.core.options import positive_seconds
from conformance.core.text import printable
from conformance.findings.records import Finding
from conformance.models.alone import Alone, rerun_alone
from conformance.models.capture import judged_nodes
from conformance.models.document import model_entry, write_cases
from conformance.models.judging import CLASSES
from conformance.models.known import known_fails
from conformance.models.outcome import ModelOutcome
from conformance.models.running import DEFAULT_TIMEOUT
from conformance.models.session import judge_model
from conformance.models.source import FILLS, ModelError, filled_inputs, parse_shape, read_inputs, read_model
from conformance.ops.registry import by_onnx_op_type
from conformance.report import findings as report_findings
from conformance.report.render import write_report
from conformance.results.records import ResultsFile, environment, write_results
from conformance.running.workers import ModelAnswer

DEFAULT_OUT = Path("reports/model")


def _shape(text: str) -> tuple[str, int]:
    try:
        return parse_shape(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_parser(commands: Any) -> None:
    command = commands.add_parser(
        "model", help="judge every TopK, ArgMax, ArgMin, Hardmax and NonMaxSuppression node of an ONNX model on "
        "backends, and say where they part")
    command.add_argument("model", type=Path, metavar="MODEL.onnx")
    given = command.add_mutually_exclusive_group()
    given.add_argument("--inputs", type=Path, metavar="FILE.npz", help="the model's inputs, by name")
    given.add_argument("--fill", choices=FILLS, default="random",
                       help="inputs made for it (default: random); tiles repeats one random patch, the flat input "
                       "on which detectors and classifiers meet equal scores")
    command.add_argument("--seed", type=int, default=0, metavar="N", help="for random and tiles (default: 0)")
    command.add_argument("--shape", type=_shape, action="append", default=[], metavar="NAME=N",
                         help="the size of a symbolic dimension of an input")
    command.add_argument("--backend", action="append", metavar="NAME",
                         help="repeatable; default: every available backend that runs ONNX graphs")
    command.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="DIR",
                         help=f"results.json, report.html and cases/ (default: {DEFAULT_OUT})")
    command.add_argument("--timeout", type=positive_seconds, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                         help=f"for each run of the model on a backend (default: {DEFAULT_TIMEOUT:g})")
    command.add_argument("--strict", action="store_true",
                         help="exit 1 when a node fails on a backend (a model's own CI); else 0")


def _backends(names: list[str] | None) -> list[Backend]:
    if names:
        return by_name(names)
    return [backend for backend in all_backends() if backend.by_default and "onnx" in backend.kinds]


def main(args: argparse.Namespace, console: Console) -> int:
    try:
        source = read_model(args.model)
        shapes = dict(args.shape)
        feeds = (read_inputs(source, args.inputs, shapes) if args.inputs
                 else filled_inputs(source, args.fill, args.seed, shapes))
    except ModelError as exc:
        return _refused(str(exc))
    try:
        candidates = _backends(args.backend)
    except KeyError as exc:
        return _refused(str(exc.args[0]))
    nodes = judged_nodes(source.model)
    if not nodes:
        kinds = ", ".join(by_onnx_op_type())
        console.print(f"{args.model}: no node of {kinds}; nothing to judge", markup=False)
        return 0
    inputs = {name: {"dtype": str(array.dtype), "shape": list(array.shape),
                     "from": str(args.inputs) if args.inputs else f"--fill {args.fill} --seed {args.seed}"}
              for name, array in feeds.items()}
    console.print(f"{args.model}: {len(nodes)} judged nodes ({_count(nodes)}), opset {source.opset}", markup=False)
    console.print(f"asking {len(candidates)} backends whether they can run here", markup=False)

    def said(name: str, answer: ModelAnswer, seconds: float) -> None:
        told = ("ran" if answer.outputs is not None
                else f"{answer.verdict}{' ' if answer.stage else ': '}{printable(answer.described)[:200]}")
        console.print(f"  {name}: {told} ({seconds:.1f} s)", markup=False)

    try:
        with interruptible():
            outcome = judge_model(source, feeds, nodes, candidates, inputs, args.timeout, bool(args.backend), said)
    except Interrupted as stop:  # while asking the backends whether they run here
        print(f"topk-conformance: stopped by {stop.name} before any backend ran the model", file=sys.stderr)
        return 128 + stop.signum
    try:
        cases = write_cases(outcome, args.out)
    except WriteError as exc:
        return _refused(str(exc))
    alone: dict[tuple[str, str], Alone] = {}
    if not outcome.interrupted:
        try:
            with interruptible():
                alone = rerun_alone(outcome, cases, candidates, args.timeout)
        except Interrupted as stop:  # what was judged is written; the reruns are left out
            outcome.interrupted, outcome.signum = f"stopped by {stop.name} while rerunning the fails alone", stop.signum
    records = report_findings.load()  # read once: for what each fail is like, and for the report
    known = known_fails(outcome, records[0])
    try:
        data = ResultsFile(environment(), outcome.runs_info, [], [],
                           models=[model_entry(outcome, cases, args.out, alone, known)])
        write_results(args.out / "results.json", data)
        write_report(args.out / "report.html", data, findings=records)
    except WriteError as exc:
        return _refused(str(exc))
    _print(outcome, console)
    _print_alone(outcome, alone, console)
    _print_known(outcome, known, console)
    console.print(f"wrote {args.out / 'results.json'}, {args.out / 'report.html'} and {len(cases)} case files",
                  markup=False)
    if outcome.interrupted:
        print(f"topk-conformance: {outcome.interrupted}; what was judged is written", file=sys.stderr)
        return 128 + outcome.signum
    failing = outcome.failing()
    return 1 if args.strict and failing else 0


def _count(nodes: Sequence[Any]) -> str:
    counts: dict[str, int] = {}
    for node in nodes:
        counts[node.op_type] = counts.get(node.op_type, 0) + 1
    return ", ".join(f"{count} {op_type}" for op_type, count in counts.items())


def _print(outcome: ModelOutcome, console: Console) -> None:
    table = Table(title=f"{outcome.source.path.name}: judged nodes")
    table.add_column("#")
    table.add_column("node")
    for backend in outcome.runs:
        table.add_column(backend)
    table.add_column("between backends")
    for node in outcome.nodes:
        counts: dict[str, int] = {}
        for _, _, kind, _ in node.pairs:
            counts[kind] = counts.get(kind, 0) + 1
        classes = ", ".join(f"{kind} {counts[kind]}" for kind in CLASSES if kind in counts)
        table.add_row(node.key, Text(f"{node.label} ({node.node.op_type})"),
                      *(Text(_verdict_text(verdict.verdict, verdict.rules)) for verdict in node.verdicts.values()),
                      classes)
    console.print(table)
    parting = outcome.parting
    if parting is None:
        console.print("where the backends part: at no judged node", markup=False)
    else:
        answers = _groups(parting.answer_groups())
        console.print(f"where the backends part: node {parting.key}, {parting.label} "
                      f"({parting.node.op_type}, {parting.node.where}); its answers: {answers}", markup=False)
        for kind in ("fail", "flipped", "admitted"):
            pairs = [(a, b, message) for a, b, found, message in parting.pairs if found == kind]
            if pairs:
                a, b, message = pairs[0]
                more = f" and {len(pairs) - 1} more pairs" if len(pairs) > 1 else ""
                console.print(f"  {kind}: {a} and {b}{more}" + (f": {message}" if message else ""), markup=False)
    for backend, how in outcome.captured_changed.items():
        console.print(f"capturing changed what {backend} ran: {printable(how)}", markup=False)
    for value in outcome.source.model.graph.output:
        groups = outcome.output_groups(value.name)
        if len(groups) > 1:
            console.print(f"model output {value.name}: {_groups(groups)}", markup=False)


def _print_alone(outcome: ModelOutcome, alone: dict[tuple[str, str], Alone], console: Console) -> None:
    """Per backend, the fails that fail alone by the same rules (finding candidates) and those
    that do not, a few named (a detector has 90 TopKs)."""
    names = {node.key: node.label for node in outcome.nodes}
    for backend in dict.fromkeys(name for _, name in alone):
        for candidate, said in ((True, "finding candidates: they fail alone by the same rules"),
                                (False, "not alone: the model around them matters")):
            found = [(key, rerun) for (key, name), rerun in alone.items() if name == backend
                     and rerun.candidate == candidate]
            if not found:
                continue
            shown = ", ".join(f"node {key}, {names[key]}" for key, _ in found[:3])
            more = f" and {len(found) - 3} more" if len(found) > 3 else ""
            console.print(f"on {backend}, {said}: {shown}{more} ({printable(found[0][1].message)[:200]})",
                          markup=False)


def _print_known(outcome: ModelOutcome, known: Mapping[tuple[str, str], Sequence[Finding]],
                 console: Console) -> None:
    """Per backend and finding record, the fails that are like it, a few named."""
    names = {node.key: node.label for node in outcome.nodes}
    by_record: dict[tuple[str, str], list[str]] = {}
    records: dict[str, Finding] = {}
    for (key, backend), findings in known.items():
        for finding in findings:
            by_record.setdefault((backend, finding.id), []).append(key)
            records[finding.id] = finding
    for (backend, finding_id), keys in by_record.items():
        finding = records[finding_id]
        shown = ", ".join(f"node {key}, {names[key]}" for key in keys[:3])
        more = f" and {len(keys) - 3} more" if len(keys) > 3 else ""
        console.print(f"on {backend}, like finding {finding_id} ({finding.title}; upstream {finding.upstream.summary}; "
                      f"repro {_shown(finding.script)}): {shown}{more}", markup=False)


def _shown(path: Path) -> str:
    """A path as the user reads it: from the working folder where it lies under it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _groups(groups: list[list[str]]) -> str:
    if len(groups) == 1:
        return "all equal"
    return "; ".join(f"answer {chr(ord('A') + at)} from {', '.join(members)}" for at, members in enumerate(groups))


def _verdict_text(verdict: str, rules: Sequence[str]) -> str:
    return verdict + (f" [{', '.join(rules)}]" if rules else "")


def _refused(line: str) -> int:
    print(f"topk-conformance: {printable(line)}", file=sys.stderr)
    return 2
