"""The finding records (findings/ID/): each loads and agrees with the corpus, the baselines and
docs/findings.md; each repro runs here standalone, prints its versions and gives what its record
says; `findings report` and `findings history` give what a maintainer needs."""

from __future__ import annotations

import ast
import importlib.metadata
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from harness import BASELINES, CASES, REPO, run_cli
from report_dom import open_report

from conformance.backends.record import PythonEnvironment
from conformance.cases.loader import load_cases
from conformance.core.machine import host_tier
from conformance.findings import history
from conformance.findings.history import span
from conformance.findings.lint import problems, vocabulary_here
from conformance.findings.records import ID_PATTERN, load_findings, load_record, upstream_labels
from conformance.findings.running import expected_here, run_repro, verdict
from conformance.findings.upstream import SCREEN_LINES, issue_body
from conformance.gate import Baseline, Entry, compare, read_baseline
from conformance.results.records import Result

FINDINGS = REPO / "findings"
LOADED = load_findings(FINDINGS)
RECORDS = sorted(LOADED.findings)
SUITE_MODULES = {"conformance", "backends"}
VOCABULARY = vocabulary_here(FINDINGS)


def test_every_record_loads_and_ids_are_unique() -> None:
    assert LOADED.errors == []
    folders = sorted(p.name for p in FINDINGS.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
    assert folders == RECORDS
    assert len(RECORDS) >= 80, "issue 27: every finding of docs/findings.md has a record"


def test_every_minimal_case_is_in_the_corpus() -> None:
    ids = {case.id for case in load_cases([CASES]).cases}
    missing = {f.id: [c for c in f.cases if c not in ids] for f in LOADED.findings.values()}
    assert {k: v for k, v in missing.items() if v} == {}


def test_baseline_notes_and_records_name_each_other() -> None:
    """A record's baseline notes name its id, and every id a baseline note names is a record:
    the gate prints "fixed: OV3 (openvino#35824)" from that."""
    baselines = {path.stem: read_baseline(path) for path in BASELINES.glob("*.yaml")}
    unnamed = []
    for finding in LOADED.findings.values():
        for backend, keys in finding.baseline_notes.items():
            assert backend in baselines, f"{finding.id}: no baseline of {backend}"
            for key in keys:
                assert key in baselines[backend].notes, f"{finding.id}: {backend} has no note {key!r}"
                if finding.id not in ID_PATTERN.findall(baselines[backend].notes[key]):
                    unnamed.append(f"{backend}:{key} does not name {finding.id}")
    assert unnamed == []
    named = {(backend, key, found) for backend, baseline in baselines.items()
             for key, text in baseline.notes.items() for found in ID_PATTERN.findall(text)}
    assert {found for _, _, found in named} - set(RECORDS) == set()


def test_the_findings_page_is_generated_from_the_records() -> None:
    done = run_cli("findings", "docs", "--check")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("finding_id", RECORDS)
def test_a_repro_imports_nothing_of_the_suite(finding_id: str) -> None:
    finding = LOADED.findings[finding_id]
    for name in (finding.repro.script, *finding.repro.files, finding.repro.windows):
        if not name.endswith(".py"):
            continue
        tree = ast.parse((finding.folder / name).read_text(encoding="utf-8"))
        imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                    for alias in node.names}
        imported |= {(node.module or "").split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert not imported & SUITE_MODULES, f"{name} imports {imported & SUITE_MODULES}"


@pytest.mark.parametrize("finding_id", RECORDS)
def test_a_report_stands_on_its_own_and_its_repro_is_short(finding_id: str) -> None:
    """Issue 37: no case ids, backend, rule or outcome names or other findings' ids in what goes
    upstream; a repro's working part of at most 40 lines; an import for every need."""
    finding = LOADED.findings[finding_id]
    assert problems(finding, LOADED.findings, VOCABULARY) == []


@pytest.mark.parametrize("finding_id", RECORDS)
def test_the_repro_runs_here_and_agrees_with_its_record(finding_id: str) -> None:
    """Run as `findings check` does: in an environment holding only the record's needs. What it
    printed goes into the report, so the report, output included, is scanned too."""
    finding = LOADED.findings[finding_id]
    run = run_repro(finding)
    assert run.outcome != "broken", f"{run.reason}\n{run.output[-3000:]}"
    if run.outcome == "cannot run":
        assert run.reason, run.output[-2000:]
        return
    assert run.outcome == expected_here(finding, host_tier()), run.output[-3000:]
    if run.outcome == "reproduced":
        assert VOCABULARY.suite_words(issue_body(finding, run).body) == []
    distribution = finding.repro.history
    if distribution and distribution != "onnxruntime-web":
        try:
            installed = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            return
        assert installed in run.output, f"the repro does not print {distribution} {installed}"


def test_the_verdict_comes_from_the_exit_status_and_the_last_line() -> None:
    assert verdict(0, "x\nREPRODUCED\n") == ("reproduced", "")
    assert verdict(1, "NOT REPRODUCED") == ("not reproduced", "")
    assert verdict(2, "CANNOT RUN: no wine") == ("cannot run", "no wine")
    assert verdict(0, "NOT REPRODUCED")[0] == "broken"
    assert verdict(1, "Traceback ...\nValueError: x")[0] == "broken"
    assert verdict(-11, "")[1].startswith("killed by signal 11")


def test_what_a_runtime_prints_on_stderr_after_the_verdict_is_not_the_verdict(tmp_path: Path) -> None:
    """IREE 3.11.0's nanobind reports leaks on stderr as the interpreter exits, after the
    repro's REPRODUCED: the verdict is still the last line of stdout, and both are shown."""
    shutil.copytree(FINDINGS / "TVM3", tmp_path / "TVM3")
    script = tmp_path / "TVM3" / "repro.py"
    script.write_text("import atexit, sys\n"
                      "atexit.register(lambda: print('nanobind: leaked 3 instances!', file=sys.stderr))\n"
                      "print('REPRODUCED')\n", encoding="utf-8")
    run = run_repro(load_findings(tmp_path).findings["TVM3"])
    assert (run.outcome, run.reason) == ("reproduced", "")
    assert run.output.splitlines() == ["nanobind: leaked 3 instances!", "REPRODUCED"]


@pytest.mark.parametrize(("upstream", "said"), [
    ({"status": "known", "issues": [{"ref": "a/b#1", "relation": "related"}]}, "'known' needs an issue of relation"),
    ({"status": "related", "issues": [{"ref": "a/b#1", "relation": "same"}]}, "(it is 'known')"),
    ({"status": "related"}, "'related' needs upstream.issues"),
    ({"status": "none-found", "issues": [{"ref": "a/b#1", "relation": "related"}], "note": "searched x"},
     "'none-found' lists issues"),
    ({"status": "none-found"}, "'none-found' says what was searched"),
    ({"status": "none-found", "note": "searched x", "looked_up": "2025-11-25"}, "before the suite's first record"),
])
def test_one_status_rule_holds_for_every_record(tmp_path: Path, upstream: dict[str, object], said: str) -> None:
    """known: an issue or pull request about the same bug; related: only others nearby;
    none-found: nothing, and the note says what was searched; never looked up before the
    suite existed. A record that breaks it is refused, naming its file and field."""
    shutil.copytree(FINDINGS / "TVM3", tmp_path / "TVM3")
    path = tmp_path / "TVM3" / "finding.yaml"
    record = yaml.safe_load(path.read_text(encoding="utf-8"))
    record["upstream"] = {"looked_up": "2026-11-27", **upstream}
    path.write_text(yaml.safe_dump(record), encoding="utf-8")
    errors = load_findings(tmp_path).errors
    assert len(errors) == 1 and errors[0].startswith(f"{path}: upstream.") and said in errors[0], errors


def test_what_a_repro_leaves_in_the_temporary_folder_goes_with_it(tmp_path: Path) -> None:
    """A web repro's Chromium, killed with it, leaves its org.chromium.Chromium.* folders in
    TMPDIR (one per run of `findings check` before): a repro's TMPDIR is its scratch folder."""
    shutil.copytree(FINDINGS / "TVM3", tmp_path / "TVM3")
    (tmp_path / "TVM3" / "repro.py").write_text(
        "import tempfile\n"
        "print(tempfile.mkdtemp(prefix='org.chromium.Chromium.'))\n"
        "print('REPRODUCED')\n", encoding="utf-8")
    run = run_repro(load_findings(tmp_path).findings["TVM3"])
    assert run.outcome == "reproduced", run.output
    left = Path(run.output.splitlines()[0])
    assert left.name.startswith("org.chromium.Chromium.") and not left.exists(), left


def test_a_repro_and_its_children_reach_no_network_and_start_no_installer(tmp_path: Path) -> None:
    """`import openvino` sends a usage event from a forked child unless CI is set: a repro run
    by `findings check` is held, as a run's worker is, to the loopback and no installer, and so
    is every Python process it starts, though its environment does not hold the suite."""
    shutil.copytree(FINDINGS / "TVM3", tmp_path / "TVM3")
    (tmp_path / "TVM3" / "repro.py").write_text(
        "import socket, subprocess, sys\n"
        "def tried(call):\n"
        "    try:\n"
        "        call()\n"
        "    except Exception as error:\n"
        "        return f'{type(error).__name__}: {error}'\n"
        "    return 'done'\n"
        "print('lookup:', tried(lambda: socket.getaddrinfo('example.com', 443)))\n"
        "print('pip:', tried(lambda: subprocess.run([sys.executable, '-m', 'pip', '--version'])))\n"
        "child = 'import socket; socket.getaddrinfo(\"example.org\", 443)'\n"
        "said = subprocess.run([sys.executable, '-c', child], capture_output=True, text=True).stderr\n"
        "print('child:', said.strip().splitlines()[-1])\n"
        "print('loopback:', tried(lambda: socket.getaddrinfo('localhost', 80)))\n"
        "print('REPRODUCED')\n", encoding="utf-8")
    run = run_repro(load_findings(tmp_path).findings["TVM3"])
    assert run.outcome == "reproduced", run.output
    said = dict(line.split(": ", 1) for line in run.output.splitlines() if ": " in line)
    assert said["lookup"].startswith("Refused: a name lookup of example.com"), run.output
    assert said["pip"].startswith("Refused: running the installer"), run.output
    assert said["child"].startswith("_topk_conformance_offline.Refused: a name lookup of example.org"), run.output
    assert said["loopback"] == "done", run.output


def test_a_broken_record_names_its_file_and_field_and_the_others_still_list(tmp_path: Path) -> None:
    root = tmp_path / "findings"
    shutil.copytree(FINDINGS / "OV3", root / "OV3")
    shutil.copytree(FINDINGS / "ORT3", root / "ORT3")
    record = yaml.safe_load((root / "ORT3" / "finding.yaml").read_text(encoding="utf-8"))
    record["upstream"]["status"] = "maybe"
    (root / "ORT3" / "finding.yaml").write_text(yaml.safe_dump(record), encoding="utf-8")
    done = run_cli("findings", "--records", root, "list")
    assert done.returncode == 2
    assert "ORT3/finding.yaml: upstream.status" in done.stderr.replace("\n", "")
    assert "OV3" in done.stdout and "openvino#35824" in done.stdout


def test_a_record_whose_id_is_not_its_folder_is_refused(tmp_path: Path) -> None:
    shutil.copytree(FINDINGS / "OV3", tmp_path / "OV4")
    with pytest.raises(ValueError, match="is not the folder's name"):
        load_record(tmp_path / "OV4" / "finding.yaml")


def test_report_ov3_is_a_complete_openvino_issue_naming_the_known_issue() -> None:
    done = run_cli("findings", "report", "OV3")
    assert done.returncode == 0, done.stderr
    body = done.stdout
    for heading in ("### OpenVINO Version", "### Operating System", "### Device used for inference",
                    "### Issue description", "### Step-by-step reproduction", "### Relevant log output"):
        assert heading in body
    assert "openvino#35824" in body and "https://github.com/openvinotoolkit/openvino/issues/35824" in body
    assert (FINDINGS / "OV3" / "repro.py").read_text(encoding="utf-8").strip() in body  # the repro inline
    assert "REPRODUCED" in body  # what it printed here
    for _, quote in LOADED.findings["OV3"].documents:
        assert quote in body


@pytest.mark.parametrize(("finding_id", "tracker"), [("ORT1", "### ONNX Runtime Version or Commit ID"),
                                                     ("REF1", "### Reproduction instructions"),
                                                     ("TR3", "## To reproduce")])
def test_report_follows_each_trackers_template(finding_id: str, tracker: str) -> None:
    done = run_cli("findings", "report", finding_id, "--no-run")
    assert done.returncode == 0, done.stderr
    assert tracker in done.stdout


def test_report_refuses_a_run_that_does_not_reproduce_and_takes_one_from_elsewhere(tmp_path: Path) -> None:
    """ORT3 is fixed in the pinned onnxruntime: a report from this machine's run would show a
    maintainer nothing, so it is refused in one line; the output of a run where it reproduced
    (an older release) makes the report, pasted as it is."""
    done = run_cli("findings", "report", "ORT3")
    assert done.returncode == 1 and done.stdout == "", done.stdout
    assert len(done.stderr.strip().splitlines()) == 1 and "ORT3 not reproduced here" in done.stderr, done.stderr
    assert "--from-output FILE" in done.stderr
    elsewhere = tmp_path / "ort3.txt"
    elsewhere.write_text("onnxruntime 1.31.1, numpy 2.4.6\nvalues [0.0, NaN, 0.0]\nREPRODUCED\n", encoding="utf-8")
    done = run_cli("findings", "report", "ORT3", "--from-output", elsewhere)
    assert done.returncode == 0, done.stderr
    assert "onnxruntime 1.31.1, numpy 2.4.6\nvalues [0.0, NaN, 0.0]\nREPRODUCED" in done.stdout
    elsewhere.write_text("NOT REPRODUCED\n", encoding="utf-8")
    done = run_cli("findings", "report", "ORT3", "--from-output", elsewhere)
    assert done.returncode == 1 and f"in {elsewhere}" in done.stderr, done.stderr


def test_a_finding_fixed_upstream_gets_a_comment_naming_the_release_not_a_new_issue(tmp_path: Path) -> None:
    """ORT3 stopped reproducing in onnxruntime 1.32.0 (findings/history.yaml): from an older
    release's output the report says so, and offers the output as a comment."""
    elsewhere = tmp_path / "ort3.txt"
    elsewhere.write_text("onnxruntime 1.31.1\nREPRODUCED\n", encoding="utf-8")
    done = run_cli("findings", "report", "ORT3", "--from-output", elsewhere)
    assert done.returncode == 0, done.stderr
    assert "# Fixed in onnxruntime 1.32.0: " in done.stdout and "No new issue" in done.stdout
    assert "issues/new" not in done.stdout and "onnxruntime 1.31.1\nREPRODUCED" in done.stdout


def test_a_companion_longer_than_a_screen_is_attached_not_inlined(tmp_path: Path) -> None:
    """DML1's C program: written beside the report, named in it, not pasted into it."""
    program = FINDINGS / "DML1" / "repro_windows.c"
    assert len(program.read_text(encoding="utf-8").splitlines()) > SCREEN_LINES
    done = run_cli("findings", "report", "DML1", "--no-run", "-o", tmp_path / "DML1.md")
    assert done.returncode == 0, done.stderr
    body = (tmp_path / "DML1.md").read_text(encoding="utf-8")
    assert "`repro_windows.c`: attached to this issue" in body and "#include" not in body
    assert (tmp_path / "repro_windows.c").read_bytes() == program.read_bytes()


@pytest.mark.parametrize(("finding_id", "template"), [("TR6", "plain"), ("REF1", "onnx"), ("ORT1", "onnxruntime"),
                                                      ("OV3", "openvino")])
def test_a_report_says_expected_and_actual_once(finding_id: str, template: str) -> None:
    body = issue_body(LOADED.findings[finding_id], None).body
    finding = LOADED.findings[finding_id]
    assert body.count(finding.expected) == 1 and body.count(finding.actual) == 1, template


def test_a_web_report_names_the_one_provider_it_shows_on() -> None:
    body = issue_body(LOADED.findings["WASM1"], None).body
    assert "### Execution Provider\n\nWebAssembly (onnxruntime-web)" in body and "WebGPU" not in body


def test_the_span_names_the_first_release_and_the_fix() -> None:
    releases = ["1", "2", "3", "4"]
    fixed = span({"1": "cannot run", "2": "reproduced", "3": "reproduced", "4": "not reproduced"}, releases)
    assert (fixed.first, fixed.fixed, fixed.regression, fixed.oldest) == ("2", "4", False, True)
    regression = span({"1": "not reproduced", "2": "reproduced", "3": "reproduced", "4": "reproduced"}, releases)
    assert (regression.first, regression.fixed, regression.regression) == ("2", "", True)
    flaky = span({"1": "reproduced", "2": "not reproduced", "3": "reproduced", "4": "reproduced"}, releases)
    assert flaky.fixed == ""


def test_history_installs_a_release_of_its_own_and_runs_the_repro(tmp_path: Path) -> None:
    """onnx 1.17.0's reference evaluator, in an environment of its own (the suite's cache)."""
    done = run_cli("findings", "history", "REF1", "--versions", "1.17.0", timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "REF1 on onnx 1.17.0: reproduced" in done.stdout.replace("\n", " ")


def test_a_release_over_an_environment_is_imported_first_and_the_rest_comes_from_that_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """How LiteRT's history holds TensorFlow as recorded: a release installed alone over a base
    environment (here the suite's own, an older iniconfig over its newer one) is what imports,
    the base's packages import behind it, and the record of what it holds names the release."""
    monkeypatch.setenv("TOPK_CONFORMANCE_CACHE", str(tmp_path))
    suites = PythonEnvironment(lambda: Path(sys.executable), lambda: "")
    release = history.Release("iniconfig", "1.1.1")
    installed = history.environment(release, ["numpy"], lambda line: None, over=suites)
    assert installed["iniconfig"] == "1.1.1" and installed["numpy"] == importlib.metadata.version("numpy")
    imported = subprocess.run([str(release.python), "-c", "import iniconfig, numpy; print(iniconfig.__file__)"],
                              capture_output=True, text=True, check=True).stdout
    assert imported.startswith(str(release.folder))
    unmade = PythonEnvironment(lambda: Path(sys.executable), lambda: "not made; run X")
    with pytest.raises(history.HistoryError, match="not made; run X"):
        history.environment(history.Release("pluggy", "1.0.0"), [], lambda line: None, over=unmade)


def test_the_gate_names_a_fixed_finding_and_its_upstream_issue() -> None:
    entry = Entry("openvino-cpu", "c", "onnx-opset11", "input", "fail", ("selection",), "wide")
    baseline = Baseline(["openvino-cpu"], {entry.key: entry}, {"wide": "int64 in 32 bits (OV3)."})
    fixed = compare([Result("c", "openvino-cpu", "onnx-opset11", "input", "pass")], baseline,
                    findings={"OV3": "openvino#35824"})
    assert fixed.fixed[0].startswith("fixed: OV3 (openvino#35824): topk c on openvino-cpu")
    new = compare([Result("d", "openvino-cpu", "onnx-opset11", "input", "fail")], baseline,
                  findings={"OV3": "openvino#35824"})
    assert new.regressions[0].startswith("new: ")


def test_the_report_names_the_finding_of_a_discrepancy_and_its_upstream_status(tmp_path: Path) -> None:
    """REF1's minimal case on the reference evaluator: its discrepancy group names REF1 and onnx#8478,
    and the Findings section lists the record."""
    case = "fuzz-onnx-reference-onnx-opset11-error-float32-8d95afe1"
    done = run_cli("run", "--backend", "onnx-reference", "--case", case, "--out", tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    page = open_report(tmp_path / "report.html").dom  # the groups are drawn by the page's script
    group = page[page.index('id="discrepancies"'):page.index('id="matrix"')]
    assert '<a href="#finding-REF1"><b>REF1</b></a>' in group and "onnx#8478" in group
    assert 'id="finding-REF1"' in page and "https://github.com/onnx/onnx/issues/8478" in page


def test_a_repro_that_hangs_in_a_child_is_killed_with_its_child_at_the_limit_given(tmp_path: Path) -> None:
    import time

    root = tmp_path / "findings"
    shutil.copytree(FINDINGS / "OV3", root / "OV3")
    script = load_record(root / "OV3" / "finding.yaml").repro.script
    marker = "987.654"  # a sleep no other process runs
    (root / "OV3" / script).write_text(
        "import subprocess, time\n"
        f"subprocess.Popen(['sleep', '{marker}'])\n"
        "time.sleep(600)\n", encoding="utf-8")
    started = time.monotonic()
    done = run_cli("findings", "--records", root, "check", "OV3", "--timeout", "3")
    assert time.monotonic() - started < 60
    assert done.returncode == 1 and "still running after 3 s" in done.stdout.replace("\n", " "), done.stdout
    left = subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True, text=True, check=False).stdout
    assert not left.strip(), f"the repro's child outlived it: {left}"


def test_a_findings_error_goes_to_stderr_on_one_line() -> None:
    done = run_cli("findings", "report", "NOPE")
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: no finding NOPE (known: "), done.stderr


def test_check_exits_1_when_a_repro_disagrees_with_its_record(tmp_path: Path) -> None:
    """A CI job running `findings check` notices an upstream fix or a stale record: TVM3's repro
    reproduces here; a copy of its record that says it does not (as after a fix) disagrees."""
    pytest.importorskip("tvm", reason="TVM3's repro needs the [tvm] extra")
    root = tmp_path / "findings"
    shutil.copytree(FINDINGS / "TVM3", root / "TVM3")
    agreeing = run_cli("findings", "--records", root, "check", "TVM3")
    assert agreeing.returncode == 0, agreeing.stdout + agreeing.stderr
    record = yaml.safe_load((root / "TVM3" / "finding.yaml").read_text(encoding="utf-8"))
    record["reproduces"] = {"here": False, "why": "as if a release fixed it: K = 0 gives an empty output"}
    (root / "TVM3" / "finding.yaml").write_text(yaml.safe_dump(record), encoding="utf-8")
    done = run_cli("findings", "--records", root, "check", "TVM3")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "DISAGREES with its record" in " ".join(done.stdout.split())
    assert "1 disagree with their records" in done.stdout


def test_check_latest_runs_the_newest_release_and_exits_1_on_a_change(tmp_path: Path) -> None:
    """A scheduled CI job notices an upstream change before the pins move: REF1's repro runs on
    the newest onnx on the package index (installed in the history cache); a copy of its record
    that says it does not reproduce (as after a fix) is a change, exit 1."""
    root = tmp_path / "findings"
    shutil.copytree(FINDINGS / "REF1", root / "REF1")
    done = run_cli("findings", "--records", root, "check", "--latest", timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 as recorded, 0 changed on the newest releases" in " ".join(done.stdout.split())
    record = yaml.safe_load((root / "REF1" / "finding.yaml").read_text(encoding="utf-8"))
    record["reproduces"] = {"here": False, "why": "as if the pinned release did not show it"}
    (root / "REF1" / "finding.yaml").write_text(yaml.safe_dump(record), encoding="utf-8")
    done = run_cli("findings", "--records", root, "check", "--latest", timeout=900)
    assert done.returncode == 1, done.stdout + done.stderr
    said = " ".join(done.stdout.split())
    assert "SHOWS AGAIN in onnx" in said and "1 changed on the newest releases: REF1" in said, said


def test_the_gate_names_only_an_issue_of_the_same_bug_as_a_findings_upstream() -> None:
    """A fixed entry's label is its finding's own upstream issue or fix: AM-ORT4 links only
    TVM's NaN thread (related), so the gate says it has none rather than "tvm#19558"."""
    labels = upstream_labels()
    assert labels["AM-ORT4"] == "no upstream issue"
    assert labels["OV3"] == "openvino#35824"
