"""`topk-conformance` (and `python -m conformance`): run cases on backends, or merge
results files from several environments or machines into one report."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from backends.base import Backend
from backends.registry import all_backends, by_name
from conformance.loader import load_cases
from conformance.progress import RunProgress, summary_table
from conformance.report import write_report
from conformance.results import ResultsFile, environment, merge, read_results, write_results
from conformance.runner import variants_for
from conformance.suite import run_cases

DEFAULT_OUT = Path("reports/latest")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    console = Console(highlight=False)
    if args.command == "report":
        return _report(args, console)
    if args.command == "setup":
        return _setup(console)
    if args.list_backends:
        console.print(_backend_table(all_backends()))
        return 0
    try:
        backends = by_name(args.backend) if args.backend else _available()
    except KeyError as exc:
        parser.error(str(exc.args[0]))
    return _run(args, backends, console)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="topk-conformance", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run cases on backends and write results.json and report.html")
    run.add_argument("--cases", type=Path, action="append", metavar="PATH",
                     help="case file or folder (repeatable; default: cases/)")
    run.add_argument("--backend", action="append", metavar="NAME",
                     help="backend to run (repeatable; default: every one available here)")
    run.add_argument("--case", action="append", metavar="ID", help="only this case id (repeatable)")
    run.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="DIR",
                     help=f"where results.json and report.html go (default: {DEFAULT_OUT})")
    run.add_argument("--list-backends", action="store_true",
                     help="list every backend, whether it is available here, and why not")
    run.add_argument("--in-process", action="store_true",
                     help="run backends in this process (for debugging; a crash ends the run)")
    run.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                     help="time one graph may take before its worker is killed (default: 60)")
    setup = commands.add_parser("setup", help="install what a backend needs here (idempotent)")
    setup.add_argument("component", choices=["directml"],
                       help="directml: Wine, the onnxruntime-directml DLLs and the bridge, "
                       "for ort-dml-wine and directml-wine")
    report = commands.add_parser("report", help="merge results files into one results.json and report.html")
    report.add_argument("results", type=Path, nargs="+", metavar="RESULTS_JSON")
    report.add_argument("--out", type=Path, default=Path("reports/merged"), metavar="DIR")
    return parser


def _available() -> list[Backend]:
    return [b for b in all_backends() if b.availability().available]


def _backend_info(backends: Sequence[Backend]) -> dict[str, dict[str, str | bool]]:
    info: dict[str, dict[str, str | bool]] = {}
    for backend in backends:
        status = backend.availability()
        entry: dict[str, str | bool] = {"available": status.available, "reason": status.reason}
        if status.available:
            entry.update(backend.describe())
        info[backend.name] = entry
    return info


def _backend_table(backends: Sequence[Backend]) -> Table:
    table = Table(title="Backends")
    for column in ("backend", "available", "why not"):
        table.add_column(column)
    for backend in backends:
        status = backend.availability()
        table.add_row(backend.name, "yes" if status.available else "no", status.reason)
    return table


def _run(args: argparse.Namespace, backends: list[Backend], console: Console) -> int:
    loaded = load_cases(args.cases or [Path("cases")])
    errors = [str(error) for error in loaded.errors]
    for line in errors:
        print(f"case error: {line}", file=sys.stderr)
    cases = loaded.cases
    if args.case:
        wanted = set(args.case)
        cases = [case for case in cases if case.id in wanted]
        missing = wanted - {case.id for case in cases}
        if missing:
            print(f"no such case: {', '.join(sorted(missing))}", file=sys.stderr)
    info = _backend_info(backends)
    console.print(f"{len(cases)} cases on {', '.join(b.name for b in backends) or 'no backend'}")
    total = sum(len(variants_for(b)) for b in backends) * len(cases)
    with RunProgress(total, console) as progress:
        results = run_cases(cases, backends, progress.add, isolate=not args.in_process, timeout=args.timeout)
    console.print(summary_table(results))
    data = ResultsFile(environment(), info, errors, results)
    write_results(args.out / "results.json", data)
    write_report(args.out / "report.html", data)
    console.print(f"wrote {args.out / 'results.json'} and {args.out / 'report.html'}")
    if errors:
        console.print(f"[bold red]{len(errors)} case file error(s)[/]: listed above and in the report")
    return 0


def _setup(console: Console) -> int:
    from backends.wine.environment import default_setup
    from backends.wine.provision import SetupError, provision

    setup = default_setup()
    try:
        provision(setup, say=console.print)
    except SetupError as exc:
        console.print(f"[bold red]setup directml stopped[/]: {exc}")
        return 1
    # The backends prove the bridge on known inputs before they call themselves available.
    wine_backends = by_name(["ort-dml-wine", "directml-wine"])
    console.print(_backend_table(wine_backends))
    return 0 if all(b.availability().available for b in wine_backends) else 1


def _report(args: argparse.Namespace, console: Console) -> int:
    merged = merge([read_results(path) for path in args.results])
    write_results(args.out / "results.json", merged)
    write_report(args.out / "report.html", merged)
    console.print(summary_table(merged.results))
    console.print(f"merged {len(args.results)} results files into {args.out / 'report.html'}")
    return 0
