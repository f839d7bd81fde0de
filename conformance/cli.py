"""`topk-conformance` (and `python -m conformance`): run TopK cases on backends, judge them,
hold them to a baseline, merge results files from several machines, and render reports.

Exit status: 0 the command did its work (and, with --baseline, the gate held); 1 the gate
failed (a regression against the baseline) or results files conflict; 2 a usage error, no
case found, or a backend named that does not exist."""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from conformance import fuzz, model_command
from conformance.backends.base import Availability, Backend
from conformance.backends.record import SetupStep
from conformance.backends.registry import (
    NAME_RULE,
    RECORDS,
    all_backends,
    by_name,
    set_up_by,
    setup_steps,
    valid_name,
)
from conformance.cases import corpus as _corpus
from conformance.cases.loader import load_cases
from conformance.core.atomic_files import WriteError
from conformance.core.interrupts import Interrupted, held, interruptible
from conformance.core.offline import quiet_runtimes
from conformance.core.options import DEFAULT_PACK, MOST_JOBS, jobs, pack_size, positive_seconds, shard
from conformance.core.text import printable
from conformance.core.tool_input import InputError
from conformance.findings import cli as findings_cli
from conformance.findings.records import upstream_labels
from conformance.gate import (
    BaselineError,
    Comparison,
    Key,
    compare,
    read_baseline,
    record,
    result_key,
    worst_of,
    write_baseline,
)
from conformance.junit import write_junit
from conformance.ops.registry import OPERATORS
from conformance.progress import RunProgress, cliff_lines, output_console, summary_table, timing_table
from conformance.report.render import write_report
from conformance.results.output import STREAM_NAME, FolderInUse, OutputFolder, StreamFailed
from conformance.results.records import (
    Result,
    ResultsFile,
    environment,
    merge,
    read_results,
    shard_coverage,
    write_results,
)
from conformance.results.timing import flag_cliffs
from conformance.running.probed import Probed, carried
from conformance.running.shards import ShardPlan, case_seconds, plan
from conformance.running.suite import Executors, ordered, run_probed
from conformance.running.unfinished import left_out_lines, stale_lines
from conformance.running.workers import Probe, probe_here

DEFAULT_OUT = Path("reports/latest")
# Why a default run leaves out a backend such as openvino-cpu-avx2 (environment.left_out).
NAMED_ONLY = "run only when named (--backend NAME)"


def main(argv: Sequence[str] | None = None) -> int:
    quiet_runtimes()  # here too: an in-process run, a probe and the hosts it starts load runtimes
    parser = _parser()
    args = parser.parse_args(argv)
    console = output_console()
    if args.command == "report":
        return _report(args, console)
    if args.command == "merge":
        return _merge(args, console)
    if args.command == "baseline":
        return _baseline(args, console)
    if args.command == "cases":
        return _corpus.main(args, console)
    if args.command == "setup":
        return _setup(console, setup_steps()[args.component])
    if args.command == "fuzz":
        return fuzz.main(args, console)
    if args.command == "model":
        return model_command.main(args, console)
    if args.command == "findings":
        return findings_cli.main(args, console)
    if args.shard_timings and not args.shard:
        parser.error("argument --shard-timings: only with --shard I/N (it balances the shards)")
    everything = all_backends()
    if args.list_backends:
        return _list_backends(everything, args.timeout, console)
    try:
        candidates = by_name(args.backend) if args.backend else [b for b in everything if b.by_default]
    except KeyError as exc:
        parser.error(str(exc.args[0]))
    # Left out of a default run however they answer: said at its start, with the unavailable.
    named_only = [] if args.backend else [b.name for b in everything if not b.by_default]
    return _run(args, candidates, named_only, console)


def _list_backends(everything: Sequence[Backend], timeout: float, console: Console) -> int:
    """Every backend, each probe's answer on a line as it comes (they are asked at once, in
    workers: a hang or crash there is a reason), then the table."""
    console.print(f"asking {_backends(len(everything))}, each in a worker of its own (at most {timeout:g} s each): "
                  + ", ".join(b.name for b in everything), markup=False)

    def answered(name: str, probe: Probe, seconds: float) -> None:
        status = probe.availability
        said = "available" if status.available else f"not available: {_shortened(printable(status.reason))}"
        console.print(f"  {name}: {said} ({seconds:.1f} s)", markup=False)

    console.print(_backend_table(Executors.probe_once(everything, timeout, answered)))
    return 0


def _shortened(text: str, limit: int = 160) -> str:
    """A reason on one line of a run's start, less its asides in parentheses (its whole text
    is in --list-backends and results.json)."""
    flat = " ".join(re.sub(r" \([^()]*\)", "", text).split()) or " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1].rstrip() + "…"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="topk-conformance", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run cases on backends and write results.json and report.html")
    run.add_argument("--cases", type=Path, action="append", metavar="PATH",
                     help="case file or folder (repeatable; default: cases/ if present, else the shipped corpus)")
    run.add_argument("--backend", action="append", metavar="NAME",
                     help="backend to run (repeatable; default: every one available here, less those "
                          f"run only when named: {', '.join(r.name for r in RECORDS if not r.by_default)})")
    run.add_argument("--case", action="append", metavar="ID", help="only this case id (repeatable)")
    run.add_argument("--op", action="append", choices=sorted(OPERATORS), metavar="OP",
                     help=f"only this operator's cases (repeatable; {', '.join(OPERATORS)}; default: all)")
    run.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="DIR",
                     help=f"where results.json and report.html go (default: {DEFAULT_OUT})")
    run.add_argument("--list-backends", action="store_true",
                     help="list every backend, whether it is available here, and why not")
    run.add_argument("--allow-unavailable", action="store_true",
                     help="a backend named with --backend that cannot run here is a skip, not exit status 2")
    run.add_argument("--in-process", action="store_true",
                     help="run backends in this process (for debugging; a crash ends the run)")
    run.add_argument("--timeout", type=positive_seconds, default=60.0, metavar="SECONDS",
                     help="time one graph may take before its worker is killed (default: 60)")
    run.add_argument("--jobs", "-j", type=jobs, default=min(os.cpu_count() or 1, MOST_JOBS), metavar="N",
                     help="graphs run at once, in N worker processes over all backends together (each "
                     "backend has up to N); results are the same as with 1 (default: the number of "
                     f"cores, {os.cpu_count() or 1}; --in-process runs one at a time)")
    run.add_argument("--pack", type=pack_size, default=DEFAULT_PACK, metavar="N",
                     help="run up to N graphs (of any cases) as one model on a backend that can (OpenVINO), "
                     "compiling once; every graph that does not pass in a pack is run again alone, and "
                     "that run is its result; with --baseline, the graphs it lists run alone from the start "
                     f"(default: {DEFAULT_PACK}, each graph alone; --in-process never packs)")
    run.add_argument("--slow", action="store_true",
                     help="also run the graphs a backend's record says it does not finish here (IREE's and "
                     "tinygrad's TopK over rows of a million elements: each then costs --timeout); by default "
                     "they are skips naming the finding that shows it")
    run.add_argument("--no-graph-reuse", dest="graph_reuse", action="store_false",
                     help="open a session / compile a model for every graph, instead of sharing one "
                     "between graphs that are the same up to their name (a repeated case's runs share "
                     "one either way)")
    run.add_argument("--baseline", type=Path, metavar="FILE",
                     help="the gate: exit 1 when a result is worse than this baseline records")
    run.add_argument("--strict-baseline", action="store_true",
                     help="with --baseline: also fail when a recorded discrepancy now passes or did not run")
    run.add_argument("--shard", type=shard, metavar="I/N",
                     help="run only the I-th of N parts of the selected cases (I from 1, as a CI matrix "
                     "counts), each case with all its backends and graphs; the same options on N machines "
                     "give N disjoint parts, and `merge` of their N results.json is the whole run. Balanced "
                     "by each case's graph variants, or by --shard-timings")
    run.add_argument("--shard-timings", type=Path, metavar="RESULTS_JSON",
                     help="with --shard: balance the parts by the seconds each case took in this earlier "
                     "results file (a case it lacks counts as their mean); give every shard the same file")
    run.add_argument("--junitxml", type=Path, metavar="FILE", help="also write JUnit XML, one test case per result")
    _corpus.add_parser(commands)
    fuzz.add_parser(commands)
    model_command.add_parser(commands)
    findings_cli.add_parser(commands)
    setup = commands.add_parser("setup", help="install what a backend needs here (idempotent)")
    steps = setup_steps()
    setup.add_argument("component", choices=list(steps), help="; ".join(
        f"{name}: {step.what} ({', '.join(b.name for b in set_up_by(step))})" for name, step in steps.items()))
    report = commands.add_parser("report", help="render one HTML report from one or more results files")
    report.add_argument("results", type=Path, nargs="+", metavar="RESULTS_JSON")
    report.add_argument("-o", "--output", type=Path, metavar="FILE", help="the HTML file (default: DIR/report.html)")
    report.add_argument("--out", type=Path, default=Path("reports/merged"), metavar="DIR",
                        help="where the merged results.json and report.html go (default: reports/merged)")
    report.add_argument("--prefer", choices=["later"], help="on conflicting verdicts, keep the later file's")
    merge_command = commands.add_parser("merge", help="merge results files from several environments or machines")
    merge_command.add_argument("results", type=Path, nargs="+", metavar="RESULTS_JSON")
    merge_command.add_argument("-o", "--output", type=Path, required=True, metavar="FILE")
    merge_command.add_argument("--prefer", choices=["later"],
                               help="on conflicting verdicts keep the later file's (else exit 1)")
    baseline = commands.add_parser("baseline", help="write a baseline (the known discrepancies) from results")
    baseline.add_argument("results", type=Path, nargs="+", metavar="RESULTS_JSON")
    baseline.add_argument("--prefer", choices=["later", "worst"],
                          help="where two files give one result differently on one tier, record the later "
                          "file's, or (worst: a runtime that answers differently from run to run) the worst "
                          "verdict seen with every rule broken, marked `varies` (else exit 1 and write nothing)")
    baseline.add_argument("--as", dest="record_as", action="append", default=[], metavar="NAME=OTHER",
                          help="record backend NAME's results as OTHER's, on NAME's instruction-set tier "
                               "(a backend held to a lower tier, recorded as the backend it stands for: that tier's "
                               "entries of it)")
    baseline.add_argument("-o", "--output", type=Path, required=True, metavar="FILE",
                          help="the baseline YAML; notes of an existing one carry over")
    return parser


def _backend_table(probed: Sequence[Probed]) -> Table:
    table = Table(title="Backends")
    for column in ("backend", "available", "why not"):
        table.add_column(column)
    for backend in probed:
        status = backend.availability
        answer = ("yes" if backend.record.by_default else "yes, when named") if status.available else "no"
        table.add_row(backend.name, answer, Text(printable(status.reason)))  # Text: a `[tract]` is not markup
    return table


def _usable(args: argparse.Namespace, candidates: list[Probed]) -> list[Probed] | None:
    """The backends to run: those named (None when one cannot run, unless
    --allow-unavailable), or every available one."""
    if not args.backend:
        return [b for b in candidates if b.available]
    missing = [b for b in candidates if not b.available]
    if missing and not args.allow_unavailable:
        # A CI job that lost its runtime must not stay green on a run of skips.
        for backend in missing:
            reason = printable(backend.availability.reason)
            print(f"topk-conformance: backend {backend.name} is not available: {reason}", file=sys.stderr)
        print("topk-conformance: --allow-unavailable runs the others and records these as skips", file=sys.stderr)
        return None
    return candidates


def _run(args: argparse.Namespace, candidates: list[Backend], named_only: list[str], console: Console) -> int:
    executors = Executors(not args.in_process, args.timeout, args.jobs, args.graph_reuse, args.pack)
    try:
        # The --out lock first: a second run on the same folder is refused before it does any work.
        with OutputFolder(args.out) as folder, interruptible():
            return _run_with(args, candidates, named_only, executors, folder, console)
    except Interrupted as stop:  # before the run started (loading cases, asking backends)
        print(f"topk-conformance: stopped by {stop.name} before any result", file=sys.stderr)
        return 128 + stop.signum
    except FolderInUse as exc:
        return _refused(str(exc))
    except WriteError as exc:  # the folder cannot be made or locked: nothing was run
        return _refused(f"{exc}; nothing was run")
    finally:
        executors.close()


def _refused(line: str) -> int:
    print(f"topk-conformance: {printable(line)}", file=sys.stderr)
    return 2


def _run_with(args: argparse.Namespace, candidates: list[Backend], named_only: list[str], executors: Executors,
              folder: OutputFolder, console: Console) -> int:
    baseline = None
    if args.baseline:
        try:
            baseline = read_baseline(args.baseline)
        except BaselineError as exc:
            return _refused(str(exc))
        # With --pack, what the baseline says does not pass runs alone from the start.
        executors.alone = frozenset(entry.result_key for entry in baseline.entries.values())
    executors.slow = args.slow
    loaded = load_cases(args.cases or _corpus.default_case_roots())
    errors = [str(error) for error in loaded.errors]
    for line in errors:
        print(f"case error: {printable(line)}", file=sys.stderr)
    cases = loaded.cases
    if args.case:
        wanted = set(args.case)
        cases = [case for case in cases if case.id in wanted]
        missing = wanted - {case.id for case in cases}
        if missing:
            print(f"no such case: {printable(', '.join(sorted(missing)))}", file=sys.stderr)
    if args.op:
        cases = [case for case in cases if case.op in args.op]
    if not cases:
        return _refused("no case to run (a run of nothing is never green)")
    shard_plan: ShardPlan | None = None
    if args.shard:
        timings = None
        if args.shard_timings:
            try:
                timings = case_seconds(read_results(args.shard_timings).results)
            except InputError as exc:
                return _refused(f"--shard-timings: {exc}")
        index, count = args.shard
        shard_plan = plan(cases, index, count, args.backend or [], timings, str(args.shard_timings or ""))
        cases = shard_plan.cases
        console.print(f"shard {shard_plan.index}/{shard_plan.count}: {len(cases)} of {len(shard_plan.assignment)} "
                      f"cases (balanced by {shard_plan.by})")
        if not cases:
            print(f"topk-conformance: shard {shard_plan.index}/{shard_plan.count} has no case: there are only "
                  f"{len(shard_plan.assignment)} to share; its results.json says so, for merge", file=sys.stderr)
    console.print(f"asking {_backends(len(candidates))} whether they can run here, each in a worker of its own "
                  f"(at most {args.timeout:g} s each)", markup=False)
    probed = executors.probe(candidates)  # each in its worker, under --timeout, once: carried from here
    backends = _usable(args, probed)
    if backends is None:
        return 2
    # The suite's word on availability last: a plugin's describe() cannot overwrite it.
    info = {backend.name: backend.description() for backend in backends}
    left_out = _left_out(probed, named_only)
    line = _left_out_line(left_out)
    if line:
        console.print(line, markup=False)
    console.print(f"{len(cases)} cases on {', '.join(b.name for b in backends) or 'no backend'}", markup=False)
    total = sum(len(backend.variants(case)) for backend in backends for case in cases)
    results: list[Result] = []

    def finished(result: Result) -> None:
        with held():  # in memory and on disk, or in neither: results.json and results.jsonl agree
            results.append(result)
            folder.add(result)  # on disk at once: a kill loses nothing finished
        progress.add(result)

    stopped: Interrupted | StreamFailed | None = None
    here = environment()
    if left_out:
        here["left_out"] = left_out
    if shard_plan is not None:
        # For merge: which shards of which split it has, and which backends ran in it.
        here["shard"] = shard_plan.record(backend.name for backend in backends)
    with RunProgress(total, console) as progress:
        try:
            folder.header(here, info, errors)
            with interruptible():
                run_probed(cases, backends, finished, executors)
        except (Interrupted, StreamFailed) as stop:
            stopped = stop
    # In a sequential run's order whatever --jobs was; cliffs need every backend's times.
    results = flag_cliffs(ordered(results, cases, [backend.name for backend in backends]))
    data = ResultsFile(here, info, errors, results)
    try:
        write_results(args.out / "results.json", data)
        write_report(args.out / "report.html", data)
    except WriteError as exc:
        if isinstance(stopped, StreamFailed):  # the first failure is the one to name
            return _refused(f"{stopped}; the run stopped there, after {len(results)} of {total} results. "
                            f"{_kept(folder)}; {exc}")
        return _refused(f"{exc}; {_kept(folder)}")
    if isinstance(stopped, StreamFailed):
        return _refused(f"{stopped}; the run stopped there, after {len(results)} of {total} results. "
                        f"{_kept(folder)}, and results.json and report.html hold the {len(results)} results it "
                        "finished")
    if stopped is not None:
        print(f"topk-conformance: stopped by {stopped.name} after {len(results)} results; "
              f"they are in {args.out / 'results.json'}", file=sys.stderr)
        return 128 + stopped.signum
    # The verdicts last, so that they are what the screen shows when the run ends.
    console.print(timing_table(results, info))
    for line in cliff_lines(results):
        console.print(line, markup=False)
    records = [each.record for each in backends]
    for line in stale_lines(results, records, cases, args.timeout) if args.slow else left_out_lines(results):
        console.print(line, markup=False)
    if args.junitxml:
        try:
            write_junit(args.junitxml, results)
        except WriteError as exc:
            return _refused(f"{exc}; results.json and report.html are written")
    console.print(f"wrote {args.out / 'results.json'} and {args.out / 'report.html'}", markup=False)
    if errors:
        console.print(f"[bold red]{len(errors)} case file error(s)[/]: listed above and in the report")
    console.print(summary_table(results))
    if baseline is None:
        return 0
    elsewhere = shard_plan.elsewhere() if shard_plan else set()
    return _gate(compare(results, baseline, elsewhere, upstream_labels(), described=info), args.strict_baseline,
                 args.baseline)


def _left_out(candidates: list[Probed], named_only: list[str]) -> list[dict[str, str]]:
    """The backends this run does not run, and why: those that cannot run here (with
    --allow-unavailable their graphs are skips), and those a default run leaves to be named."""
    left = [{"backend": b.name, "reason": printable(b.availability.reason)} for b in candidates if not b.available]
    return left + [{"backend": name, "reason": NAMED_ONLY} for name in named_only]


def _backends(count: int) -> str:
    return f"{count} backend{'' if count == 1 else 's'}"


def _left_out_line(left_out: list[dict[str, str]]) -> str:
    """One line naming each backend left out, with its reason shortened ("" when none is)."""
    unavailable = [entry for entry in left_out if entry["reason"] != NAMED_ONLY]
    named_only = [entry["backend"] for entry in left_out if entry not in unavailable]
    parts = []
    if unavailable:
        parts.append(f"{len(unavailable)} that cannot run here: " + "; ".join(
            f"{entry['backend']} ({_shortened(entry['reason'], 120)})" for entry in unavailable))
    if named_only:
        parts.append(f"{len(named_only)} run only when named: {', '.join(named_only)}")
    if not parts:
        return ""
    return f"left out: {'; '.join(parts)}. The reasons in full: run --list-backends, or environment.left_out"


def _kept(folder: OutputFolder) -> str:
    return f"kept: {folder.folder / STREAM_NAME} holds {folder.streamed} results, each on a whole line"


def _gate(comparison: Comparison, strict: bool, path: Path) -> int:
    sections = (("regressions", comparison.regressions, True), ("fixed", comparison.fixed, strict),
                ("recorded but not run", comparison.not_run, strict))
    for title, lines, fatal in sections:
        if lines:
            print(f"gate: {len(lines)} {title}{' (fails the gate)' if fatal else ''}:", file=sys.stderr)
            for line in lines:
                print(f"  {printable(line)}", file=sys.stderr)
    if comparison.ungated:
        why = " (fails the gate: a strict gate must check every backend it runs)" if strict else ""
        print(f"gate: not covered by {path}: {printable(', '.join(comparison.ungated))}{why}", file=sys.stderr)
    for backend, how in comparison.moved.items():
        print(f"gate: {printable(backend)} runs elsewhere than {path} was recorded ({printable(how)}): its "
              "differences below do not fail the gate", file=sys.stderr)
    for line in comparison.elsewhere:
        print(f"  {printable(line)}", file=sys.stderr)
    failed = comparison.failed(strict)
    print(f"gate: {'FAILED' if failed else 'held'} against {path}", file=sys.stderr)
    return 1 if failed else 0


def _say(console: Console) -> Callable[[str], None]:
    """A setup's messages, printed as they are: a path or a hint with brackets is not markup."""
    return lambda text: console.print(text, markup=False)


def _setup_result(console: Console, component: str, availability: dict[str, Availability]) -> int:
    """0 where every backend the setup is for is available now; else 1, with one line."""
    missing = {name: status.reason for name, status in availability.items() if not status.available}
    if missing:
        _one_line(f"setup {component}: not available: "
                  + "; ".join(f"{name}: {reason}" for name, reason in missing.items()))
        return 1
    return 0


def _set_up(console: Console, component: str, steps: Callable[[], None]) -> bool:
    """Run a setup's steps; where one cannot be done (a SetupError, or a folder that cannot be
    written: no home, a read-only cache, a file in the path), one line on stderr saying why."""
    from conformance.backends.setup_steps import SetupError

    try:
        steps()
    except SetupError as exc:
        _one_line(f"setup {component} stopped: {exc}")
        return False
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        _one_line(f"setup {component} stopped: cannot write {where}{exc.strerror or exc} "
                  "(set TOPK_CONFORMANCE_CACHE to a folder you can write)")
        return False
    return True


def _one_line(text: str) -> None:
    """A message on stderr as one line, however long: the terminal wraps it, not the suite."""
    print(printable(" ".join(text.split())), file=sys.stderr)


def _setup(console: Console, step: SetupStep) -> int:
    """A setup step's work, then whether the backends it is for are available now (in their
    workers, or in this process where the step says so), each with its reason."""
    if not _set_up(console, step.name, lambda: step.run(_say(console))):
        return 1
    backends = set_up_by(step)
    if step.probe_seconds is None:
        probed = [carried(backend, probe_here(backend)) for backend in backends]
    else:
        probed = Executors.probe_once(backends, timeout=step.probe_seconds)
    console.print(_backend_table(probed))
    return _setup_result(console, step.name, {backend.name: backend.availability for backend in probed})


def _read_all(paths: list[Path]) -> list[ResultsFile] | None:
    """Every results file, or None (after saying why, naming the file and field) where one
    cannot be read; what reading dropped is said too."""
    files = []
    for path in paths:
        try:
            files.append(read_results(path))
        except InputError as exc:
            print(f"topk-conformance: cannot read results: {printable(str(exc))}", file=sys.stderr)
            return None
        for note in files[-1].notes:
            print(f"topk-conformance: {printable(note)}", file=sys.stderr)
    return files


def _merged(args: argparse.Namespace) -> tuple[ResultsFile | None, int]:
    files = _read_all(args.results)
    if files is None:
        return None, 2
    merged = merge(files, prefer_later=args.prefer == "later")
    complete, incomplete = shard_coverage(files)
    for line in complete:
        print(f"topk-conformance: {line}", file=sys.stderr)
    for line in incomplete:
        print(f"topk-conformance: warning: {printable(line)}", file=sys.stderr)
    for line in merged.conflicts:
        print(f"conflict: {printable(line)}", file=sys.stderr)
    if merged.conflicts and args.prefer != "later":
        print(f"topk-conformance: {len(merged.conflicts)} conflicting verdicts; the earlier file's are kept. "
              "--prefer later keeps the later file's and exits 0", file=sys.stderr)
        return merged.data, 1
    return merged.data, 0


def _report(args: argparse.Namespace, console: Console) -> int:
    data, status = _merged(args)
    if data is None:
        return status
    html = args.output or args.out / "report.html"
    written: list[Path] = []
    try:
        if args.output is None:
            write_results(args.out / "results.json", data)
            written.append(args.out / "results.json")
        write_report(html, data)
    except WriteError as exc:
        return _refused(f"{exc}; " + (f"{written[0]} is written" if written else "nothing was written"))
    console.print(summary_table(data.results))
    console.print(f"rendered {len(args.results)} results file(s) into {html}", markup=False)
    return status


def _merge(args: argparse.Namespace, console: Console) -> int:
    data, status = _merged(args)
    if data is None:
        return status
    try:
        write_results(args.output, data)
    except WriteError as exc:
        return _refused(f"{exc}; nothing was written")
    console.print(f"merged {len(args.results)} results files ({len(data.results)} results) into {args.output}",
                  markup=False)
    return status


def _untiered_beside_tiered(sourced: list[tuple[Path, Result]]) -> str:
    """Why results of a backend from a file without `isa` (older than the field) cannot be
    scoped beside the same backend's results of known tiers, naming the file; or ""."""
    tiers: dict[str, set[str]] = {}
    untiered: dict[str, list[Path]] = {}
    for path, result in sourced:
        tiers.setdefault(result.backend, set()).add(result.isa)
        if not result.isa and path not in untiered.setdefault(result.backend, []):
            untiered[result.backend].append(path)
    for backend, seen in sorted(tiers.items()):
        if len(seen) > 1 and untiered.get(backend):
            return (f"{', '.join(map(str, untiered[backend]))}: results[].isa: {backend}'s results there have no "
                    "instruction-set tier (a file older than the field), so they cannot be scoped beside its results "
                    f"of known tiers ({', '.join(sorted(seen - {''}))}); record them apart")
    return ""


def _worst_of_each(results: list[Result]) -> tuple[list[Result], frozenset[Key]]:
    """One result per key and tier: where the files disagree, the worst seen (gate.worst_of),
    and those keys, to be recorded as varying."""
    grouped: dict[tuple[Any, ...], list[Result]] = {}
    for result in results:
        grouped.setdefault((*result.key, result.isa), []).append(result)
    chosen, varying = [], set()
    for variants in grouped.values():
        if len({(result.verdict, tuple(result.rules)) for result in variants}) > 1:
            chosen.append(worst_of(variants))
            varying.add(result_key(variants[0]))
        else:
            chosen.append(variants[-1])
    return chosen, frozenset(varying)


def _tier_conflicts(results: list[Result]) -> list[str]:
    """Results of one key and one instruction-set tier that two files give differently: one
    of them would be recorded and the other dropped without a word."""
    seen: dict[tuple[Any, ...], Result] = {}
    conflicts = []
    for result in results:
        earlier = seen.setdefault((*result.key, result.isa), result)
        if (earlier.verdict, earlier.rules) != (result.verdict, result.rules):
            conflicts.append(f"{result.case} on {result.backend} ({result.graph}, K {result.k_source}, "
                             f"isa {result.isa or '-'}): {earlier.verdict} {earlier.rules} from "
                             f"{earlier.machine or '?'}, {result.verdict} {result.rules} from {result.machine or '?'}")
            seen[(*result.key, result.isa)] = result  # the later one is what --prefer later records
    return conflicts


def _recorded_on(files: list[ResultsFile], renamed: dict[str, str]) -> dict[str, dict[str, str]]:
    """backend -> its description's values of its record's `depends_on` keys, from the last
    results file that describes it."""
    depends = {record.name: record.depends_on for record in RECORDS if record.depends_on}
    recorded: dict[str, dict[str, str]] = {}
    for results_file in files:
        for name, described in results_file.backends.items():
            keys = depends.get(name, ())
            if keys and described.get("available", True):
                recorded[renamed.get(name, name)] = {key: str(described.get(key, "")) for key in keys}
    return recorded


def _baseline(args: argparse.Namespace, console: Console) -> int:
    files = _read_all(args.results)
    if files is None:
        return 2
    for line in shard_coverage(files)[1]:  # as merge and report say: a shard missing is results missing
        print(f"topk-conformance: warning: {printable(line)}", file=sys.stderr)
    previous = None
    if args.output.is_file():  # through a link too; a folder there is the write's error
        try:
            previous = read_baseline(args.output)
        except BaselineError as exc:
            return _refused(f"{exc} (the notes of an existing -o baseline carry over: fix or remove it)")
    renamed: dict[str, str] = {}
    present = sorted({result.backend for results_file in files for result in results_file.results})
    for pair in args.record_as:
        name, _, other = pair.partition("=")
        if not valid_name(name) or not valid_name(other):
            return _refused(f"--as {pair}: want NAME=OTHER, two backend names ({NAME_RULE})")
        if name in renamed:
            return _refused(f"--as {pair}: {name} is already recorded as {renamed[name]}")
        if name not in present:
            # A typo would otherwise record nothing under OTHER, and say nothing.
            return _refused(f"--as {pair}: no result of backend {name} in the results files "
                            f"(they hold {', '.join(present) or 'no results'})")
        renamed[name] = other
    sourced = [(path, dataclasses.replace(result, backend=renamed.get(result.backend, result.backend)))
               for path, results_file in zip(args.results, files, strict=True) for result in results_file.results]
    results = [result for _, result in sourced]
    untiered = _untiered_beside_tiered(sourced)
    if untiered:
        return _refused(untiered)
    conflicts = _tier_conflicts(results)
    for line in conflicts:
        print(f"conflict: {printable(line)}", file=sys.stderr)
    if conflicts and args.prefer not in ("later", "worst"):
        print(f"topk-conformance: {len(conflicts)} results differ between files on the same tier; nothing was "
              "written. --prefer later records the later file's, --prefer worst the worst seen", file=sys.stderr)
        return 1
    varying: frozenset[Key] = frozenset()
    if args.prefer == "worst":
        results, varying = _worst_of_each(results)
    recorded_with = files[-1].environment.get("packages", {})
    try:
        baseline = record(results, recorded_with, previous, _recorded_on(files, renamed), varying)
        write_baseline(args.output, baseline)
    except BaselineError as exc:
        return _refused(str(exc))
    except WriteError as exc:
        return _refused(f"{exc}; {'the existing baseline is unchanged' if previous else 'nothing was written'}")
    console.print(f"wrote {len(baseline.entries)} known discrepancies of {', '.join(baseline.backends)} "
                  f"to {args.output}", markup=False)
    return 0
