"""`topk-conformance findings`: list the finding records, check their repros here, write an
upstream issue's body, measure their history across releases, and regenerate
docs/findings.md's lists from the records.

Exit status: 0 the work is done (a repro that does not reproduce is an answer, not a failure);
1 a repro itself broke, `check` found a repro that disagrees with its record (an upstream fix,
or a record gone stale: a CI job notices), or `docs --check` found the page out of date; 2 a
record cannot be used or an id is unknown (the other records are still listed and run)."""

from __future__ import annotations

import argparse
import datetime
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from conformance.core.machine import host_tier
from conformance.core.options import positive_seconds
from conformance.core.text import printable
from conformance.findings import docs as finding_docs
from conformance.findings import history as finding_history
from conformance.findings import latest as finding_latest
from conformance.findings import lint as finding_lint
from conformance.findings.records import Finding, Loaded, default_root, load_findings
from conformance.findings.running import MARKS, OUTCOMES, REPRO_SECONDS, ReproRun, expected_here, run_repro, verdict
from conformance.findings.runtimes import distributions, releases_of
from conformance.findings.upstream import issue_body


def add_parser(commands: Any) -> None:
    findings = commands.add_parser("findings", help="the findings about runtimes: list, check, report, history, docs",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    findings.add_argument("--records", type=Path, metavar="DIR",
                          help="the folder of finding records (default: findings/ of the checkout, else the "
                               "copy shipped with the package)")
    verbs = findings.add_subparsers(dest="verb", required=True)
    listing = verbs.add_parser("list", help="id, runtime, one line and upstream status of every finding")
    listing.add_argument("--runtime", metavar="NAME", help="only this runtime's findings")
    check = verbs.add_parser("check", help="run the repros on what is installed here")
    check.add_argument("ids", nargs="*", metavar="ID", help="only these findings (default: all)")
    check.add_argument("--runtime", metavar="NAME", help="only this runtime's findings")
    check.add_argument("--jobs", "-j", type=int, default=2, metavar="N", help="repros run at once (default: 2)")
    check.add_argument("--verbose", "-v", action="store_true", help="print what each repro printed")
    check.add_argument("--latest", action="store_true",
                       help="run each repro on the newest release of its runtime on the package index (installed "
                            "in the history cache) instead, and say which findings it fixes or changes (exit 1 "
                            "if any)")
    check.add_argument("--timeout", type=positive_seconds, default=REPRO_SECONDS, metavar="SECONDS",
                       help=f"a repro still running then is killed, with every process it started (default: "
                            f"{REPRO_SECONDS:g})")
    report = verbs.add_parser("report", help="the body of an upstream issue for one finding")
    report.add_argument("id", metavar="ID")
    report.add_argument("--no-run", dest="run", action="store_false",
                        help="do not run the repro for the issue's output section")
    report.add_argument("--from-output", type=Path, metavar="FILE",
                        help="the repro's output from a machine where it reproduced (its last line REPRODUCED), "
                             "for the issue's output section, instead of running it here")
    report.add_argument("-o", "--output", type=Path, metavar="FILE", help="write it here instead of stdout")
    report.add_argument("--timeout", type=positive_seconds, default=REPRO_SECONDS, metavar="SECONDS",
                        help=f"the repro's limit (default: {REPRO_SECONDS:g})")
    history = verbs.add_parser("history", help="run the repros against released versions of a runtime")
    history.add_argument("ids", nargs="*", metavar="ID", help="these findings (each on its runtime's releases)")
    history.add_argument("--runtime", metavar="NAME", help="every finding whose repro varies this distribution "
                         f"({', '.join(distributions())})")
    history.add_argument("--versions", metavar="A,B,...", help="the releases (default: a few a year from 2024)")
    history.add_argument("--record", action="store_true", help="merge the outcomes into findings/history.yaml")
    history.add_argument("--jobs", "-j", type=int, default=2, metavar="N", help="repros run at once (default: 2)")
    lint = verbs.add_parser("lint", help="what keeps a report from standing on its own (the suite's words, a long "
                                         "repro, an import its needs lack), without running anything")
    lint.add_argument("ids", nargs="*", metavar="ID", help="only these findings (default: all)")
    lint.add_argument("--runtime", metavar="NAME", help="only this runtime's findings")
    docs = verbs.add_parser("docs", help="regenerate docs/findings.md's lists and release table from the records")
    docs.add_argument("--check", action="store_true", help="only say whether the page is up to date (exit 1 if not)")
    docs.add_argument("--page", type=Path, default=Path("docs/findings.md"), metavar="FILE")


def main(args: argparse.Namespace, console: Console) -> int:
    if not console.is_terminal:  # piped or in CI: tables keep their columns instead of folding at 80
        console = Console(width=220, highlight=False)
    root = args.records or default_root()
    loaded = load_findings(root)
    for error in loaded.errors:
        _error(f"error: {error}")
    if not loaded.findings and not loaded.errors:
        _error(f"error: no finding records under {root}")
        return 2
    verb = {"list": _list, "check": _check, "report": _report, "history": _history, "docs": _docs,
            "lint": _lint}[args.verb]
    status = verb(args, loaded, root, console)
    return max(status, 2 if loaded.errors else 0)


def _error(line: str) -> None:
    """An error: on stderr (a report redirected to a file keeps only the report), one line
    whatever the terminal's width, as it is (no markup)."""
    print(printable(line), file=sys.stderr)


def _chosen(args: argparse.Namespace, loaded: Loaded) -> list[Finding] | str:
    ids = getattr(args, "ids", None) or []
    unknown = [name for name in ids if name not in loaded.findings]
    if unknown:
        return f"no finding {', '.join(unknown)} (known: {', '.join(loaded.findings)})"
    chosen = [loaded.findings[name] for name in ids] if ids else list(loaded.findings.values())
    if getattr(args, "runtime", None):
        chosen = [f for f in chosen if args.runtime in (f.runtime, f.repro.history)]
        if not chosen:
            return f"no finding of runtime {args.runtime!r}"
    return chosen


def _list(args: argparse.Namespace, loaded: Loaded, root: Path, console: Console) -> int:
    chosen = _chosen(args, loaded)
    if isinstance(chosen, str):
        _error(f"error: {chosen}")
        return 2
    if not console.is_terminal:  # piped: one line per finding, tab-separated, nothing cut
        for finding in chosen:
            print("\t".join((finding.id, finding.runtime, finding.title, finding.upstream.summary)))
        print(f"{len(chosen)} findings ({root})", file=sys.stderr)
        return 0
    table = Table(title=f"{len(chosen)} findings ({root})")
    for column in ("id", "runtime", "finding", "upstream"):
        table.add_column(column, overflow="fold")
    for finding in chosen:
        table.add_row(Text(finding.id), Text(finding.runtime), Text(finding.title), Text(finding.upstream.summary))
    console.print(table)
    return 0


def _check(args: argparse.Namespace, loaded: Loaded, root: Path, console: Console) -> int:
    chosen = _chosen(args, loaded)
    if isinstance(chosen, str):
        _error(f"error: {chosen}")
        return 2
    tier = host_tier()
    if args.latest:
        return _check_latest(chosen, tier, args.jobs, console)
    console.print(Text(f"running {len(chosen)} repros with {sys.executable} "
                       f"(this machine's tier: {tier or 'unknown'})"))
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        runs = list(pool.map(lambda finding: run_repro(finding, timeout=args.timeout), chosen))
    table = Table(title="findings check")
    for column in ("id", "runtime", "here", "record says", "s", "why"):
        table.add_column(column, overflow="fold")
    broken = disagree = 0
    for finding, run in zip(chosen, runs, strict=True):
        wanted = expected_here(finding, tier)
        if run.outcome in ("reproduced", "not reproduced") and run.outcome != wanted:
            disagree += 1
            why = f"DISAGREES with its record (expected {wanted})"
        else:
            why = run.reason or (finding.not_here_why if run.outcome == "not reproduced" else "")
        broken += run.outcome == "broken"
        table.add_row(Text(finding.id), Text(finding.runtime), Text(run.outcome), Text(wanted),
                      f"{run.seconds:.1f}", Text(why))
        if args.verbose:
            console.print(Text(f"--- {finding.id}\n{run.output.rstrip()}"))
    console.print(table)
    counts = {outcome: sum(run.outcome == outcome for run in runs) for outcome in OUTCOMES}
    console.print(Text(", ".join(f"{n} {outcome}" for outcome, n in counts.items())
                       + (f"; {disagree} disagree with their records" if disagree else "")))
    return 1 if broken or disagree else 0


def _check_latest(chosen: list[Finding], tier: str, jobs: int, console: Console) -> int:
    changes = finding_latest.on_newest(chosen, tier, jobs, lambda line: console.print(Text(line)))
    table = Table(title="findings check --latest: the newest releases against the records")
    for column in ("id", "runtime", "newest", "record says", "there", "says"):
        table.add_column(column, overflow="fold")
    for change in changes:
        table.add_row(Text(change.finding), Text(change.distribution), Text(change.version), Text(change.pinned),
                      Text(change.newest), Text(change.says))
    console.print(table)
    changed = [change for change in changes if change.changed]
    console.print(Text(f"{len(changes) - len(changed)} as recorded, {len(changed)} changed on the newest releases"
                       + (f": {', '.join(change.finding for change in changed)}" if changed else "")))
    return 1 if changed else 0


def _report(args: argparse.Namespace, loaded: Loaded, root: Path, console: Console) -> int:
    finding = loaded.findings.get(args.id)
    if finding is None:
        _error(f"error: no finding {args.id} (known: {', '.join(loaded.findings)})")
        return 2
    if args.from_output is not None:
        try:
            output = args.from_output.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            _error(f"error: --from-output {args.from_output}: {exc.strerror or exc}")
            return 2
        run: ReproRun | None = ReproRun(finding.id, *verdict(0, output), output, 0.0, str(args.from_output))
    else:
        run = run_repro(finding, timeout=args.timeout) if args.run else None
    fixed_in = _fixed_in(finding, root)
    if run is not None and run.outcome != "reproduced":
        # A report is what a maintainer acts on: never from a run that does not show the bug.
        said = run.reason or finding.not_here_why or "its last line is NOT REPRODUCED"
        _error(f"{finding.id} {run.outcome} {'in ' + str(args.from_output) if args.from_output else 'here'} "
               f"({said}): no report; run its repro where it reproduces and pass the output with --from-output FILE")
        return 1
    issue = issue_body(finding, run, fixed_in)
    where = (f"a comment on an existing issue of https://github.com/{issue.tracker}, if any" if issue.fixed_in
             else f"https://github.com/{issue.tracker}/issues/new")
    text = f"<!-- for {where} -->\n# {issue.title}\n\n{issue.body}"
    if args.output:
        args.output.write_text(text, encoding="utf-8")
        for name in issue.attachments:  # beside the body, to attach to the issue
            shutil.copyfile(finding.folder / name, args.output.parent / name)
        attached = f"; attach {', '.join(issue.attachments)} (written beside it)" if issue.attachments else ""
        console.print(Text(f"wrote {args.output} (for {issue.tracker}){attached}"))
    else:
        sys.stdout.write(text)
        if issue.attachments:
            _error(f"attach {', '.join(str(finding.folder / name) for name in issue.attachments)} to the issue")
    return 0


def _fixed_in(finding: Finding, root: Path) -> str:
    """The release from which on `findings history` measured it gone (every later release
    measured gives the documents' answer). It may still show here, on an older release a backend
    pins (LRT1: onnx2tf pins LiteRT 2.1.0, and 2.1.3 fixed it): upstream has nothing left to fix."""
    if not finding.repro.history:
        return ""
    measured = finding_history.measured_span(finding, finding_history.read_history(root))
    return measured[0].fixed if measured else ""


def _lint(args: argparse.Namespace, loaded: Loaded, root: Path, console: Console) -> int:
    chosen = _chosen(args, loaded)
    if isinstance(chosen, str):
        _error(f"error: {chosen}")
        return 2
    vocabulary = finding_lint.vocabulary_here(root)
    troubled = 0
    for finding in chosen:
        found = finding_lint.problems(finding, loaded.findings, vocabulary)
        troubled += bool(found)
        for problem in found:
            print(printable(f"{finding.id}: {problem}"))
    print(f"{troubled} of {len(chosen)} findings have problems", file=sys.stderr)
    return 1 if troubled else 0


def _history(args: argparse.Namespace, loaded: Loaded, root: Path, console: Console) -> int:
    chosen = _chosen(args, loaded)
    if isinstance(chosen, str):
        _error(f"error: {chosen}")
        return 2
    if not args.ids and not args.runtime:
        _error("error: name findings, or a runtime with --runtime")
        return 2
    by_distribution = finding_history.by_distribution(chosen, lambda line: console.print(Text(line)))
    status = 0
    for distribution, findings in by_distribution.items():
        known = releases_of(distribution)
        if known and known.elsewhere:
            console.print(Text(f"{distribution}: {known.elsewhere}; not measured"))
            continue
        releases = args.versions.split(",") if args.versions else known.measured if known else ()
        if not releases:
            console.print(Text(f"{distribution}: no default releases; name them with --versions"))
            status = 2
            continue
        measured = finding_history.measure(distribution, releases, findings, args.jobs,
                                           lambda line: console.print(Text(line)))
        console.print(_history_table(measured))
        if args.record:
            path = finding_history.record_history(root, measured, datetime.date.today().isoformat())
            console.print(Text(f"recorded in {path}"))
        if any(outcome == "broken" for outcomes in measured.outcomes.values() for outcome in outcomes.values()):
            status = max(status, 1)
    return status




def _history_table(measured: finding_history.History) -> Table:
    table = Table(title=f"{measured.distribution}: yes = the release shows the finding")
    table.add_column("finding")
    ran = [version for version in measured.releases if version not in measured.refused]
    for version in ran:
        table.add_column(version)
    table.add_column("first / fixed", overflow="fold")
    for finding_id, outcomes in measured.outcomes.items():
        span = finding_history.span(outcomes, ran)
        table.add_row(finding_id, *(MARKS.get(outcomes.get(v, ""), "") for v in ran),
                      Text(finding_history.describe(span, ran)))
    return table


def _docs(args: argparse.Namespace, loaded: Loaded, root: Path, console: Console) -> int:
    page: Path = args.page
    if not page.is_file():
        _error(f"error: {page}: no such page (run this from the checkout)")
        return 2
    current = page.read_text(encoding="utf-8")
    try:
        wanted = finding_docs.render(current, loaded.findings, finding_history.read_history(root))
    except finding_docs.PageError as exc:
        _error(f"error: {page}: {exc}")
        return 2
    if args.check:
        if wanted != current:
            console.print(Text(f"{page} is out of date: run `topk-conformance findings docs`"))
            return 1
        console.print(Text(f"{page} matches the {len(loaded.findings)} records"))
        return 0
    if wanted != current:
        page.write_text(wanted, encoding="utf-8")
    console.print(Text(f"{page}: {'rewritten' if wanted != current else 'already up to date'}"))
    return 0
