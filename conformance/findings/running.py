"""Running one finding's repro and reading its verdict from its exit status and last line
(docs/finding-records.md): REPRODUCED (0), NOT REPRODUCED (1), CANNOT RUN: why (2); anything
else means the repro itself broke. Each run happens in a scratch copy of the finding's folder,
so a repro that writes files beside itself leaves the checkout alone."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from conformance.backends.cache import cache_root
from conformance.backends.record import PythonEnvironment
from conformance.core.machine import Scope
from conformance.core.offline import QUIET_RUNTIMES, guarded_python_path
from conformance.findings.isolated import python_for
from conformance.findings.records import Finding
from conformance.findings.runtimes import runtime

REPRO_SECONDS = 180.0  # a repro should take under a minute; this is the net for one that hangs
OUTCOMES = ("reproduced", "not reproduced", "cannot run", "broken")
# An outcome in a release table's cell (yes: the release shows the finding).
MARKS = {"reproduced": "yes", "not reproduced": "no", "cannot run": "n/a", "broken": "broken"}
_BY_STATUS = {0: ("reproduced", "REPRODUCED"), 1: ("not reproduced", "NOT REPRODUCED"), 2: ("cannot run", "CANNOT RUN")}


@dataclass(frozen=True)
class ReproRun:
    finding: str
    outcome: str  # one of OUTCOMES
    reason: str  # why it cannot run, or how it broke
    output: str  # what it printed: stderr, then stdout (which ends with the verdict)
    seconds: float
    python: str  # the interpreter it ran with


def verdict(status: int, output: str) -> tuple[str, str]:
    """(outcome, reason) from the exit status and the last line printed on stdout (a runtime's
    messages on stderr, such as nanobind's leak report as IREE 3.11.0 exits, are not the
    repro's verdict)."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    expected = _BY_STATUS.get(status)
    if expected is None:
        how = f"killed by signal {-status}" if status < 0 else f"exit status {status}"
        return "broken", f"{how}; last line: {last[:200] or '(nothing printed)'}"
    outcome, line = expected
    if outcome == "cannot run":
        # The why may be a runtime's exception text, which can run over several lines.
        start = next((n for n in range(len(lines) - 1, -1, -1) if lines[n].startswith("CANNOT RUN")), None)
        if start is not None:
            why = " ".join(lines[start:]).partition(":")[2].strip()
            return outcome, why[:500] or "(no reason given)"
        return "broken", f"exit status 2 without a line 'CANNOT RUN: why' (last line: {last[:200]!r})"
    if last != line:
        return "broken", f"exit status {status} but the last line is {last[:200]!r}, not {line!r}"
    return outcome, ""


def run_repro(finding: Finding, python: str | None = None, timeout: float = REPRO_SECONDS,
              env: dict[str, str] | None = None) -> ReproRun:
    """Run the repro with `python`, or by default in an environment holding only its `needs`
    (what a maintainer who installs what the record lists would have)."""
    started = time.monotonic()
    python = python or own_environment(finding) or python_for(finding.repro.needs)
    with tempfile.TemporaryDirectory(prefix=f"repro-{finding.id}-") as scratch:
        folder = Path(scratch) / finding.id
        shutil.copytree(finding.folder, folder, ignore=shutil.ignore_patterns("__pycache__", "node_modules"))
        _link_node_modules(finding, folder)
        environ = {**os.environ, **(env or {})}
        # As in a run: the runtimes' usage reports off, and the network and installers refused
        # (before the script runs, in every Python process it starts).
        guard = guarded_python_path(Path(scratch) / ".offline")
        environ["PYTHONPATH"] = os.pathsep.join(filter(None, [guard, environ.get("PYTHONPATH", "")]))
        try:
            # A session of its own: whatever it starts (a browser, Wine, a child that hangs) is
            # killed with it, as a group, when it ends or runs out of time.
            process = subprocess.Popen([python, finding.repro.script], cwd=folder, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       # TMPDIR inside the scratch folder: what the repro leaves there
                                       # (a killed Chromium's org.chromium.Chromium.* folders) goes with it.
                                       env={**environ, "PYTHONDONTWRITEBYTECODE": "1", "TMPDIR": scratch,
                                            **QUIET_RUNTIMES},
                                       start_new_session=True)
        except OSError as exc:
            return ReproRun(finding.id, "cannot run", f"cannot start {python}: {exc.strerror}", "",
                            time.monotonic() - started, python)
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(process.pid)
            stdout, stderr = process.communicate()
            return ReproRun(finding.id, "broken", f"still running after {timeout:g} s (killed, with every process "
                            "it started)", _both(stdout, stderr), time.monotonic() - started, python)
        finally:
            _kill_group(process.pid)  # a child it left behind dies with it
    outcome, reason = verdict(process.returncode, _text(stdout))
    return ReproRun(finding.id, outcome, reason, _both(stdout, stderr), time.monotonic() - started, python)


def own_environment(finding: Finding) -> str:
    """The interpreter of the environment of its own that the finding's runtime's repros run in
    (its record's `environment`, such as LiteRT's, which `setup litert` makes), where it is
    made: what a maintainer who installs the runtime has. "" for a runtime in the suite's."""
    environment = environment_of(finding)
    if environment is None or environment.missing():
        return ""
    return str(environment.python())


def environment_of(finding: Finding) -> PythonEnvironment | None:
    """The environment of its own its runtime's repros run in (None: one made of its needs)."""
    return runtime(finding.runtime).environment


def _both(stdout: bytes | None, stderr: bytes | None) -> str:
    # stderr first: the output then ends, as a pasted report or a failing test's tail, with the
    # repro's figures and verdict rather than a compiler's warnings
    said, warned = _text(stdout), _text(stderr)
    return f"{warned.rstrip(chr(10))}\n{said}" if said and warned else said or warned


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def expected_here(finding: Finding, tier: str) -> str:
    """What the record says the repro gives on this machine: an instruction-set condition decides
    by the machine's tier; otherwise the record's `reproduces`."""
    scope = finding.conditions.get("isa", "")
    if scope and tier:
        return "reproduced" if Scope(scope).holds(tier) else "not reproduced"
    return "reproduced" if finding.reproduces_here else "not reproduced"


def _link_node_modules(finding: Finding, folder: Path) -> None:
    """ONNX Runtime Web repros import onnxruntime-web from a node_modules beside them, as a
    maintainer's `npm install` makes it: here, the one `topk-conformance setup web` installed."""
    installed = cache_root() / "web" / "node_modules"
    if runtime(finding.runtime).node_modules and installed.is_dir():
        (folder / "node_modules").symlink_to(installed, target_is_directory=True)


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else data
