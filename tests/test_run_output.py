"""What `topk-conformance run` prints, as a person (or a CI log) meets it (issue 30): the
backends left out and why, a progress line with the time left that does not flood a log,
tables whole when stdout is a pipe with the verdicts last, every `-` of the time table
explained, messages that survive rich's markup, a runtime's noise kept off the terminal,
`--list-backends` saying what it waits for, and no lock file left behind."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fault_backends import MisbehavingBackend
from harness import DOCUMENTED, REPO, require_available
from plugin_entries import PluginEntry
from rich.console import Console

from conformance import cli
from conformance.backends.base import INTERFACE_VERSION, Availability, Execution, Graph
from conformance.backends.install_hint import extra_hint
from conformance.backends.onnx_reference import OnnxReference
from conformance.backends.registry import UnusablePlugin, all_backends
from conformance.backends.tract_onnx import Tract
from conformance.progress import RunProgress, cliff_lines
from conformance.results.output import LOCK_NAME, OutputFolder
from conformance.results.records import Result, ResultsFile, merge, read_results, write_results
from conformance.running.probed import carried
from conformance.running.workers import Probe

CASE = "dml-top-k1-example-3"
NOISY_CASE = "dml-top-k1-example-1"  # the graph of it that NoisyBackend panics on
PANIC_LABEL = "onnx-opset11-constant"


def run_piped(*args: str | Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """`python -m conformance ARGS` with stdout a pipe and no COLUMNS: a CI log, or `| tee`."""
    env = dict(os.environ, CI="true")
    for name in ("COLUMNS", "LINES", "FORCE_COLOR"):
        env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "conformance", *map(str, args)], cwd=REPO, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout, check=False)


@dataclass(frozen=True)
class DefaultRun:
    completed: subprocess.CompletedProcess[str]
    out: Path
    document: dict[str, Any]

    @property
    def lines(self) -> list[str]:
        return self.completed.stdout.splitlines()


@pytest.fixture(scope="module")
def default_run(tmp_path_factory: pytest.TempPathFactory) -> DefaultRun:
    """The README's run (every backend available here), on one case, piped."""
    out = tmp_path_factory.mktemp("default")
    completed = run_piped("run", "--cases", DOCUMENTED, "--case", CASE, "--out", out)
    assert completed.returncode == 0, completed.stderr
    return DefaultRun(completed, out, json.loads((out / "results.json").read_text(encoding="utf-8")))


# --- 1. the backends left out ---------------------------------------------------------------

def test_a_default_run_names_every_backend_it_leaves_out_and_why(default_run: DefaultRun) -> None:
    ran = {result["backend"] for result in default_run.document["results"]}
    left_out = default_run.document["environment"]["left_out"]
    by_name = {entry["backend"]: entry["reason"] for entry in left_out}
    everything = {backend.name: backend for backend in all_backends()}
    # Every backend either ran or is left out with a reason, never both, never neither.
    assert ran | set(by_name) == set(everything) and not ran & set(by_name), (ran, by_name)
    assert all(reason for reason in by_name.values()), left_out
    for name, backend in everything.items():
        if not backend.by_default:
            assert by_name[name] == "run only when named (--backend NAME)"
    line = next(line for line in default_run.lines if line.startswith("left out: "))
    assert default_run.lines.index(line) < next(i for i, text in enumerate(default_run.lines)
                                                if text.startswith("progress:")), "said at the start"
    for name in by_name:
        assert re.search(rf"(^|[ ,;:]){re.escape(name)}[ ,.]", line.removeprefix("left out:")), (name, line)
    # The counts add up: the backends asked are those that ran and those that cannot run here.
    asked = int(re.search(r"^asking (\d+) backends? whether", "\n".join(default_run.lines), re.M).group(1))
    cannot = int(re.search(r"left out: (\d+) that cannot run here", line).group(1))
    assert asked == len(ran) + cannot, (asked, ran, line)


def test_a_backend_named_but_unavailable_is_left_out_with_its_reason_unmangled(
    entry_points: list[PluginEntry], tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """--allow-unavailable: its graphs are skips, and the start says why, brackets and all."""
    reason = "install the [tract] extra (pip install 'topk-conformance[tract]')"
    unavailable = MisbehavingBackend("availability", Availability(False, reason), name="vendor-npu")
    entry_points.append(PluginEntry("vendor", lambda: [unavailable]))
    out = tmp_path / "out"
    assert cli.main(["run", "--cases", str(DOCUMENTED), "--case", CASE, "--backend", "onnx-reference",
                     "--backend", "vendor-npu", "--allow-unavailable", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "left out: 1 that cannot run here: vendor-npu (install the [tract] extra)" in printed, printed
    document = read_results(out / "results.json")  # checked against the schema
    assert document.environment["left_out"] == [{"backend": "vendor-npu", "reason": reason}]


def test_merge_keeps_the_backends_no_file_ran() -> None:
    ran_tract = ResultsFile({"machine": "b", "left_out": [{"backend": "ort-cuda", "reason": "no GPU"}]},
                            {"tract": {"available": True}}, [],
                            [Result(CASE, "tract", "onnx-opset11", "constant", "pass")])
    without_tract = ResultsFile(
        {"machine": "a", "left_out": [{"backend": "ort-cuda", "reason": "no CUDA"},
                                      {"backend": "tract", "reason": "not installed"}]},
        {"ort-cpu": {"available": True}}, [], [Result(CASE, "ort-cpu", "onnx-opset11", "constant", "pass")])
    merged = merge([without_tract, ran_tract]).data
    assert merged.environment["left_out"] == [{"backend": "ort-cuda", "reason": "no CUDA"}]
    assert [e["left_out"] for e in merged.environment["merged"]] == [without_tract.environment["left_out"],
                                                                    ran_tract.environment["left_out"]]


def test_left_out_is_a_field_of_the_results_schema(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    write_results(path, ResultsFile({"left_out": [{"backend": "ort-cuda", "reason": "no GPU"}]}, {}, [], []))
    assert read_results(path).notes == []
    write_results(path, ResultsFile({"left_out": [{"backend": "ort-cuda"}]}, {}, [], []))
    with pytest.raises(Exception, match="left_out"):
        read_results(path)


# --- 2. progress ------------------------------------------------------------------------------

PLAIN_LINE = re.compile(r"progress: (\d+)/(\d+) done \(\d+%\), \S+ elapsed, about \S+ left; ")


def test_plain_progress_says_the_time_left_at_most_every_tenth(capsys: pytest.CaptureFixture[str]) -> None:
    console = Console(file=io.StringIO(), force_terminal=False)
    result = Result(CASE, "ort-cpu", "onnx-opset11", "constant", "pass")
    with RunProgress(1000, console, plain_seconds=3600) as progress:
        for _ in range(1000):
            progress.add(result)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 10 and all(PLAIN_LINE.match(line) for line in lines), lines
    assert lines[-1].startswith("progress: 1000/1000 done (100%)")


def test_plain_progress_speaks_after_its_interval_between_tenths(capsys: pytest.CaptureFixture[str]) -> None:
    console = Console(file=io.StringIO(), force_terminal=False)
    result = Result(CASE, "ort-cpu", "onnx-opset11", "constant", "pass")
    with RunProgress(1000, console, plain_seconds=0.0) as progress:
        progress.add(result)
        progress.add(result)
    lines = capsys.readouterr().out.splitlines()
    assert [PLAIN_LINE.match(line).group(1) for line in lines] == ["1", "2"], lines  # type: ignore[union-attr]


def test_a_piped_run_prints_a_few_progress_lines(default_run: DefaultRun) -> None:
    progress = [line for line in default_run.lines if line.startswith("progress:")]
    assert 1 <= len(progress) <= 11, progress
    assert all(PLAIN_LINE.match(line) for line in progress), progress


# --- 3. whole tables, the verdicts last, a short list of cliffs --------------------------------

def test_piped_tables_keep_every_column_and_the_verdicts_come_last(default_run: DefaultRun) -> None:
    stdout = default_run.completed.stdout
    assert "…" not in stdout, stdout
    ran = {result["backend"] for result in default_run.document["results"]}
    header = next(line for line in default_run.lines if "divergent" in line and "pass rate" in line)
    assert [cell.strip() for cell in header.strip("┃").split("┃")][-7:] == [
        "pass", "divergent", "fail", "error", "crash", "skip", "pass rate"]
    rows = {line.split("│")[1].strip() for line in default_run.lines if line.startswith("│")}
    assert ran <= rows, (ran, rows)
    assert stdout.index("Time per backend") < stdout.index("conformance: verdicts per backend")
    assert default_run.lines[-1].startswith("└"), "the verdict table's last line ends the output"


def test_the_cliff_list_is_the_ten_worst_and_a_count() -> None:
    flagged = [Result(f"case-{n}", "openvino-cpu", "onnx-opset11", "constant", "pass", run_seconds=1.0,
                      cliff={"ratio": 100 + n, "run_seconds": 1.0, "others_median": 0.01, "others": ["ort-cpu"]})
               for n in range(25)]
    lines = cliff_lines(flagged)
    assert len(lines) == 12 and "case-24 " in lines[1] and "case-15 " in lines[10], lines
    assert "15 more" in lines[-1] and "report.html" in lines[-1]


# --- 4. every `-` of the time table explained --------------------------------------------------

def test_every_untimed_backend_of_the_time_table_is_explained(default_run: DefaultRun) -> None:
    table = default_run.completed.stdout.split("Time per backend", 1)[1].split("wrote ", 1)[0]
    untimed = [line.split("│")[1].strip() for line in table.splitlines()
               if line.startswith("│") and line.split("│")[3].strip() == "-"]
    for name in untimed:
        assert re.search(rf"^ *-: {re.escape(name)}: \S", table, re.M), (name, table)
    wine = [name for name in ("directml-wine", "ort-dml-wine") if name in untimed]
    for name in wine:
        assert f"-: {name}: compilation and execution are one request to bridge.exe" in table


# --- 5. messages that survive the formatter ---------------------------------------------------

def test_a_reason_with_brackets_is_printed_as_it_is() -> None:
    reason = "install the [tract] extra ([bold]not markup[/])"
    backend = UnusablePlugin("vendor-npu", reason)
    console = Console(file=io.StringIO(), width=300)
    console.print(cli._backend_table([carried(backend, Probe(Availability(False, reason), {}))]))
    assert reason in console.file.getvalue()  # type: ignore[attr-defined]


def test_the_install_hint_fits_how_the_suite_was_installed(tmp_path: Path) -> None:
    assert "pip install -e '.[tract]' -c constraints.txt" in extra_hint("tract", root=REPO)
    wheel = extra_hint("tract", "tract==0.23.9", root=tmp_path)  # site-packages: no pyproject.toml beside
    assert "pip install 'topk-conformance[tract]'" in wheel and "-e" not in wheel and "tract==0.23.9" in wheel


# --- 6. a runtime's noise stays off the terminal -----------------------------------------------

def _write(text: str) -> None:
    os.write(1, f"noisy: {text} on stdout\n".encode())  # as native code writes: below Python
    os.write(2, f"noisy: {text} on stderr\n".encode())


class NoisyBackend(OnnxReference):
    """onnx-reference that talks as native runtimes do, on its worker's stdout and stderr: as
    it is unpickled in a starting worker, as it warms up, on every run; and panics (a Rust
    panic's lines and backtrace, then an abort) on one graph."""

    name = "noisy"
    interface_version = INTERFACE_VERSION

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        _write("unpickled")

    def warm_up(self) -> None:
        _write("warming up")

    def run(self, graph: Graph) -> Execution:
        _write("native log")
        if graph.model.graph.name == f"topk_{NOISY_CASE}" and graph.variant.label == PANIC_LABEL:
            os.write(2, b"thread '<unnamed>' panicked at src/lib.rs:1:1: noisy panic\nstack backtrace:\n"
                        + b"   0: noisy::frame\n" * 200)
            os.abort()
        return super().run(graph)


def test_what_a_runtime_prints_stays_off_the_terminal(
    entry_points: list[PluginEntry], tmp_path: Path, capfd: pytest.CaptureFixture[str],
) -> None:
    entry_points.append(PluginEntry("vendor", lambda: [NoisyBackend()]))
    out = tmp_path / "out"
    assert cli.main(["run", "--cases", str(DOCUMENTED), "--case", NOISY_CASE, "--backend", "noisy",
                     "--out", str(out)]) == 0
    printed = capfd.readouterr()
    assert "noisy" not in printed.err and "noisy:" not in printed.out, printed
    crashed = [r for r in read_results(out / "results.json").results if r.verdict == "crash"]
    assert [r.graph + "-" + r.k_source for r in crashed] == [PANIC_LABEL], crashed
    assert "it printed: thread '<unnamed>' panicked at src/lib.rs:1:1: noisy panic" in crashed[0].message
    assert "noisy::frame" not in crashed[0].message  # the backtrace is not the message


def test_tract_panics_become_crash_results_not_terminal_output(tmp_path: Path) -> None:
    require_available(Tract())
    completed = run_piped("run", "--cases", REPO / "cases" / "edge" / "k_range.yaml", "--case", "edge-k-negative",
                          "--backend", "tract", "--out", tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert completed.stderr == "", completed.stderr
    assert "panicked" not in completed.stdout
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))["results"]
    crashed = [r for r in results if r["verdict"] == "crash"]
    assert crashed and all("it printed: " in r["message"] and "panicked at" in r["message"] for r in crashed)


# --- 7. --list-backends says what it waits for --------------------------------------------------

def test_list_backends_prints_each_answer_as_it_comes() -> None:
    completed = run_piped("run", "--list-backends")
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    names = [backend.name for backend in all_backends()]
    assert lines[0].startswith(f"asking {len(names)} backends") and all(name in lines[0] for name in names)
    answers = [re.fullmatch(r"  (\S+): (available|not available: .+) \((\d+\.\d) s\)", line) for line in lines[1:]]
    answered = [match for match in answers[:len(names)] if match]
    assert sorted(match.group(1) for match in answered) == sorted(names), lines
    seconds = [float(match.group(3)) for match in answered]
    assert seconds == sorted(seconds), "each said as it came"
    assert lines[len(names) + 1].strip() == "Backends", "then the table"


# --- 8. no lock left behind --------------------------------------------------------------------

def test_a_finished_run_leaves_no_lock_file(default_run: DefaultRun) -> None:
    assert not (default_run.out / LOCK_NAME).exists()
    assert sorted(path.name for path in default_run.out.iterdir()) == ["report.html", "results.json", "results.jsonl"]


def test_the_lock_holds_while_the_run_does(tmp_path: Path) -> None:
    from conformance.results.output import FolderInUse

    with OutputFolder(tmp_path):
        assert (tmp_path / LOCK_NAME).is_file()
        with pytest.raises(FolderInUse), OutputFolder(tmp_path):
            pass
    assert not (tmp_path / LOCK_NAME).exists()
    with OutputFolder(tmp_path):  # and the next run takes it again
        assert (tmp_path / LOCK_NAME).is_file()
