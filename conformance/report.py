"""The HTML report: backends as columns, verdict counts, every discrepancy listed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jinja2

from conformance.results import VERDICTS, ResultsFile
from conformance.summary import pass_rate, verdict_counts

# Worst first: the colour of a cell is its worst verdict.
_SEVERITY = ("crash", "fail", "error", "divergent", "pass", "skip")


def render_report(data: ResultsFile) -> str:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("conformance", "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
    )
    results = data.results
    counts = verdict_counts(results)
    backends = list(dict.fromkeys([*data.backends, *counts]))
    cases = list(dict.fromkeys(r.case for r in results))
    matrix: dict[tuple[str, str], dict[str, Any]] = {}
    for (case, backend), verdicts in _cell_counts(results).items():
        ordered = [(v, verdicts[v]) for v in VERDICTS if verdicts.get(v)]
        worst = next(v for v in _SEVERITY if verdicts.get(v))
        matrix[(case, backend)] = {"counts": ordered, "worst": worst}
    rates = {}
    for name in backends:
        rate = pass_rate(counts[name]) if name in counts else None
        rates[name] = "-" if rate is None else f"{rate:.1%}"
    return environment.get_template("report.html").render(
        results=results, cases=cases, backends=backends, backend_info=data.backends,
        counts=counts, rates=rates, verdicts=VERDICTS, matrix=matrix,
        discrepancies=[r for r in results if r.verdict not in ("pass", "skip")],
        case_errors=data.case_errors, environment=json.dumps(data.environment, indent=1),
    )


def _cell_counts(results: list[Any]) -> dict[tuple[str, str], dict[str, int]]:
    cells: dict[tuple[str, str], dict[str, int]] = {}
    for r in results:
        cell = cells.setdefault((r.case, r.backend), {})
        cell[r.verdict] = cell.get(r.verdict, 0) + 1
    return cells


def write_report(path: Path, data: ResultsFile) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_report(data), encoding="utf-8")
