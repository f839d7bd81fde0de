"""The HTML report: rendered from real results (a few documented and edge cases run in this
process on onnx-reference, ort-cpu and openvino-cpu) and opened in headless Chromium, which
must run its filters from the address without a JS error; every text from a case file or a
backend stays text; the DirectML feature levels of the tensor-support tables; a repro
snippet that, run with python, gives the verdict the report shows; and its size and render
time at the scale of a full run."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest
from harness import REPO
from markupsafe import escape
from report_dom import open_html, open_report

from conformance.backends.registry import by_name
from conformance.cases.loader import load_cases
from conformance.ops.topk.feature_levels import admitting_levels, describe_levels
from conformance.ops.topk.variants import directml_variants, onnx_variants, openvino_variants
from conformance.report.data import CaseInfo, load_case_infos, message_kind, sequence_view
from conformance.report.render import render_report, write_report
from conformance.report.repro import repro_snippet, result_k_source, variant_for
from conformance.results.records import Result, ResultsFile, environment, merge
from conformance.results.timing import backend_times, flag_cliffs
from conformance.running.suite import run_cases

BACKENDS = ("onnx-reference", "ort-cpu", "openvino-cpu")
CASE_FILES = (
    "cases/documented/directml-top-k1.yaml", "cases/edge/k_range.yaml", "cases/edge/nan_inf.yaml",
    "cases/directml/documentation.yaml",
)
CASE_IDS = {
    "dml-top-k1-example-1", "dml-top-k1-example-3", "dml-top-k1-example-4",  # ties, 1x1x3x4 float32
    "edge-k-zero", "edge-k-equals-n-largest", "edge-k-too-large", "edge-float32-nan-mixed-largest",
    "dml-support-float32-largest", "dml-support-int64-largest", "dml-support-float64-largest",
    "dml-support-rank5-axis4",
}
HOSTILE_SCRIPT = "<script>document.body.setAttribute('data-pwned', 'script')</script>"
HOSTILE_IMG = "<img src=x onerror=\"document.body.setAttribute('data-pwned', 'img')\">"
HOSTILE_CASE = f"""cases:
  - id: hostile-source
    source: {json.dumps(HOSTILE_IMG + " " + HOSTILE_SCRIPT)}
    tags: [ties]
    input:
      dtype: float32
      shape: [4]
      data: [1, 2, 2, 3]
    axis: 0
    k: 2
"""
SCREENSHOT = REPO / "reports" / "report-screenshot.png"


# --- Chromium ---------------------------------------------------------------------------

def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if found is None:
        message = "headless Chromium is needed (`topk-conformance setup web` installs it, as .ci/run does)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


def chromium(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [
        _chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
        "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False, stdin=subprocess.DEVNULL)


@dataclass
class Element:
    tag: str
    attrs: dict[str, str | None]
    text: str = ""


class _Elements(HTMLParser):
    """Every element's tag and attributes, and the text directly inside it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self._open: list[Element] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, dict(attrs))
        self.elements.append(element)
        if tag not in ("br", "img", "input", "meta", "rect", "option"):
            self._open.append(element)

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self._open) - 1, -1, -1):
            if self._open[i].tag == tag:
                del self._open[i:]
                break

    def handle_data(self, data: str) -> None:
        for element in self._open:
            element.text += data


def elements(document: str) -> list[Element]:
    parser = _Elements()
    parser.feed(document)
    return parser.elements


def classes(element: Element) -> list[str]:
    return (element.attrs.get("class") or "").split()


# --- fixtures ---------------------------------------------------------------------------

@dataclass
class Rendered:
    results: list[Result]
    infos: dict[str, CaseInfo]
    clean: Path  # report of the real results
    hostile: Path  # the same, plus hostile case file text and hostile result fields
    hostile_html: str
    dom: str  # Chromium's DOM of `hostile` opened with a filter in its address, after JS ran, all opened
    errors: list[str]  # the page's uncaught and console errors
    clean_dom: str  # Chromium's DOM of `clean`, its groups and matrix opened


FILTER = "#verdict=fail&backend=openvino-cpu"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Rendered:
    tmp = tmp_path_factory.mktemp("report")
    loaded = load_cases([REPO / f for f in CASE_FILES])
    cases = [case for case in loaded.cases if case.id in CASE_IDS]
    assert {c.id for c in cases} == CASE_IDS
    hostile_file = tmp / "hostile.yaml"
    hostile_file.write_text(HOSTILE_CASE, encoding="utf-8")
    hostile_cases = load_cases([hostile_file])
    assert not hostile_cases.errors, [str(e) for e in hostile_cases.errors]
    backends = by_name(list(BACKENDS))
    info = {b.name: {"available": True, "reason": "", **b.describe()} for b in backends}
    # The runner records each result's case file (Result.case_file); set it here the same way.
    files = {case.id: str(case.file) for case in [*cases, *hostile_cases.cases]}
    results = [dataclasses.replace(r, case_file=files[r.case])
               for r in run_cases([*cases, *hostile_cases.cases], backends, isolate=False)]
    real = [r for r in results if r.case != "hostile-source"]
    clean = tmp / "clean" / "report.html"
    write_report(clean, ResultsFile(environment(), info, [], real))

    hostile_results = [*results, *hostile_result_objects()]
    hostile = tmp / "hostile" / "report.html"
    hostile_info = {**info, HOSTILE_SCRIPT: {"available": True, "device": HOSTILE_IMG, "semantics": HOSTILE_SCRIPT}}
    write_report(hostile, ResultsFile(environment(), hostile_info, [HOSTILE_SCRIPT], hostile_results))
    page = open_report(hostile, FILTER)
    clean_page = open_report(clean)
    assert not clean_page.errors, clean_page.errors
    return Rendered(real, load_case_infos(real), clean, hostile, hostile.read_text(encoding="utf-8"),
                    page.dom, page.errors, clean_page.dom)


def hostile_result_objects() -> list[Result]:
    """Fields that do not come from a schema-checked case file can hold anything."""
    return [
        Result("hostile-source", "ort-cpu", "onnx-opset11", "input", "error", message=HOSTILE_SCRIPT,
               tags=["ties", HOSTILE_IMG], profile="ONNX sorted=1"),
        Result(HOSTILE_IMG, "onnx-reference", "onnx-opset11", "constant", "fail", rules=["gather"],
               message=HOSTILE_IMG, tags=[HOSTILE_SCRIPT], case_file=HOSTILE_SCRIPT,
               discrepancy={"rule": "gather", "sequence": [0], "input": [HOSTILE_SCRIPT, 1.0],
                            "values": [HOSTILE_IMG], "indices": [0], "expected_values": [1.0],
                            "expected_indices": [1]}),
        Result("dml-top-k1-example-3", f"</script>{HOSTILE_SCRIPT}", "onnx-opset11", "constant", "crash",
               message=f"</script>{HOSTILE_IMG}", machine=HOSTILE_SCRIPT),
    ]


def test_chromium_ran_the_page_without_a_js_error(rendered: Rendered) -> None:
    found = elements(rendered.dom)
    body = next(e for e in found if e.tag == "body")
    assert body.attrs.get("data-js") == "ready", "the page's script ran to its end"
    errors = next(e for e in found if e.attrs.get("id") == "js-errors")
    assert "hidden" in errors.attrs and not errors.text.strip(), errors.text
    assert not rendered.errors, rendered.errors


def test_filter_in_the_address_hides_the_right_rows(rendered: Rendered) -> None:
    found = elements(rendered.dom)
    assert next(e for e in found if e.tag == "body").attrs.get("data-filtered") == "yes"
    rows = [e for e in found if e.tag == "tr" and "drow" in classes(e)]
    wanted = [e for e in rows
              if e.attrs.get("data-verdict") == "fail" and e.attrs.get("data-backend") == "openvino-cpu"]
    assert wanted and len(wanted) < len(rows)
    for row in rows:
        assert ("hidden" not in row.attrs) == (row in wanted), row.attrs
    shown = {row.attrs["id"] for row in wanted}
    fails = [r for r in rendered.results if r.verdict == "fail" and r.backend == "openvino-cpu"]
    assert len(shown) == len(fails)
    groups = [e for e in found if e.tag == "section" and "group" in classes(e)]
    assert any("hidden" not in g.attrs for g in groups) and any("hidden" in g.attrs for g in groups)
    columns = [e for e in found if "data-col-backend" in e.attrs]
    assert columns
    for cell in columns:
        assert ("hidden" in cell.attrs) == (cell.attrs["data-col-backend"] != "openvino-cpu"), cell.attrs
    status = next(e for e in found if e.attrs.get("id") == "filter-status")
    assert status.text.startswith(f"{len(wanted)} of "), status.text
    cases = [e for e in found if e.tag == "tr" and "mrow" in classes(e)]
    failing = {r.case for r in fails}
    assert sum("hidden" not in e.attrs for e in cases) == len(failing)


def test_the_operator_filter_shows_one_operators_rows(tmp_path: Path) -> None:
    """A report of TopK and ArgMax results, opened with `#op=argmax`: only ArgMax's
    discrepancy rows and matrix rows stay, and the filter offers every operator present."""
    results = [
        Result("t-fail", "ort-cpu", "onnx-opset11", "constant", "fail", rules=["order"], op="topk"),
        Result("t-pass", "ort-cpu", "onnx-opset11", "constant", "pass", op="topk"),
        Result("a-fail", "ort-cpu", "onnx-opset13", "none", "fail", rules=["selection"], op="argmax"),
        Result("a-error", "ort-cpu", "onnx-opset12", "none", "error", message="no kernel", op="argmax"),
        Result("m-pass", "ort-cpu", "onnx-opset13", "none", "pass", op="argmin"),
        Result("t-pass", "openvino-cpu", "openvino-topk11-stable", "input", "pass", op="topk"),
    ]
    report = tmp_path / "report.html"
    write_report(report, ResultsFile(environment(), {}, [], results))
    page = open_report(report, "#op=argmax")
    assert not page.errors, page.errors
    found = elements(page.dom)
    select = [e for e in found if e.tag == "option" and e.attrs.get("value") in ("argmax", "argmin", "topk")]
    assert {e.attrs["value"] for e in select} >= {"argmax", "argmin", "topk"}
    drows = [e for e in found if e.tag == "tr" and "drow" in classes(e)]
    assert {e.attrs["data-op"] for e in drows} == {"topk", "argmax"}
    assert all(("hidden" not in e.attrs) == (e.attrs["data-op"] == "argmax") for e in drows)
    mrows = [e for e in found if e.tag == "tr" and "mrow" in classes(e)]
    assert {e.attrs["data-op"] for e in mrows} == {"topk", "argmax", "argmin"}
    assert all(("hidden" not in e.attrs) == (e.attrs["data-op"] == "argmax") for e in mrows)
    # A matrix per operator, with its own column group: ArgMax ran on ort-cpu's ONNX graphs
    # only, TopK on OpenVINO's native graphs too; the other operators' matrices are hidden.
    tables = [e for e in found if e.tag == "table" and "matrix" in classes(e)]
    assert [e.attrs["data-op"] for e in tables] == ["topk", "argmax", "argmin"]
    assert all(("hidden" not in e.attrs) == (e.attrs["data-op"] == "argmax") for e in tables)
    def column_heads(table: Element) -> list[str]:  # the <th>s of its <thead>
        start = found.index(table)
        end = next(i for i in range(start, len(found)) if found[i].tag == "tbody")
        return [h.text.strip() for h in found[start:end] if h.tag == "th" and "data-col-backend" in h.attrs]

    heads = {e.attrs["data-op"]: column_heads(e) for e in tables}
    assert heads["topk"] == ["ort-cpu", "openvino-cpu", "onnx", "openvino"]
    assert heads["argmax"] == heads["argmin"] == ["ort-cpu", "onnx"]


def test_screenshot(rendered: Rendered, tmp_path: Path) -> None:
    """A picture of the top of the report. With TOPK_UPDATE_SCREENSHOT=1 it replaces
    reports/report-screenshot.png (the picture kept with the repository); otherwise the checkout is left as
    it was (a test run must not dirty a tracked file)."""
    shot = tmp_path / "report.png"
    page = chromium(tmp_path / "profile", "--hide-scrollbars", f"--screenshot={shot}", "--window-size=1400,1000",
                    rendered.clean.as_uri())
    assert page.returncode == 0 and shot.stat().st_size > 10_000, page.stderr[-3000:]
    assert shot.read_bytes().startswith(b"\x89PNG")
    if os.environ.get("TOPK_UPDATE_SCREENSHOT") != "1":
        return
    SCREENSHOT.parent.mkdir(exist_ok=True)
    staged = SCREENSHOT.with_suffix(f".{os.getpid()}.tmp")
    shutil.copyfile(shot, staged)
    staged.replace(SCREENSHOT)


# --- escaping -----------------------------------------------------------------------------

def test_hostile_text_renders_as_text(rendered: Rendered) -> None:
    text = rendered.hostile_html
    for payload in (HOSTILE_SCRIPT, HOSTILE_IMG, "</script><script>"):
        assert payload not in text
    assert str(escape(HOSTILE_SCRIPT)) in text
    assert "&lt;img src=x onerror=" in text
    # The page's data is JSON escaped for a <script> context: no "<" to end it, and read back whole.
    data = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', text, re.S)
    assert data is not None and "<" not in data.group(1)
    assert [b["name"] for b in json.loads(data.group(1))["backends"]][-1] == f"</script>{HOSTILE_SCRIPT}"
    # The hostile case file's source reached the page as text, drawn by the script, so the case was found.
    shown = HOSTILE_IMG + " " + HOSTILE_SCRIPT
    assert any(e.text == shown for e in elements(rendered.dom) if e.tag == "small"), "the source, as text"


def test_hostile_text_runs_no_script_in_a_browser(rendered: Rendered) -> None:
    found = elements(rendered.dom)
    body = next(e for e in found if e.tag == "body")
    assert "data-pwned" not in body.attrs
    assert not [e for e in found if e.tag == "img"]
    scripts = [e for e in found if e.tag == "script"]
    assert len(scripts) == 2, [s.attrs for s in scripts]  # the report's JSON and its own script
    assert any(HOSTILE_SCRIPT in e.text for e in found if e.tag == "td")


# --- content ------------------------------------------------------------------------------

def test_every_backend_case_and_dialect_column(rendered: Rendered) -> None:
    found = elements(rendered.clean_dom)
    heads = [e.text.strip() for e in found if e.tag == "th" and "data-col-backend" in e.attrs]
    for backend in BACKENDS:
        assert any(h.startswith(backend) for h in heads), heads
    families = [e.text.strip() for e in found if e.tag == "th" and e.attrs.get("data-col-backend") == "openvino-cpu"]
    assert "onnx" in families and "openvino" in families
    rows = [e for e in found if e.tag == "tr" and "mrow" in classes(e)]
    assert len(rows) == len(CASE_IDS)
    chart = next(e for e in found if e.tag == "svg")
    assert chart.attrs.get("id") == "verdict-chart"
    bars = [e for e in found if e.tag == "rect" and (e.attrs.get("class") or "").startswith("fill-")]
    assert len(bars) >= len(BACKENDS)


@pytest.mark.parametrize(("case_id", "levels"), [
    ("dml-top-k1-example-3", "TOP_K 2.0+, TOP_K1 2.1+"),  # 1x1x3x4 float32
    ("dml-support-rank5-axis4", "TOP_K 3.1+, TOP_K1 3.1+"),  # 5-D float32
    ("dml-support-int64-largest", "TOP_K 5.0+, TOP_K1 5.0+"),
    ("dml-support-float64-largest", "none"),
])
def test_directml_feature_levels_column(rendered: Rendered, case_id: str, levels: str) -> None:
    text = rendered.clean_dom
    row = re.search(rf"<td class=\"case\"><b>{re.escape(case_id)}</b>.*?<td class=\"levels\">([^<]*)</td>", text, re.S)
    assert row is not None and row.group(1) == levels


def test_feature_level_tables() -> None:
    assert admitting_levels("float32", 4) == {"TOP_K": ["2.0", "2.1", "3.1", "5.0"], "TOP_K1": ["2.1", "3.1", "5.0"]}
    assert admitting_levels("float16", 4)["TOP_K"][0] == "2.0"
    assert admitting_levels("int8", 4) == {"TOP_K": ["2.1", "3.1", "5.0"], "TOP_K1": ["2.1", "3.1", "5.0"]}
    assert admitting_levels("float32", 5) == {"TOP_K": ["3.1", "5.0"], "TOP_K1": ["3.1", "5.0"]}
    assert admitting_levels("float32", 1) == {"TOP_K": ["3.1", "5.0"], "TOP_K1": ["3.1", "5.0"]}
    assert admitting_levels("float32", 9) == {"TOP_K": [], "TOP_K1": []}
    assert admitting_levels("int64", 4) == {"TOP_K": ["5.0"], "TOP_K1": ["5.0"]}
    assert admitting_levels("uint64", 2) == {"TOP_K": ["5.0"], "TOP_K1": ["5.0"]}
    assert admitting_levels("float64", 4) == {"TOP_K": [], "TOP_K1": []}
    assert admitting_levels("bfloat16", 4) == {"TOP_K": [], "TOP_K1": []}
    # UINT64 indices (a case's index_type int64) from 5.0; INT32 indices in no table.
    assert admitting_levels("float32", 4, "int64") == {"TOP_K": ["5.0"], "TOP_K1": ["5.0"]}
    assert admitting_levels("float32", 4, "int32") == {"TOP_K": [], "TOP_K1": []}
    assert describe_levels(admitting_levels("float64", 4)) == "none"
    assert describe_levels(admitting_levels("int16", 4)) == "TOP_K 2.1+, TOP_K1 2.1+"


def test_documents_beside_behaviour(rendered: Rendered) -> None:
    """A row per backend (eighteen backends stay readable), a column per aspect, the documents'
    rows above them."""
    found = elements(rendered.clean.read_text(encoding="utf-8"))
    start = next(i for i, e in enumerate(found) if e.tag == "table" and "docs" in classes(e))
    end = next(i for i in range(start + 1, len(found)) if found[i].tag == "table")
    rows = [e for e in found[start:end] if e.tag == "tr" and "data-col-backend" in e.attrs]
    assert [r.attrs["data-col-backend"] for r in rows] == list(BACKENDS)
    table = [e for e in found if e.tag == "td" and "obs" in classes(e)]
    aspects = ["direction", "output order", "ties", "K", "index type", "dtypes", "NaN"]
    backend_of = [row.attrs["data-col-backend"] for row in rows for _ in aspects]
    observed = {(backend_of[n], aspects.index(str(e.attrs["data-aspect"]))): e.text for n, e in enumerate(table)}
    assert len(table) == len(aspects) * len(BACKENDS)
    ties, k_row, nan = aspects.index("ties"), aspects.index("K"), aspects.index("NaN")
    assert "tie-order broken on defined inputs" in observed[("openvino-cpu", ties)]
    assert "no tie-order or selection broken" in observed[("onnx-reference", ties)]
    for backend in BACKENDS:
        for label in ("K=0", "K=n", "K>n"):
            assert label in observed[(backend, k_row)], observed[(backend, k_row)]
        assert "NaN inputs (1 case)" in observed[(backend, nan)]
    dtypes = aspects.index("dtypes")
    assert "float64" in observed[("ort-cpu", dtypes)]


def test_discrepancy_sections(rendered: Rendered) -> None:
    found = elements(rendered.clean_dom)
    rows = [e for e in found if e.tag == "tr" and "drow" in classes(e)]
    discrepant = [r for r in rendered.results if r.verdict in ("fail", "divergent", "error", "crash")]
    assert len(rows) == len(discrepant)
    groups = [e for e in found if e.tag == "section" and "group" in classes(e)]
    assert 0 < len(groups) < len(discrepant), "identical-looking discrepancies are grouped"
    details = [e for e in found if e.tag == "table" and "detail" in classes(e)]
    assert details, "a failing output shows its sequence"
    said = [e.text for e in found if e.tag == "small"]
    assert "the DirectML answer (the suite's oracle)" in said
    assert "the case's expected output" in said
    marked = [e for e in found if e.tag == "span" and "mark" in classes(e)]
    assert marked, "differing positions are highlighted"
    repros = [e for e in found if e.tag == "pre" and "repro" in classes(e)]
    assert len(repros) == len(groups)


def test_environment_and_slowest(rendered: Rendered) -> None:
    text = rendered.clean.read_text(encoding="utf-8")
    env = environment()
    assert f"machine {env['machine']}" in text
    assert env["packages"]["openvino"] in text
    slowest = re.findall(r">([^<>\s]+): top (\d+) by time", text)
    assert {b for b, _ in slowest} == set(BACKENDS)
    assert all(int(n) == 10 for _, n in slowest)


def test_time_per_backend_and_performance_cliffs(rendered: Rendered, tmp_path: Path) -> None:
    """The Time section: each backend's compile and execution seconds summed from its
    results, and every result the run flagged as a cliff (flag_cliffs, the same rule as
    the run's summary)."""
    slow = next(r for r in rendered.results if r.backend == "openvino-cpu" and r.verdict == "pass")
    others = [r for r in rendered.results if r.case == slow.case and r.backend != slow.backend
              and r.verdict == "pass"]
    assert others
    # openvino-cpu 1000 times slower than every other backend on this case: one cliff per
    # openvino-cpu result that returned outputs there.
    results = [dataclasses.replace(r, run_seconds=0.5) if r.case == slow.case and r.backend == slow.backend
               and r.run_seconds is not None else
               dataclasses.replace(r, run_seconds=0.0005) if r.case == slow.case and r.run_seconds is not None else r
               for r in rendered.results]
    flagged = [r for r in flag_cliffs(results) if r.cliff]
    assert flagged and {(r.case, r.backend) for r in flagged} == {(slow.case, slow.backend)}
    page = render_report(ResultsFile(environment(), {}, [], flag_cliffs(results)), rendered.infos)
    found = elements(page)
    rows = [e for e in found if e.tag == "tr" and e.attrs.get("data-col-backend") and "x" in e.text
            and slow.case in e.text]
    assert len(rows) == len(flagged), [r.text for r in rows]
    assert all("1000.0x" in row.text and "500.00" in row.text for row in rows), rows[0].text
    times = {t.backend: t for t in backend_times(results)}
    timing_rows = {backend: re.findall(r"<td>([^<]*)</td>", cells) for backend, cells in re.findall(
        r'<tr data-col-backend="([^"]+)"><td>\1</td>((?:\s*<td>[^<]*</td>){6})</tr>', page)}
    for backend in BACKENDS:
        time = times[backend]
        assert timing_rows[backend] == [f"{time.total:.2f}", f"{time.compile:.2f}", f"{time.execution:.2f}",
                                        str(time.runs), str(time.compilations), f"{time.per_run:.2f}"]
    # No cliff in the real results of these small cases: the section says so.
    assert "No performance cliffs" in rendered.clean.read_text(encoding="utf-8")


def test_merged_report_says_where_each_column_came_from(rendered: Rendered, tmp_path: Path) -> None:
    ort = [r for r in rendered.results if r.backend == "ort-cpu"]
    ov = [r for r in rendered.results if r.backend == "openvino-cpu"]
    linux = ResultsFile({"machine": "linux-ci", "platform": "Linux", "python": "3.11.7",
                         "packages": {"onnx": "1.23.2"}},
                        {"ort-cpu": {"available": True, "device": "CPUExecutionProvider"}}, [],
                        [dataclasses.replace(r, machine="linux-ci") for r in ort])
    windows = ResultsFile({"machine": "win-runner", "platform": "Windows-11", "python": "3.12.1",
                           "packages": {"openvino": "2026.0"}},
                          {"openvino-cpu": {"available": True, "device": "OpenVINO CPU", "adapter": "Arc A770"}}, [],
                          [dataclasses.replace(r, machine="win-runner") for r in ov])
    page = open_html(render_report(merge([linux, windows]).data, rendered.infos), tmp_path)
    assert not page.errors, page.errors
    found = elements(page.dom)
    envs = [e.text for e in found if e.tag == "table" and "env" in classes(e)]
    assert len(envs) == 2
    assert "linux-ci" in envs[0] and "ort-cpu" in envs[0] and "openvino-cpu" not in envs[0]
    assert "win-runner" in envs[1] and "openvino-cpu" in envs[1] and "Windows-11" in envs[1]
    heads = {e.attrs["data-col-backend"]: e.text for e in found if e.tag == "th" and e.attrs.get("colspan")
             and "data-col-backend" in e.attrs}
    assert "from win-runner" in heads["openvino-cpu"] and "from linux-ci" in heads["ort-cpu"]
    info = next(e.text for e in found if e.tag == "table" and "backend-info" in classes(e))
    assert "Arc A770" in info


# --- repro ----------------------------------------------------------------------------------

def test_every_variant_maps_back_from_its_result_fields(rendered: Rendered) -> None:
    for variant in [*onnx_variants(), *openvino_variants(), *directml_variants()]:
        assert variant_for(variant.graph, result_k_source(variant)) == variant
    for result in rendered.results:
        assert variant_for(result.graph, result.k_source) is not None, result
    assert variant_for("onnx-opset11", "attribute") is None


@pytest.mark.parametrize("recorded", [True, False], ids=["case-file-recorded", "case-file-not-recorded"])
def test_repro_snippet_reproduces_the_verdict(rendered: Rendered, recorded: bool, tmp_path: Path) -> None:
    """openvino-cpu breaks ONNX's tie order on DML_TOP_K1 example 3 with K as an input; the
    snippet the report shows for that result, run with python, says the same."""
    result = next(r for r in rendered.results if (r.case, r.backend, r.graph, r.k_source)
                  == ("dml-top-k1-example-3", "openvino-cpu", "onnx-opset11", "input"))
    assert (result.verdict, result.rules) == ("fail", ["tie-order"])
    if not recorded:
        result = dataclasses.replace(result, case_file="")
    html = render_report(ResultsFile(environment(), {}, [], [result]), {} if not recorded else None)
    page = open_html(html, tmp_path)
    found = elements(page.dom)
    snippet = next(e.text for e in found if e.tag == "pre" and "repro" in classes(e))
    if recorded:
        assert "CASE_FILE = Path('cases/documented/directml-top-k1.yaml')" in snippet
    else:
        assert snippet == repro_snippet(result.case, "", result.backend, result.graph, result.k_source,
                                        result.verdict, result.rules)
    completed = subprocess.run([sys.executable, "-c", snippet], cwd=REPO, capture_output=True, text=True,
                               timeout=300, check=False)
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert completed.stdout.splitlines()[0] == "fail ['tie-order'] defined", completed.stdout
    assert completed.stdout.splitlines()[1] == result.message


# --- scale ----------------------------------------------------------------------------------

def test_sequences_are_summarized() -> None:
    items = sequence_view(list(range(1000)), {500, 501, 998})
    shown = [i["pos"] for i in items if "pos" in i]
    assert shown[:20] == list(range(20)) and shown[-20:] == list(range(980, 1000))
    assert {497, 500, 501, 504} <= set(shown) and len(shown) < 60
    assert sum(i.get("gap", 0) for i in items) + len(shown) == 1000
    assert [i["pos"] for i in items if i.get("mark")] == [500, 501, 998]
    assert len(sequence_view(list(range(40)), set())) == 40


def test_message_kinds_group_particulars() -> None:
    a = "tie-order broken under ONNX sorted=1; first at sequence [0, 2]: got indices [1, 2]"
    b = "tie-order broken under ONNX sorted=1; first at sequence [0, 0]: got indices [3, 2]"
    assert message_kind(a) == message_kind(b) == "tie-order broken under ONNX sorted=1"
    assert message_kind("hr=0x80070057 at core.cpp:12 'node_3'") == message_kind("hr=0x8007000E at core.cpp:99 'x'")


def test_a_full_run_sized_report_stays_usable(rendered: Rendered, tmp_path: Path) -> None:
    """Over 5000 results (the documented cases' results copied 11 times): about what a run
    of the corpus on two backends gives. Each result is carried once, compactly (the whole
    default run of 64,000 results must stay under 4 MB), and the page's first screen is drawn
    in under 2 s."""
    copies = 11
    results = [dataclasses.replace(r, case=f"{r.case}--{n}") for n in range(copies) for r in rendered.results]
    infos = {f"{case}--{n}": info for n in range(copies) for case, info in rendered.infos.items()}
    assert len(results) > 5000
    started = time.perf_counter()
    page = render_report(ResultsFile(environment(), {}, [], results), infos)
    seconds = time.perf_counter() - started
    assert seconds < 20, seconds
    # Under 160 bytes a result here, the groups' first results included (a whole default run of 64,324 results:
    # 3.3 MB, against 21.9 MB when every result was markup; measured 2026-11-28).
    assert len(page.encode()) < 800_000, len(page.encode())
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    started = time.perf_counter()
    shown = open_report(path, everything=False)
    assert time.perf_counter() - started < 2, "the first screen takes under 2 s"
    assert not shown.errors, shown.errors


def test_a_summarized_long_sequence_shows_its_kept_elements_and_gaps() -> None:
    """The judge keeps a long sequence's discrepancy record summarized (first and last 20,
    and around the differing positions): the report shows those and counts the rest."""
    from conformance.report.data import discrepancy_detail

    def summary(values: list[int]) -> dict[str, object]:
        return {"summarized": True, "length": 5000, "segments": [[0, values[:2]], [2500, values[2:]]]}

    note = {
        "rule": "selection", "sequence": [],
        "input": {"summarized": True, "length": 10**6, "segments": [[0, [1.0, 2.0]], [777, [9.0]]]},
        "values": summary([9, 8, 7, 6]), "indices": summary([777, 5, 11, 12]),
        "expected_values": summary([9, 8, 7, 5]), "expected_indices": summary([777, 5, 11, 13]),
    }
    result = Result("c", "ort-cpu", "onnx-opset11", "constant", "fail", ["selection"], discrepancy=note)
    detail = discrepancy_detail(result, None)
    assert detail is not None
    assert (detail["n"], detail["k"], detail["differing"]) == (10**6, 5000, 1)
    shown_positions = [item["pos"] for item in detail["got_indices"] if "pos" in item]
    assert shown_positions == [0, 1, 2500, 2501]
    assert [item["pos"] for item in detail["got_values"] if item.get("mark")] == [2501]
    assert any(item.get("gap") for item in detail["got_indices"])


def test_columns_are_grouped_by_kernel_family(tmp_path: Path) -> None:
    """The matrix groups its backend columns by where their kernels come from (the record's
    family: reference, hand-written, compiled, shaders), one header above each group; a results
    file whose backends say no family keeps them, last, under "kernels not described"."""
    named = {"tvm-cpu": "compiled", "iree-vulkan-lavapipe": "compiled", "ort-cpu": "hand-written",
             "onnx-reference": "reference", "ort-web-webgpu": "shaders", "old-file-backend": ""}
    results = [Result("dml-top-k1-example-3", name, "onnx-opset11", "constant", "pass") for name in named]
    info = {name: {"available": True, **({"family": family} if family else {})} for name, family in named.items()}
    path = tmp_path / "report.html"
    write_report(path, ResultsFile(environment(), info, list(named), results))
    found = elements(open_report(path).dom)
    groups = [(e.text.strip(), e.attrs.get("colspan")) for e in found if e.tag == "th" and "family" in classes(e)]
    assert groups == [("reference evaluator", "1"), ("hand-written kernels", "1"),
                      ("kernels a compiler generates", "2"), ("GPU shaders, on a CPU Vulkan here", "1"),
                      ("kernels not described", "1")]
    heads = list(dict.fromkeys(e.attrs["data-col-backend"] for e in found
                               if e.tag == "th" and e.attrs.get("colspan") and "data-col-backend" in e.attrs))
    assert heads == ["onnx-reference", "ort-cpu", "tvm-cpu", "iree-vulkan-lavapipe", "ort-web-webgpu",
                     "old-file-backend"]
