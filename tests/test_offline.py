"""A run talks to nothing beyond the loopback and installs nothing (issue 36): a worker refuses,
as a Python exception, a connection or name lookup beyond the loopback and the start of an
installer; MNN's conversion, the case in point (its `mnnconvert` script runs pip and sends
usage data), runs with pip replaced by a program that fails loudly, and with no network."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from harness import REPO

from conformance.backends.cache import cache_root
from conformance.core.offline import installer, local


@pytest.mark.parametrize(("command", "found"), [
    (["pip", "install", "x"], "pip"), (["/usr/bin/pip3.11", "install", "x"], "pip3.11"),
    ([sys.executable, "-m", "pip", "install", "-U", "aliyun-log-python-sdk"], f"{Path(sys.executable).name} -m pip"),
    ("pip install aliyun-log-python-sdk", "pip"), (["uv", "pip", "install"], "uv"), (["npm", "ci"], "npm"),
    (["clang", "-O2", "x.c"], ""), (["wine", "bridge.exe"], ""), (["node", "page.mjs"], ""), ([], ""),
])
def test_installers_are_recognized_and_compilers_are_not(command: list[str] | str, found: str) -> None:
    assert installer(command) == found


@pytest.mark.parametrize(("host", "is_local"), [
    ("127.0.0.1", True), ("::1", True), ("localhost", True), (None, True), ("127.8.9.10", True),
    ("8.8.8.8", False), ("example.com", False), ("cn-hangzhou.log.aliyuncs.com", False), ("::ffff:1.2.3.4", False),
])
def test_only_the_loopback_is_local(host: str | None, is_local: bool) -> None:
    assert local(host) is is_local


def test_a_guarded_process_refuses_the_network_and_installers_and_keeps_the_loopback() -> None:
    script = (
        "import socket, subprocess, sys\n"
        "from conformance.core.offline import forbid_network_and_installs, Refused\n"
        "forbid_network_and_installs()\n"
        "said = []\n"
        "for attempt in (lambda: socket.create_connection(('192.0.2.1', 80), timeout=1),\n"
        "                lambda: socket.getaddrinfo('pypi.org', 443),\n"
        "                lambda: subprocess.run([sys.executable, '-m', 'pip', '--version']),\n"
        "                lambda: subprocess.run('pip install x', shell=True)):\n"
        "    try:\n"
        "        attempt()\n"
        "        said.append('allowed')\n"
        "    except Refused as refused:\n"
        "        said.append(str(refused))\n"
        "server = socket.socket(); server.bind(('127.0.0.1', 0)); server.listen()\n"
        "socket.create_connection(server.getsockname(), timeout=1).close()\n"
        "said.append(subprocess.run(['true']).returncode)\n"
        "print(said)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    said = done.stdout.strip()
    assert "a network connection to 192.0.2.1" in said and "a name lookup of pypi.org" in said
    assert said.count("(a run installs nothing)") == 2 and "allowed" not in said and said.endswith(", 0]")


def test_a_process_that_only_refuses_the_network_refuses_it_in_what_it_forks_and_may_install() -> None:
    """The tests' own process (conftest): `import openvino` reports usage from a forked child,
    which must meet the refusal too; the tests still make environments with pip."""
    script = (
        "import multiprocessing, socket, subprocess, sys\n"
        "from conformance.core.offline import refuse_network\n"
        "refuse_network()\n"
        "child = multiprocessing.get_context('fork').Process(target=socket.getaddrinfo, args=('pypi.org', 443))\n"
        "child.start(); child.join()\n"
        "pip = subprocess.run([sys.executable, '-m', 'pip', '--version'], capture_output=True).returncode\n"
        "print(child.exitcode, pip)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["1", "0"], done.stdout + done.stderr
    assert "a name lookup of pypi.org" in done.stderr


def _offline() -> list[str]:
    """A command prefix that runs with no network at all, where this machine allows it."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-rn", "true"], capture_output=True, check=False).returncode == 0:
        return [unshare, "-rn"]
    return []


def test_mnn_converts_and_runs_with_pip_a_trap_and_no_network(tmp_path: Path) -> None:
    pytest.importorskip("MNN", reason="the [mnn] extra is not installed")
    trap = tmp_path / "bin"
    trap.mkdir()
    tripped = tmp_path / "pip-was-run"
    for name in ("pip", "pip3"):
        (trap / name).write_text(f"#!/bin/sh\necho \"$0 $*\" > {tripped}\necho 'pip must not run' >&2\nexit 97\n")
        (trap / name).chmod(0o755)
    env = dict(os.environ, PATH=f"{trap}{os.pathsep}{os.environ['PATH']}", CI="true")
    command = [*_offline(), sys.executable, "-m", "conformance", "run", "--backend", "mnn-cpu", "--cases",
               str(REPO / "cases/documented/onnx-backend-node.yaml"), "--out", str(tmp_path / "out")]
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=600,
                          stdin=subprocess.DEVNULL, check=False)
    assert not tripped.exists(), tripped.read_text()
    results = json.loads((tmp_path / "out" / "results.json").read_text())["results"]
    ran = [r for r in results if r["backend"] == "mnn-cpu" and r["verdict"] != "skip"]
    assert ran and all(r["verdict"] in ("pass", "fail", "divergent") for r in ran), done.stdout[-2000:]


def test_a_run_leaves_onnx_runtime_no_device_id_or_usage_queue(tmp_path: Path) -> None:
    """ONNX Runtime 1.29 and later keep, on Linux, a device id and a queue of usage events to
    upload (in the home's cache, and a session file in the temporary folder): native code the
    audit hook cannot see, switched off by ORT_DISABLE_TELEMETRY=1 in the run's processes. The
    run here starts from an environment without it, and without CI (ONNX Runtime sends nothing
    where CI is set, as in this suite's own CI), with a home and a temporary folder of its own."""
    home, temporary = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    temporary.mkdir()
    env = {name: value for name, value in os.environ.items()
           if name not in ("ORT_DISABLE_TELEMETRY", "XDG_CACHE_HOME", "CI")}
    env.update(HOME=str(home), TMPDIR=str(temporary), TOPK_CONFORMANCE_CACHE=str(cache_root()))
    done = subprocess.run([sys.executable, "-m", "conformance", "run", "--backend", "ort-cpu", "--cases",
                           str(REPO / "cases/documented/onnx-backend-node.yaml"), "--out", str(tmp_path / "out")],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads((tmp_path / "out" / "results.json").read_text())["results"]
    assert any(r["backend"] == "ort-cpu" and r["verdict"] == "pass" for r in results)  # ONNX Runtime ran
    left = [str(path.relative_to(tmp_path)) for path in [*home.rglob("*"), *temporary.rglob("*")]]
    assert not left, left
