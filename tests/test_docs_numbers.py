"""The numbers README.md quotes of what a run does today (how many cases `run` takes from
cases/, how many backends it asks) are what the suite has: a case or a backend added without
the README following fails here, not in a newcomer's first run (issue 39). Measured times and
result counts carry their date in the text instead: they are a record, not a promise."""

from __future__ import annotations

import re

from harness import CASES, REPO

from conformance.backends.registry import RECORDS
from conformance.cases.loader import load_cases

README = (REPO / "README.md").read_text(encoding="utf-8")
FIRST_RUN = re.search(r"It runs every case in `cases/` \(([\d,]+) of them\) on every backend that can run here of the "
                      r"(\d+)\s+it asks", README)


def test_the_readme_says_how_many_cases_a_run_takes() -> None:
    assert FIRST_RUN is not None, "README.md's first-run paragraph changed: update this test with it"
    loaded = load_cases([CASES])
    assert not loaded.errors, [str(e) for e in loaded.errors]
    assert int(FIRST_RUN.group(1).replace(",", "")) == len(loaded.cases)


def test_the_readme_says_how_many_backends_a_run_asks() -> None:
    assert FIRST_RUN is not None, "README.md's first-run paragraph changed: update this test with it"
    assert int(FIRST_RUN.group(2)) == sum(1 for record in RECORDS if record.by_default)


def test_the_guides_quote_no_count_that_drifts() -> None:
    """The counts pytest prints (passed, failed, xfailed) change with every case and baseline:
    the guides give the line's form, never its numbers."""
    for path in [REPO / "README.md", *(REPO / "docs" / "vendors").glob("*.md")]:
        text = path.read_text(encoding="utf-8")
        # Two digits or more: "Exit status: 0 held, 1 failed" is a code, not a count.
        quoted = re.findall(r"\b\d[\d,]+\s+(?:failed|passed|skipped|xfailed|expected failures)\b", text)
        assert not quoted, f"{path.relative_to(REPO)}: {quoted}"
