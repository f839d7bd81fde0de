"""The two ONNX Runtime Web backends (`ort-web-wasm` in Node, `ort-web-webgpu` in headless
Chromium), for real: the pinned package and its setup, placement read from ONNX Runtime's
log (a fall-back to the wasm kernels is an error), the reasons either is unavailable, hangs
and kills costing one graph, nothing left running, nothing listening beyond loopback. They
need `topk-conformance setup web`; under CI=true a missing setup fails instead of skipping."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from harness import CASES, DOCUMENTED, REPO, documented, require_available, run_cli
from model_patterns import rpn

from conformance.backends.web import environment, protocol, provision
from conformance.backends.web.browser_host import CHROMIUM_ARGS, BrowserHost
from conformance.backends.web.environment import VERSION, WebSetup, default_setup
from conformance.backends.web.hosts import Host, Hung
from conformance.backends.web.node_host import NodeHost
from conformance.backends.web.ort_web import OrtWebBackend, OrtWebWasm, OrtWebWebGpu
from conformance.cases.loader import load_cases
from conformance.models.running import model_graph
from conformance.models.source import filled_inputs, read_model
from conformance.ops.topk.variants import Variant
from conformance.results.records import Result
from conformance.running.probed import variants_taken
from conformance.running.runner import GraphCache, execute
from conformance.running.workers import takes_here

SETUP = default_setup()
OPSET11 = Variant("onnx", 11, "constant")


@pytest.fixture(scope="module")
def wasm() -> Iterator[OrtWebBackend]:
    backend = require_available(OrtWebWasm(SETUP))
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def webgpu() -> Iterator[OrtWebBackend]:
    backend = require_available(OrtWebWebGpu(SETUP))
    yield backend
    backend.close()


def _run(backend: OrtWebBackend, case_id: str, variant: Variant = OPSET11) -> Result:
    return execute(documented(case_id), backend, variant, GraphCache())


# --- the package, pinned, and its setup ---------------------------------------------------

def test_the_lockfile_pins_the_version_the_backends_name() -> None:
    """`npm ci` installs exactly what package-lock.json lists, each package checked by its
    integrity hash; the backends' descriptions name the same version."""
    package = json.loads((environment.JS / "package.json").read_text())
    lock = json.loads((environment.JS / "package-lock.json").read_text())
    assert package["dependencies"] == {"onnxruntime-web": VERSION}
    assert lock["packages"][""]["dependencies"] == {"onnxruntime-web": VERSION}
    assert lock["packages"]["node_modules/onnxruntime-web"]["version"] == VERSION
    installed = {name: entry for name, entry in lock["packages"].items() if name}
    assert installed and all(entry.get("integrity", "").startswith("sha512-") for entry in installed.values())


def test_setup_a_second_time_does_nothing_again(wasm: OrtWebBackend) -> None:
    said: list[str] = []
    provision.provision(SETUP, said.append)
    assert all("present" in line for line in said), said


def test_the_wheel_ships_the_pages_and_the_lockfile() -> None:
    """`setup web` and the backends read these from the installed package, also from a wheel."""
    shipped = {path.name for path in environment.JS.iterdir()}
    assert {"package.json", "package-lock.json", "host.mjs", "page.html", "session.mjs"} <= shipped
    pyproject = (REPO / "pyproject.toml").read_text()
    assert '"conformance.backends.web" = ["js/*.json", "js/*.mjs", "js/*.html"]' in pyproject


# --- unavailable, and why -------------------------------------------------------------

def test_without_the_npm_package_both_say_setup_web(tmp_path: Path) -> None:
    for backend in (OrtWebWasm(WebSetup(tmp_path)), OrtWebWebGpu(WebSetup(tmp_path))):
        status = backend.availability()
        assert not status.available
        assert f"onnxruntime-web {VERSION} is not installed in {tmp_path}" in status.reason
        assert "topk-conformance setup web" in status.reason


def test_without_node_or_chromium_on_path_each_says_which(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert OrtWebWasm(SETUP).availability().reason.startswith("no Node.js (`node` is not on PATH)")
    assert OrtWebWebGpu(SETUP).availability().reason.startswith("no Chromium (`chromium` is not on PATH)")


def test_a_chromium_that_offers_no_adapter_makes_the_backend_unavailable(webgpu: OrtWebBackend) -> None:
    """Without --enable-unsafe-webgpu, Chromium offers no adapter on a machine whose only one is
    SwiftShader (it is not on Chromium's list): the backend says so, and nothing keeps running."""
    backend = OrtWebWebGpu(SETUP)
    switches = tuple(switch for switch in CHROMIUM_ARGS if switch != "--enable-unsafe-webgpu")
    backend.new_host = lambda: BrowserHost(SETUP, switches=switches)  # type: ignore[method-assign]
    status = backend.availability()
    assert not status.available
    assert status.reason == "Chromium offers no WebGPU adapter (navigator.gpu.requestAdapter() gave none)"
    assert backend._host is None


def test_list_backends_gives_one_line_each_naming_what_is_missing(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOPK_CONFORMANCE_CACHE", str(tmp_path))
    completed = run_cli("run", "--list-backends")
    assert completed.returncode == 0, completed.stderr
    for name in ("ort-web-wasm", "ort-web-webgpu"):
        line = next(line for line in completed.stdout.splitlines() if f" {name} " in line)
        assert "no" in line and "onnxruntime-web" in line and "setup web" in line, line


# --- placement, from ONNX Runtime's own log -------------------------------------------

# Lines ONNX Runtime Web 1.30.0 logged in Chromium for Cast(float32 -> int32) then TopK(int32).
MIXED_LOG = [
    "2026-11-25 21:30:57.684099 [V:onnxruntime:, session_state.cc:1377 VerifyEachNodeIsAssignedToAnEp] Node placements",
    "2026-11-25 21:30:57.684099 [V:onnxruntime:, session_state.cc:1383 VerifyEachNodeIsAssignedToAnEp]  "
    "Node(s) placed on [CPUExecutionProvider]. Number of nodes: 1",
    "2026-11-25 21:30:57.684099 [V:onnxruntime:, session_state.cc:1385 VerifyEachNodeIsAssignedToAnEp]   TopK (topk)",
    "2026-11-25 21:30:57.684099 [V:onnxruntime:, session_state.cc:1383 VerifyEachNodeIsAssignedToAnEp]  "
    "Node(s) placed on [WebGpuExecutionProvider]. Number of nodes: 2",
    "2026-11-25 21:30:57.684199 [V:onnxruntime:, session_state.cc:1385 VerifyEachNodeIsAssignedToAnEp]   Cast (cast)",
    "2026-11-25 21:30:57.684199 [V:onnxruntime:, session_state.cc:1385 VerifyEachNodeIsAssignedToAnEp]   "
    "MemcpyToHost (Memcpy)",
    "2026-11-25 21:30:57.684199 [W:onnxruntime:, session_state.cc:1397 VerifyEachNodeIsAssignedToAnEp] Some nodes "
    "were not assigned to the preferred execution providers which may or may not have an negative impact",
]


def test_placement_lines_are_read_per_node_where_the_graph_is_split() -> None:
    lines = protocol.placement_lines(MIXED_LOG)
    assert lines[:2] == ["Node(s) placed on [CPUExecutionProvider]. Number of nodes: 1", "TopK (topk)"]
    assert protocol.placements(lines) == {
        "TopK": {"CPUExecutionProvider"}, "Cast": {"WebGpuExecutionProvider"},
        "MemcpyToHost": {"WebGpuExecutionProvider"},
    }
    backend = OrtWebWebGpu(SETUP)
    with pytest.raises(Exception, match=r"TopK fell back to CPUExecutionProvider \(the wasm kernels\)"):
        backend.check_placement(lines, "TopK", failed=False)
    assert backend.check_placement(lines, "Cast", failed=False).startswith("WebGpuExecutionProvider (")


def test_a_graph_that_ran_with_no_placement_logged_is_an_error() -> None:
    with pytest.raises(Exception, match="logged no placement of the TopK node"):
        OrtWebWebGpu(SETUP).check_placement([], "TopK", failed=False)


def test_float32_topk_passes_on_the_webgpu_provider_and_says_so(webgpu: OrtWebBackend) -> None:
    result = _run(webgpu, "dml-top-k1-example-1")
    assert result.verdict == "pass", result.message
    assert "All nodes placed on [WebGpuExecutionProvider]" in result.placement


def test_int64_topk_falls_back_to_the_wasm_kernels_and_is_an_error_naming_it(webgpu: OrtWebBackend) -> None:
    result = _run(webgpu, "onnx-test-top-k-same-values")
    assert result.verdict == "error"
    assert "TopK fell back to CPUExecutionProvider (the wasm kernels), not WebGpuExecutionProvider" in result.message


def test_wasm_runs_the_documented_example_on_the_cpu_provider(wasm: OrtWebBackend) -> None:
    result = _run(wasm, "dml-top-k1-example-1")
    assert result.verdict == "pass", result.message
    assert "All nodes placed on [CPUExecutionProvider]" in result.placement
    assert result.compile_seconds is not None and result.run_seconds is not None


def test_descriptions_name_the_adapter_the_browser_and_the_versions(wasm: OrtWebBackend,
                                                                    webgpu: OrtWebBackend) -> None:
    gpu = webgpu.describe()
    assert gpu["onnxruntime-web"] == VERSION and gpu["browser"].startswith("Chromium ")
    assert {"adapter_vendor", "adapter_architecture", "adapter_description"} <= set(gpu)
    assert gpu["adapter_architecture"] in gpu["device"]
    cpu = wasm.describe()
    assert cpu["onnxruntime-web"] == VERSION and cpu["node"].split(".")[0].isdigit()


def test_a_session_whose_run_failed_is_not_run_again(webgpu: OrtWebBackend) -> None:
    """Graph reuse hands edge-k-negative the session edge-k-too-large opened (the same graph,
    K an input): that run failed (K > n), and under WebGPU a failed session's next run never
    returns (findings.md). The host releases a session whose run failed, so the second graph
    gets its own answer at once."""
    cases = {case.id: case for case in load_cases([CASES / "edge" / "k_range.yaml"]).cases}
    variant, graphs = Variant("onnx", 10, "input"), GraphCache()
    first = execute(cases["edge-k-too-large"], webgpu, variant, graphs)
    second = execute(cases["edge-k-negative"], webgpu, variant, graphs)
    assert first.verdict == second.verdict == "pass", (first.message, second.message)  # refused, as expected
    assert "k must be non-negative" in second.message and "hung" not in second.message


# --- hangs and deaths cost one graph --------------------------------------------------

class _Hanging:
    """Fault injection: the hosts this backend starts stop answering (Node is stopped; the
    page's run never settles), the first `hanging` of them or all."""

    def __init__(self, backend: OrtWebBackend, hanging: int | None) -> None:
        self.backend, self.hanging, self.started = backend, hanging, 0
        self.make: Callable[[], Host] = backend.new_host

    def __call__(self) -> Host:
        host = self.make()
        start = host.start

        def start_then_hang() -> None:
            start()
            self.started += 1
            if self.hanging is None or self.started <= self.hanging:
                # Given up on after 2 s; a host that answers keeps its own limit (its first graph
                # took over 2 s beside another test worker).
                host.timeout = 2.0  # type: ignore[attr-defined]
                if isinstance(host, NodeHost):
                    assert host._process is not None
                    os.kill(host._process.pid, signal.SIGSTOP)
                else:
                    assert isinstance(host, BrowserHost)
                    host._page.evaluate("() => { window.topk.run = () => new Promise(() => {}); }")

        host.start = start_then_hang  # type: ignore[method-assign]
        return host


@pytest.mark.parametrize("kind", [OrtWebWasm, OrtWebWebGpu])
def test_a_host_that_hangs_once_is_replaced_and_the_graph_asked_again(kind: type[OrtWebBackend]) -> None:
    backend = require_available(kind(SETUP))
    backend.close()
    backend.new_host = _Hanging(backend, hanging=1)  # type: ignore[method-assign]
    result = _run(backend, "dml-top-k1-example-1")
    backend.close()
    assert result.verdict == "pass", result.message
    assert "answered by a fresh host; the one before hung" in result.placement
    assert "no answer in 2 s" in result.placement


@pytest.mark.parametrize("kind", [OrtWebWasm, OrtWebWebGpu])
def test_a_hang_that_repeats_is_a_crash_and_a_fresh_host_takes_the_next_graph(kind: type[OrtWebBackend]) -> None:
    backend = require_available(kind(SETUP))
    backend.close()
    hanging = _Hanging(backend, hanging=2)
    backend.new_host = hanging  # type: ignore[method-assign]
    hung = _run(backend, "dml-top-k1-example-1")
    after = _run(backend, "dml-top-k1-example-1")
    backend.close()
    assert hung.verdict == "crash"
    assert hung.message.count("no answer in 2 s") == 2, hung.message
    assert after.verdict == "pass" and hanging.started == 3, after.message


def test_a_users_model_is_given_its_own_time_limit_not_a_case_graphs(tmp_path: Path) -> None:
    """A whole model may run far longer than a case's graph: the host waits 0.45 of the model
    command's limit (a hang and its retry within it), not its own per-request limit."""
    backend = require_available(OrtWebWasm(SETUP))
    backend.close()
    backend.new_host = _Hanging(backend, hanging=2)  # type: ignore[method-assign]
    source = read_model(rpn(tmp_path / "rpn.onnx"))
    graph = model_graph(source.model, source.opset, filled_inputs(source, "tiles", 0, {}),
                        tuple(value.name for value in source.model.graph.output), time_limit=10.0)
    with pytest.raises(Hung) as hung:
        backend.run(graph)
    backend.close()
    assert str(hung.value).count("no answer in 4.5 s") == 2, hung.value

def _marked(mark: str) -> list[tuple[int, str]]:
    """The processes whose environment holds TOPK_TEST_RUN=`mark`: (pid, command line)."""
    entry = f"TOPK_TEST_RUN={mark}".encode()
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if entry in environ.read_bytes().split(b"\0"):
                command = (environ.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                found.append((int(environ.parent.name), command))
        except OSError:  # gone, or not ours to read
            continue
    return found


def _group(group: int) -> list[tuple[int, str]]:
    """The processes of a process group: (pid, command line)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if os.getpgid(int(cmdline.parent.name)) == group:
                found.append((int(cmdline.parent.name), cmdline.read_bytes().replace(b"\0", b" ").decode()))
        except OSError:  # gone
            continue
    return found


def _start_run(tmp_path: Path, backend: str, mark: str) -> subprocess.Popen[str]:
    env = dict(os.environ, CI="true", COLUMNS="400", TOPK_TEST_RUN=mark)
    return subprocess.Popen(
        [sys.executable, "-m", "conformance", "run", "--backend", backend, "--cases", str(DOCUMENTED),
         "--jobs", "1", "--out", str(tmp_path)],
        cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def _results_so_far(out: Path) -> int:
    stream = out / "results.jsonl"
    return stream.read_text().count("\n") if stream.exists() else 0


def _wait_for(condition: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(0.05)


@pytest.mark.parametrize(("backend", "target", "said"), [
    ("ort-web-webgpu", "--remote-debugging-port=0", "the browser failed the request"),
    ("ort-web-webgpu", "--type=renderer", "the browser failed the request"),
    ("ort-web-webgpu", "--type=gpu-process", "the page's GPU device was lost"),
    ("ort-web-wasm", "host.mjs", "the Node host died (signal 9)"),
])
def test_killing_the_browser_or_node_mid_run_costs_one_crash_and_the_run_goes_on(
        tmp_path: Path, backend: str, target: str, said: str) -> None:
    """kill -9 of Chromium's browser process, the page's renderer, the GPU process (or of the
    Node host) while a run is under way: the graph it was running is a `crash`, every other
    graph gets its answer from a fresh browser (after a lost GPU device, none is vouched for)."""
    require_available(OrtWebWasm(SETUP) if backend == "ort-web-wasm" else OrtWebWebGpu(SETUP))
    mark = str(uuid.uuid4())
    run = _start_run(tmp_path, backend, mark)
    _wait_for(lambda: _results_so_far(tmp_path) >= 20, 120)
    victims = [pid for pid, command in _marked(mark) if target in command and "--type=" not in command]
    if target.startswith("--type="):
        # Chromium's renderers and GPU process hide their environment: found by the browser's
        # process group instead (every renderer, where there are several: ours among them).
        browser = next(pid for pid, command in _marked(mark) if "--remote-debugging-port=0" in command)
        victims = [pid for pid, command in _group(os.getpgid(browser)) if target in command]
    assert victims and (len(victims) == 1 or target == "--type=renderer"), _marked(mark)
    for victim in victims:
        os.kill(victim, signal.SIGKILL)
    _, stderr = run.communicate(timeout=300)
    assert run.returncode == 0, stderr[-3000:]
    results = json.loads((tmp_path / "results.json").read_text())["results"]
    crashes = [r for r in results if r["verdict"] == "crash"]
    assert len(crashes) <= 1, crashes  # none where the kill fell between two graphs
    assert all(crash["message"].startswith(said) for crash in crashes), crashes
    web = OrtWebWasm(SETUP) if backend == "ort-web-wasm" else OrtWebWebGpu(SETUP)
    every = sum(len(variants_taken(takes_here(web), case)) for case in load_cases([DOCUMENTED]).cases)
    assert len(results) == every and sum(r["verdict"] == "pass" for r in results) >= 80
    late = [r for r in results[-40:] if r["verdict"] == "pass"]
    assert late, "graphs after the kill passed on a fresh host"


@pytest.mark.parametrize("backend", ["ort-web-webgpu", "ort-web-wasm"])
def test_nothing_outlives_a_run_killed_with_sigkill(tmp_path: Path, backend: str) -> None:
    require_available(OrtWebWasm(SETUP) if backend == "ort-web-wasm" else OrtWebWebGpu(SETUP))
    mark = str(uuid.uuid4())
    run = _start_run(tmp_path, backend, mark)
    _wait_for(lambda: _results_so_far(tmp_path) >= 5, 120)
    assert any(("chromium" if backend == "ort-web-webgpu" else "node") in command for _, command in _marked(mark))
    run.kill()
    run.communicate(timeout=30)
    _wait_for(lambda: not _marked(mark), 15)


def test_nothing_the_webgpu_backend_starts_listens_beyond_loopback(webgpu: OrtWebBackend) -> None:
    """The page's server and Chromium's DevTools port are on 127.0.0.1; no socket of the
    browser's listens on any other address."""
    host = webgpu.host()
    assert isinstance(host, BrowserHost) and host._chromium is not None and host._server is not None
    assert host._server.server_address[0] == "127.0.0.1"
    group = os.getpgid(host._chromium.pid)
    sockets = set()
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        try:
            if os.getpgid(int(fd_dir.parent.name)) != group:
                continue
            sockets |= {os.readlink(fd)[8:-1] for fd in fd_dir.iterdir() if os.readlink(fd).startswith("socket:[")}
        except OSError:
            continue
    listening = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            if fields[3] == "0A" and fields[9] in sockets:  # LISTEN
                listening.append(fields[1])
    assert listening, "Chromium's DevTools port listens"
    loopback = ("0100007F:", "00000000000000000000000001000000:")
    assert all(address.startswith(loopback) for address in listening), listening



def test_setup_web_without_its_registry_is_one_line_naming_npms_kept_log(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """npm pointed at a registry that refuses connections: one line on stderr, npm's error code
    and the log kept where the line says, no stack frames on stdout."""
    monkeypatch.setenv("TOPK_CONFORMANCE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")  # nothing listens on the discard port
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    completed = run_cli("setup", "web", timeout=600)
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "    at " not in completed.stdout + completed.stderr, "npm's stack frames"
    (line,) = [line for line in completed.stderr.splitlines() if "setup web stopped" in line]
    assert "`npm ci`" in line and "failed (exit" in line, line
    log = line.rpartition("npm's log: ")[2].strip()
    assert log.endswith(".log") and Path(log).is_file(), line


def test_a_damaged_install_is_unavailable_not_every_graphs_error(tmp_path: Path) -> None:
    """The .wasm files cut short: both backends say the install is damaged (was: available, and
    every graph an `error` charged to ONNX Runtime Web)."""
    require_available(OrtWebWasm(SETUP))
    copy = WebSetup(tmp_path / "web")
    shutil.copytree(SETUP.package_dir, copy.package_dir, symlinks=True)
    shutil.copyfile(SETUP.state_file, copy.state_file)
    assert not copy.package_missing(), "an intact copy is as good as the install"
    for wasm in copy.dist.glob("*.wasm"):
        with wasm.open("r+b") as handle:
            handle.truncate(1000)
    for backend in (OrtWebWasm(copy), OrtWebWebGpu(copy)):
        status = backend.availability()
        assert not status.available and "is damaged" in status.reason and "setup web" in status.reason, status


def test_a_web_run_and_a_killed_one_leave_nothing_in_the_temporary_folder(tmp_path: Path) -> None:
    """Chromium's org.chromium.Chromium.* folders, its profile, Crashpad's reports, Playwright's
    artefacts and the workers' stderr files: in folders of the suite's own, removed at the end
    of a run, and, where a run was killed, by the next one."""
    require_available(OrtWebWebGpu(SETUP))
    # A short path, as /tmp is: Chromium's sockets go there (at most 107 bytes a path).
    temporary = Path(tempfile.mkdtemp(prefix="topk-test-"))
    env = dict(os.environ, CI="true", TMPDIR=str(temporary))
    command = [sys.executable, "-m", "conformance", "run", "--backend", "ort-web-webgpu", "--backend",
               "ort-web-wasm", "--cases", str(DOCUMENTED), "--jobs", "1"]
    done = subprocess.run([*command, "--case", "dml-top-k1-example-1", "--out", str(tmp_path / "one")], cwd=REPO,
                          env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert list(temporary.iterdir()) == [], "a run leaves nothing"
    killed = subprocess.Popen([*command, "--out", str(tmp_path / "killed")], cwd=REPO, env=env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait_for(lambda: _results_so_far(tmp_path / "killed") >= 5, 120)
    killed.kill()
    killed.wait(timeout=30)
    time.sleep(3)  # its workers and browsers die with it
    done = subprocess.run([*command, "--case", "dml-top-k1-example-1", "--out", str(tmp_path / "next")], cwd=REPO,
                          env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    left = list(temporary.iterdir())
    assert left == [], "the next run removes what a killed one left"
    interrupted = subprocess.Popen([*command, "--out", str(tmp_path / "interrupted")], cwd=REPO, env=env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait_for(lambda: _results_so_far(tmp_path / "interrupted") >= 5, 120)
    interrupted.send_signal(signal.SIGINT)
    assert interrupted.wait(timeout=60) == 130
    left = list(temporary.iterdir())
    shutil.rmtree(temporary, ignore_errors=True)
    assert left == [], "an interrupted run removes its own"
