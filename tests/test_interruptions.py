"""A run killed, interrupted or sharing its output folder, as a CI runner does to it: every
finished result stays readable, the previous results.json is never left half-written, no
worker outlives the run, and two runs never share one --out."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from harness import REPO

from conformance.results.records import read_results

BACKENDS = ("--backend", "ort-cpu", "--backend", "openvino-cpu")


def _start(out: Path) -> subprocess.Popen[str]:
    env = dict(os.environ, CI="true", COLUMNS="200")
    return subprocess.Popen(
        [sys.executable, "-m", "conformance", "run", *BACKENDS, "--out", str(out)],
        cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def _wait_for_results(out: Path, count: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    stream = out / "results.jsonl"
    while time.monotonic() < deadline:
        if stream.exists() and stream.read_text().count("\n") > count:
            return
        time.sleep(0.1)
    raise AssertionError(f"no {count} results in {timeout} s")


def _children_of(pid: int) -> list[int]:
    listing = subprocess.run(["ps", "-eo", "pid,ppid"], capture_output=True, text=True).stdout.split("\n")[1:]
    return [int(row.split()[0]) for row in listing if row.split() and int(row.split()[1]) == pid]


@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_run_writes_what_it_finished_and_says_so(tmp_path: Path, signum: int, status: int) -> None:
    run = _start(tmp_path)
    _wait_for_results(tmp_path, 20)
    time.sleep(random.uniform(0, 2))  # a random moment of the run
    run.send_signal(signum)
    _, stderr = run.communicate(timeout=60)
    assert run.returncode == status, stderr
    stops = [line for line in stderr.splitlines() if "stopped by" in line]
    assert len(stops) == 1 and "Traceback" not in stderr, stderr
    finished = read_results(tmp_path / "results.json").results
    streamed = read_results(tmp_path / "results.jsonl").results
    assert len(finished) == len(streamed) >= 20
    assert (tmp_path / "report.html").is_file()


def test_a_killed_run_leaves_its_stream_readable_and_no_earlier_run_s_results(tmp_path: Path) -> None:
    """The earlier run's results.json and report.html go when this run starts (issue 28): a
    reader of the folder finds this run's stream, never another run's files looking current."""
    previous = {"environment": {}, "backends": {}, "case_errors": [], "results": []}
    (tmp_path / "results.json").write_text(json.dumps(previous))
    (tmp_path / "report.html").write_text("an earlier run's")
    run = _start(tmp_path)
    _wait_for_results(tmp_path, 20)
    time.sleep(random.uniform(0, 2))
    workers = _children_of(run.pid)
    run.kill()
    run.communicate(timeout=30)
    assert not (tmp_path / "results.json").exists() and not (tmp_path / "report.html").exists()
    streamed = read_results(tmp_path / "results.jsonl").results
    assert len(streamed) >= 20 and all(r.verdict for r in streamed)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in workers):
        time.sleep(0.1)
    orphans = [pid for pid in workers if Path(f"/proc/{pid}").exists()
               and "conformance" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace")]
    assert orphans == [], "workers outlived a SIGKILL of the main process"


def test_a_second_run_on_the_same_out_is_refused(tmp_path: Path) -> None:
    first = _start(tmp_path)
    try:
        _wait_for_results(tmp_path, 1)
        second = _start(tmp_path)
        _, stderr = second.communicate(timeout=120)
        assert second.returncode == 2
        assert "in use by another run" in stderr
    finally:
        first.kill()
        first.communicate(timeout=30)


_HUNG_MAIN = """
import sys
sys.path[:0] = {paths!r}
from fault_backends import HangingBackend, TRIGGER_CASE
from harness import documented
from conformance.ops.topk.variants import Variant
from conformance.running.workers import Worker
worker = Worker(HangingBackend(), timeout=600)
worker.execute(documented(TRIGGER_CASE), Variant("onnx", 10, "constant"))  # starts it
print(worker._process.pid, flush=True)
worker.execute(documented(TRIGGER_CASE), Variant("onnx", 11, "constant"))  # hangs in it
"""


def test_a_hung_worker_dies_with_a_killed_main_process() -> None:
    tests = str(Path(__file__).parent)
    main = subprocess.Popen(
        [sys.executable, "-c", _HUNG_MAIN.format(paths=[tests, str(REPO)])],
        cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    assert main.stdout is not None
    worker_pid = int(main.stdout.readline())
    time.sleep(1)  # the worker is now inside the hanging run
    main.kill()
    main.wait(timeout=30)  # not communicate(): an orphaned worker would hold the pipes open
    main.stdout.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and Path(f"/proc/{worker_pid}").exists():
        time.sleep(0.1)
    alive = Path(f"/proc/{worker_pid}").exists() and "Z" not in Path(f"/proc/{worker_pid}/stat").read_text().split()[2]
    if alive:
        os.kill(worker_pid, signal.SIGKILL)
    assert not alive, "a hung worker outlived the SIGKILL of its main process"


def test_results_files_get_the_same_permissions_as_any_other_file(tmp_path: Path) -> None:
    """results.json is written atomically through a temporary file; it must still be
    readable as the report beside it is (a 0600 results.json breaks artifact uploads)."""
    from conformance.core.atomic_files import atomic_write_text

    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    atomic = tmp_path / "results.json"
    atomic_write_text(atomic, "{}")
    assert atomic.stat().st_mode & 0o777 == plain.stat().st_mode & 0o777
    assert atomic.read_text() == "{}"
