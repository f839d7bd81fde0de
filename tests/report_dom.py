"""The report as a reader's browser has it: the page's script draws the discrepancy groups and
the per-case matrix from the report's data only when they are opened, so tests that look at them
open the page in headless Chromium (Playwright), open everything, and read the DOM."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from conformance.backends.web.browser_host import shared_playwright

# Opens the matrix and every group (hidden ones too: a test looks at the rows a filter hid) and
# resolves once each is drawn (a <details> draws on its toggle event, which comes after).
OPEN_EVERYTHING = """() => new Promise((resolve) => {
    const box = document.getElementById('matrix-box');
    const all = [box, ...document.querySelectorAll('section.group > details')];
    all.forEach(d => { d.open = true; });
    const done = () => document.querySelectorAll('.group-body').length === all.length - 1 &&
        document.querySelectorAll('table.matrix').length > 0;
    const wait = () => done() ? resolve(true) : setTimeout(wait, 20);
    wait();
})"""


def _missing(message: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def chromium_path() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if found is None:
        _missing("headless Chromium is needed (`topk-conformance setup web` installs it, as .ci/run does)")
    return str(found)


@cache
def browser() -> Any:
    """This process's headless Chromium (closed with the process)."""
    try:
        import playwright.sync_api  # noqa: F401 - only whether it is installed
    except ImportError:
        _missing("Playwright for Python is needed (pip install -e '.[web]')")
    # The process's one Playwright: the web backends, run in this test process by other tests,
    # may have started it already, and a second sync instance refuses to start beside it.
    return shared_playwright().chromium.launch(executable_path=chromium_path(), args=["--no-sandbox", "--disable-gpu"])


@dataclass
class Seen:
    dom: str  # the document after the script ran (and, with `everything`, drew all)
    errors: list[str]  # uncaught errors and console errors of the page


def open_report(path: Path, address: str = "", everything: bool = True, width: int = 1400) -> Seen:
    page = browser().new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    try:
        page.goto(path.as_uri() + address)
        page.wait_for_function("document.body.getAttribute('data-js') === 'ready'", timeout=60_000)
        if everything:
            page.evaluate(OPEN_EVERYTHING)
        return Seen(page.content(), errors)
    finally:
        page.close()


def open_html(html: str, folder: Path, address: str = "") -> Seen:
    """`open_report` of a page given as text (written to `folder`)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "report.html"
    path.write_text(html, encoding="utf-8")
    return open_report(path, address)
