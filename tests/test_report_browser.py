"""The HTML report looked at in a real headless Chromium (through Playwright), as a person
sees it: a jump to #discrepancies lands on the section, below the sticky filter bar; the page
never scrolls sideways at 1400 px; under a filter no table stands with headers and no row;
ArgMax and ArgMin rows name their DirectML feature levels; a fuzz case's long description
keeps its row short and unfolds on focus.

(Chromium's own `--screenshot` switch draws a blank picture of any page scrolled away from its
top, a fragment jump included: these tests look through Playwright, which draws what is shown.)

One small report is built once for the module: a few TopK and ArgMax/ArgMin cases (two of
them fuzz cases with long descriptions) run in this process on onnx-reference, ort-cpu and
openvino-cpu, and on a backend that aborts its worker process on one case (a real crash)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fault_backends import TRIGGER_CASE, AbortingBackend
from harness import REPO
from report_dom import OPEN_EVERYTHING

from conformance.backends.registry import by_name
from conformance.backends.web.browser_host import shared_playwright
from conformance.cases.loader import load_cases
from conformance.ops.registry import operator
from conformance.report.render import write_report
from conformance.results.records import Result, ResultsFile, environment
from conformance.running.suite import run_cases

BACKENDS = ("onnx-reference", "ort-cpu", "openvino-cpu")
CASE_FILES = (
    "cases/documented/directml-top-k1.yaml", "cases/edge/k_range.yaml",
    "cases/argmax/documented/directml-argmax.yaml", "cases/argmax/documented/directml-argmin.yaml",
    "cases/argmax/fuzz/fuzz-ort-cpu-onnx-opset1-nan-order-float32-7bb16e18.yaml",
    "cases/fuzz/fuzz-ort-cpu-onnx-opset11-order-float32-dfff76ab.yaml",
)
FUZZ_CASES = ("fuzz-ort-cpu-onnx-opset1-nan-order-float32-7bb16e18", "fuzz-ort-cpu-onnx-opset11-order-float32-dfff76ab")
WIDTH, HEIGHT = 1400, 900


def _playwright() -> Any:
    """Playwright's sync API, or a skip (a failure under CI, where it must be present)."""
    try:
        import playwright.sync_api  # noqa: F401 - only whether it is installed
    except ImportError:
        _missing("Playwright for Python is needed (pip install -e '.[web]')")
    # The process's one Playwright: the web backends, run in this test process by other tests,
    # may have started it already, and a second sync instance refuses to start beside it.
    return shared_playwright()


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if found is None:
        _missing("headless Chromium is needed (`topk-conformance setup web` installs it, as .ci/run does)")
    return str(found)


def _missing(message: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    loaded = load_cases([REPO / name for name in CASE_FILES])
    assert not loaded.errors, [str(e) for e in loaded.errors]
    backends = by_name(list(BACKENDS))
    results = run_cases(loaded.cases, backends, isolate=False)
    # The aborting backend needs its own worker process: its death is the crash.
    triggered = [case for case in loaded.cases if case.id == TRIGGER_CASE]
    crashing = AbortingBackend()
    results += run_cases(triggered, [crashing], isolate=True, timeout=60)
    assert any(r.verdict == "crash" for r in results)
    info = {b.name: {"available": True, "reason": "", **b.describe()} for b in [*backends, crashing]}
    path = tmp_path_factory.mktemp("browser") / "report.html"
    write_report(path, ResultsFile(environment(), info, [], results))
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = _chromium()
    playwright = _playwright()
    launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"])
    try:
        yield launched
    finally:
        launched.close()


def open_page(browser: Any, report: Path, address: str = "", width: int = WIDTH, everything: bool = False) -> Any:
    """The report in a page; with `everything`, its matrix and every group opened (drawn)."""
    page = browser.new_page(viewport={"width": width, "height": HEIGHT})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(report.as_uri() + address)
    page.wait_for_function("document.body.getAttribute('data-js') === 'ready'", timeout=30_000)
    if everything:
        page.evaluate(OPEN_EVERYTHING)
    assert not errors, errors
    return page


@pytest.mark.parametrize("width", [WIDTH, 800])
def test_a_jump_to_discrepancies_shows_the_section_below_the_filter_bar(browser: Any, report: Path,
                                                                          width: int) -> None:
    page = open_page(browser, report, "#discrepancies", width)
    try:
        seen = page.evaluate("""() => {
            const bar = document.getElementById('filters').getBoundingClientRect();
            const heading = document.getElementById('discrepancies').getBoundingClientRect();
            // What is drawn under points of the viewport below the bar: text-bearing elements.
            const drawn = [];
            for (let y = bar.bottom + 10; y < window.innerHeight; y += 60) {
                for (let x = 40; x < window.innerWidth; x += 200) {
                    const el = document.elementFromPoint(x, y);
                    if (el && el !== document.body && el !== document.documentElement) { drawn.push(el.tagName); }
                }
            }
            return {scrolled: window.scrollY, barBottom: bar.bottom, top: heading.top, bottom: heading.bottom,
                    drawn: drawn.length, text: document.elementFromPoint(60, heading.top + heading.height / 2)?.id};
        }""")
    finally:
        page.close()
    assert seen["scrolled"] > 0, "the section starts below the first screen: the jump scrolled"
    # The heading is whole, below the sticky bar and inside the window, not hidden under the bar.
    assert seen["barBottom"] <= seen["top"] and seen["bottom"] <= HEIGHT, seen
    assert seen["text"] == "discrepancies", seen
    assert seen["drawn"] >= 10, seen


@pytest.mark.parametrize("width", [WIDTH, 900])
def test_the_page_never_scrolls_sideways(browser: Any, report: Path, width: int) -> None:
    """At 1400 px everything fits, the matrices' columns included; in a narrower window a
    table too wide scrolls inside its own box, never the page."""
    page = open_page(browser, report, width=width, everything=True)
    try:
        widths = page.evaluate("""() => ({page: document.documentElement.scrollWidth,
            window: document.documentElement.clientWidth,
            matrices: Array.from(document.querySelectorAll('table.matrix')).map(t => t.getBoundingClientRect().right),
            boxes: Array.from(document.querySelectorAll('div.wide'))
                .filter(w => w.scrollWidth > w.clientWidth).length})""")
    finally:
        page.close()
    assert widths["page"] <= widths["window"], widths
    # The matrices' cells wrap between verdicts, so that they fit without a scroll of their own.
    assert widths["matrices"] and max(widths["matrices"]) <= widths["window"], widths
    if width == WIDTH:
        assert widths["boxes"] == 0, widths


def test_no_table_stands_without_rows_under_a_crash_filter(browser: Any, report: Path) -> None:
    page = open_page(browser, report, "#verdict=crash", everything=True)
    try:
        empty = page.evaluate("""() => Array.from(document.querySelectorAll('table'))
            .filter(t => t.getClientRects().length > 0)
            .filter(t => !Array.from(t.querySelectorAll('tr')).some(row =>
                row.parentElement.tagName !== 'THEAD' && row.getClientRects().length > 0 &&
                Array.from(row.children).some(cell => cell.tagName === 'TD')))
            .map(t => t.className + ' ' + (t.getAttribute('data-op') || '') + ' ' +
                      t.rows[0].textContent.slice(0, 80))""")
        crashes = page.locator("section.group:not([hidden])").count()
        saying = page.locator("table.matrix tr.none-shown:not([hidden])").all_inner_texts()
    finally:
        page.close()
    assert not empty, empty
    assert crashes == 1, "the crash's own group stays"
    # ArgMax and ArgMin had no crash: their matrices say so in a row.
    assert saying == ["No argmax case under this filter.", "No argmin case under this filter."], saying


def test_argmax_and_argmin_rows_name_their_directml_levels(browser: Any, report: Path) -> None:
    page = open_page(browser, report, everything=True)
    try:
        levels = page.evaluate("""() => Array.from(document.querySelectorAll('tr.mrow')).map(row =>
            [row.getAttribute('data-op'), row.querySelector('td.case b').textContent,
             row.querySelector('td.levels').textContent.trim()])""")
    finally:
        page.close()
    ops = {op for op, _, _ in levels}
    assert {"topk", "argmax", "argmin"} <= ops
    assert all(text for _, _, text in levels), [row for row in levels if not row[2]]
    shown = {case: text for op, case, text in levels if op != "topk"}
    assert shown["dml-argmax-example-1"] == "ARGMAX 3.0+, REDUCE 3.0+", shown  # float32 [3, 3]
    assert shown["dml-argmin-example-1"] == "ARGMIN 3.0+, REDUCE 3.0+", shown


@pytest.mark.parametrize(("op", "dtype", "shape", "index_type", "levels"), [
    ("argmax", "float32", [1, 1, 3, 4], None, "ARGMAX 3.0+, REDUCE 1.0+"),  # REDUCE has 4-D tables from 1.0
    ("argmin", "int8", [1, 1, 3, 4], None, "ARGMIN 3.0+, REDUCE 2.1+"),
    ("argmax", "int8", [3], None, "ARGMAX 3.0+, REDUCE 3.0+"),
    ("argmax", "int64", [3], None, "ARGMAX 4.1+, REDUCE 4.1+"),
    ("argmax", "float32", [1, 1, 3, 4], "int32", "ARGMAX 3.0+, REDUCE 3.0+"),  # REDUCE before 3.0: UINT32 only
    ("argmax", "float64", [3], None, "none"),
])
def test_argmax_directml_levels_follow_the_documents_tables(op: str, dtype: str, shape: list[int],
                                                             index_type: str | None, levels: str,
                                                             tmp_path: Path) -> None:
    data = np.arange(int(np.prod(shape))).reshape(shape).tolist()
    text = (f"cases:\n  - id: levels\n    source: test\n    op: {op}\n    input:\n      dtype: {dtype}\n"
            f"      shape: {shape}\n      data: {data}\n    axis: 0\n"
            + (f"    index_type: {index_type}\n" if index_type else ""))
    (tmp_path / "case.yaml").write_text(text, encoding="utf-8")
    loaded = load_cases([tmp_path / "case.yaml"])
    assert not loaded.errors, [str(e) for e in loaded.errors]
    (case,) = loaded.cases
    assert operator(op).report.levels(case) == levels


def test_a_fuzz_cases_long_description_keeps_its_row_short(browser: Any, report: Path) -> None:
    page = open_page(browser, report, everything=True)
    try:
        rows = page.evaluate("""(ids) => Array.from(document.querySelectorAll('tr.mrow')).map(row => {
            const clamp = row.querySelector('.clamp');
            return {case: row.querySelector('td.case b').textContent, height: row.getBoundingClientRect().height,
                    clamped: clamp ? clamp.scrollHeight > clamp.clientHeight + 1 : null,
                    title: clamp ? clamp.getAttribute('title') : null,
                    fuzz: ids.includes(row.querySelector('td.case b').textContent)};
        })""", list(FUZZ_CASES))
        fuzz = [row for row in rows if row["fuzz"]]
        assert len(fuzz) == len(FUZZ_CASES), rows
        others = [row["height"] for row in rows if not row["fuzz"]]
        for row in fuzz:
            # Its description is cut to two lines (the whole of it in the title), so the row
            # is about as tall as the others (its id may take a line more); unfolded, it is not.
            assert row["clamped"] and row["title"] and len(row["title"]) > 120, row
            assert row["height"] <= 1.2 * max(others), (row, max(others))
        # Focusing the description (a click) unfolds it.
        clamp = page.locator("tr.mrow .clamp").first
        before = clamp.bounding_box()["height"]
        clamp.click()
        assert clamp.bounding_box()["height"] > before * 1.4
    finally:
        page.close()


def test_the_text_filter_finds_a_group_by_the_finding_it_names(browser: Any, report: Path) -> None:
    """Typing a finding's id shows the groups that name it (AM-ORT6: ort-cpu's ArgMax NaN order on
    fuzz-ort-cpu-onnx-opset1-nan-order-float32-7bb16e18; ORT3, named here before, is fixed in
    onnxruntime 1.32.0), and only groups that hold it."""
    page = open_page(browser, report, "#q=AM-ORT6")
    try:
        shown = page.eval_on_selector_all(
            "section.group:not([hidden])", "groups => groups.map(g => g.querySelector('.group-findings')"
            " ? g.querySelector('.group-findings').textContent : '')")
        assert shown and all("AM-ORT6" in text for text in shown), shown
        # The counts at the top are those of the same results: the groups' members.
        members = int(page.inner_text("#filter-status").split(" of ")[0])
        assert page.inner_text("#summary-line").startswith(f"Under the filters: {members} of "), members
    finally:
        page.close()


# --- a report that scales: groups apart by kind, counts under filters, one click away -------

# Two errors of one backend: one raised, one where nothing raised but the node ran on another
# provider (the runner's "placement:" message, running/runner.py).
KINDS = [
    Result("k-raised", "ort-web-webgpu", "onnx-opset11", "constant", "error", message="RuntimeError: no kernel"),
    Result("k-placed", "ort-web-webgpu", "onnx-opset11", "constant", "error",
           message="placement: TopK fell back to CPUExecutionProvider (the wasm kernels)"),
    Result("k-placed-2", "ort-web-webgpu", "onnx-opset11", "constant", "error",
           message="placement: TopK fell back to CPUExecutionProvider (the wasm kernels)"),
    Result("k-raised", "ort-cpu", "onnx-opset11", "constant", "pass"),
    Result("k-placed", "ort-cpu", "onnx-opset11", "constant", "fail", rules=["order"], message="order broken"),
    Result("k-placed-2", "ort-cpu", "onnx-opset11", "constant", "pass"),
]


@pytest.fixture(scope="module")
def kinds_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("kinds") / "report.html"
    write_report(path, ResultsFile(environment(), {}, [], KINDS))
    return path


def test_placement_errors_are_groups_of_their_own(browser: Any, kinds_report: Path) -> None:
    """A reader tells an error that raised from a node that ran elsewhere without opening a group."""
    page = open_page(browser, kinds_report)
    try:
        raised = page.locator("#groups section.group").all_inner_texts()
        placed = page.locator("#placement-groups section.group").all_inner_texts()
        counts = page.locator("#overview-counts").inner_text()
    finally:
        page.close()
    assert len(placed) == 1 and "placement" in placed[0] and "2 of 2 results shown" in placed[0], placed
    assert not any("placement" in text for text in raised), raised
    assert any("RuntimeError" in text for text in raised), raised
    assert "error 3 (2 placement)" in counts, counts


def test_the_counts_follow_the_filters(browser: Any, kinds_report: Path) -> None:
    page = open_page(browser, kinds_report, "#backend=ort-cpu")
    try:
        summary = page.locator("#summary-line").inner_text()
        counts = page.locator("#overview-counts").inner_text()
        bars = page.eval_on_selector_all("#verdict-chart rect title", "ts => ts.map(t => t.textContent)")
        page.select_option("#filter-backend", "")
        unfiltered = page.locator("#summary-line").inner_text()
    finally:
        page.close()
    assert summary.startswith("Under the filters: 3 of 6 results, 3 of 3 cases"), summary
    assert "1 of 4 discrepant results" in summary and "1 of 3 groups" in summary, summary
    assert "pass 2" in counts and "fail 1" in counts and "error 0" in counts, counts
    assert bars == ["ort-cpu: pass 2", "ort-cpu: fail 1"], bars
    assert unfiltered.startswith("6 results, 3 cases, 2 backends; 4 discrepant results"), unfiltered


def test_discrepancies_are_one_click_from_the_top_and_a_matrix_link_opens_its_group(browser: Any,
                                                                                    report: Path) -> None:
    page = open_page(browser, report)
    try:
        assert page.evaluate("window.scrollY") == 0
        page.click("nav a[href='#discrepancies']")
        heading = page.locator("#discrepancies").bounding_box()
        assert heading is not None and 0 < heading["y"] < HEIGHT, heading
        # The matrix is drawn when asked for; a cell's link opens the group that holds the result.
        assert page.locator("table.matrix").count() == 0
        page.click("nav a[href='#matrix']")
        link = page.locator("table.matrix td.cell a").first
        target = str(link.get_attribute("href"))
        link.click()
        row = page.locator(target)
        box = row.bounding_box()
        opened = row.evaluate("r => r.closest('details').open")
    finally:
        page.close()
    assert opened and box is not None and 0 < box["y"] < HEIGHT, (target, box)


@pytest.fixture(scope="module")
def model_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Issue 48: the report of `topk-conformance model` on an RPN pattern (a TopK, then a
    NonMaxSuppression inside an If) on ONNX Runtime, OpenVINO and tract, which cannot run it."""
    from model_patterns import rpn

    from conformance.models.capture import judged_nodes
    from conformance.models.document import model_entry, write_cases
    from conformance.models.known import known_fails
    from conformance.models.session import judge_model
    from conformance.models.source import filled_inputs, read_model
    from conformance.report import findings as report_findings

    folder = tmp_path_factory.mktemp("model-report")
    source = read_model(rpn(folder / "rpn.onnx"))
    feeds = filled_inputs(source, "tiles", 0, {})
    outcome = judge_model(source, feeds, judged_nodes(source.model), by_name(["ort-cpu", "openvino-cpu", "tract"]),
                          {}, 120.0, named=True)
    records, _ = report_findings.load()
    entry = model_entry(outcome, write_cases(outcome, folder), folder, {}, known_fails(outcome, records))
    write_report(folder / "report.html", ResultsFile(environment(), outcome.runs_info, [], [], models=[entry]))
    return folder / "report.html"


@pytest.mark.parametrize("width", [WIDTH, 900])
def test_a_models_section_shows_its_nodes_by_backend_and_where_they_part(browser: Any, model_report: Path,
                                                                          width: int) -> None:
    page = open_page(browser, model_report, "#models", width)
    try:
        seen = page.evaluate("""() => {
            const table = document.querySelector('section.model table.model-nodes');
            const rows = [...table.querySelectorAll('tr')].slice(1);
            const bar = document.getElementById('filters').getBoundingClientRect();
            const heading = document.getElementById('models').getBoundingClientRect();
            return {
                heads: [...table.querySelectorAll('tr th')].map(th => th.textContent),
                cells: rows.map(tr => [...tr.querySelectorAll('td')].map(td => td.textContent.trim())),
                parting: rows.map(tr => tr.classList.contains('parting-row')),
                said: document.querySelector('section.model p.parting').textContent,
                like: [...table.querySelectorAll('td a')].map(a => [a.textContent, a.getAttribute('href')]),
                finding: document.getElementById('finding-OV1') !== null,
                wide: document.documentElement.scrollWidth - window.innerWidth,
                barBottom: bar.bottom, top: heading.top,
            };
        }""")
    finally:
        page.close()
    assert seen["heads"] == ["#", "node", "ort-cpu", "openvino-cpu", "tract", "between backends"]
    topk, nms = seen["cells"]
    assert topk[1].startswith("rpn_topk") and topk[2] == "pass" and topk[3].startswith("fail [")
    # OpenVINO's fail is like a known finding, linked to its row in the Findings section.
    assert topk[3].endswith("; like finding OV1") and seen["like"] == [["OV1", "#finding-OV1"]] and seen["finding"]
    assert nms[1].startswith("rpn_nms") and "If #12 else_branch" in nms[1] and topk[4] == "error"
    assert "fail 1" in topk[5] and "flipped 1" in nms[5]
    assert seen["parting"] == [True, False]
    assert "Where the backends part: node 0, rpn_topk." in seen["said"]
    assert "ort-cpu and openvino-cpu: an output is wrong for the input that backend gave the node" in seen["said"]
    assert seen["wide"] <= 0, "the page scrolls sideways"
    assert seen["barBottom"] <= seen["top"], seen
