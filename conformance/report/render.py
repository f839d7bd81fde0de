"""The HTML report: one self-contained file (inline CSS, JS and data; nothing fetched), so it
opens from a mail attachment or a CI run's artefacts. The small sections are Jinja2 templates
with autoescaping on; the results, the discrepancy groups and the per-case matrix travel once
as JSON (payload.py) that the page's script renders as text (textContent, never markup), a group
or the matrix only when opened. What it shows is computed in conformance/report/data.py."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import jinja2
import markupsafe

from conformance.core.atomic_files import atomic_write_text
from conformance.report import data as report_data
from conformance.report import findings as report_findings
from conformance.report import models as model_sections
from conformance.report import payload
from conformance.report.data import CaseInfo
from conformance.results.records import ResultsFile


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("conformance.report", "templates"),
        autoescape=jinja2.select_autoescape(["html"], default_for_string=True, default=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=False,
    )


def render_report(data: ResultsFile, cases: dict[str, CaseInfo] | None = None,
                  findings: report_findings.Records | None = None) -> str:
    """The report as HTML text. `cases` (by id) gives each result's case; by default they are
    loaded from the case files the results name, or from cases/ (missing ones are left out).
    `findings`: the finding records and their history, where the caller has read them."""
    context = report_data.build(data, cases, findings)
    page_data = payload.build(list(data.results), context["infos"], context["backends"], data.backends,
                              context["groups"], context["machines_of"], context["case_tags"])
    return _environment().get_template("report.html").render(page_data=markupsafe.Markup(payload.to_json(page_data)),
                                                             models=model_sections.sections(data.models),
                                                             **context)


def write_report(path: Path, data: ResultsFile, cases: dict[str, CaseInfo] | None = None,
                 findings: report_findings.Records | None = None) -> None:
    atomic_write_text(path, render_report(data, cases, findings))
