"""`findings history`: each repro run against released versions of its runtime, each release
installed in a virtual environment of its own under the suite's cache (made once, reused), and
for each finding the first release that shows it and the one that fixed it.

The releases measured are recorded in findings/history.yaml (`--record`), from which
docs/findings.md's release table and the report's are made."""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from conformance.backends.cache import cache_root
from conformance.backends.record import PythonEnvironment
from conformance.core.atomic_files import atomic_write_text
from conformance.findings.isolated import normal
from conformance.findings.records import Finding
from conformance.findings.running import ReproRun, environment_of, run_repro
from conformance.findings.runtimes import releases_of

# Needs that are commands, not Python distributions: an environment cannot install them.
COMMANDS = frozenset({"node", "npm", "chromium", "wine", "Xvfb", "qemu-x86_64", "x86_64-w64-mingw32-gcc"})
INSTALL_SECONDS = 900
HISTORY_FILE = "history.yaml"


class HistoryError(RuntimeError):
    """A release that cannot be installed here; the message says why in one line."""


@dataclass(frozen=True)
class Release:
    distribution: str
    version: str

    @property
    def folder(self) -> Path:
        return cache_root() / "findings-history" / f"{self.distribution}-{self.version}"

    @property
    def python(self) -> Path:
        return self.folder / "bin" / "python"


@dataclass
class History:
    """Outcomes by finding, then by release (in the order measured)."""

    distribution: str
    releases: list[str]
    outcomes: dict[str, dict[str, str]] = field(default_factory=dict)
    reasons: dict[str, dict[str, str]] = field(default_factory=dict)
    installed: dict[str, dict[str, str]] = field(default_factory=dict)  # release -> what pip installed
    refused: dict[str, str] = field(default_factory=dict)  # release -> why it could not be installed


def environment(release: Release, companions: Iterable[str], say: Callable[[str], None],
                over: PythonEnvironment | None = None) -> dict[str, str]:
    """The release's environment, made on first use: the release and the companions the repros
    need (numpy, onnx, ...), whatever versions pip picks beside it; or, `over` the environment
    of its own the repros' backend runs in, the release alone, so that only the runtime varies
    (LiteRT's repro needs its TensorFlow, about 1.7 GB, to convert). Returns what it holds."""
    if over is not None:
        return _over_environment(release, over, say)
    ready = release.folder / "ready.json"
    releases = releases_of(release.distribution)
    together = releases.together if releases else ()
    pinned = " ".join([*(f"{name}=={release.version}" for name in (release.distribution, *together)),
                       *(releases.pins_of(release.version) if releases else ())])
    companions = set(companions) - set(together)
    if ready.is_file():
        installed: dict[str, str] = json.loads(ready.read_text(encoding="utf-8"))
        lacking = sorted(name for name in set(companions) - {release.distribution}
                         if normal(name) not in {normal(have) for have in installed})
        if not lacking:
            return installed
        steps = [_installer(release, [*pinned.split(), *lacking])]  # a repro that needs one more companion
    else:
        shutil.rmtree(release.folder, ignore_errors=True)
        wanted = [*pinned.split(), *sorted(set(companions) - {release.distribution})]
        uv = shutil.which("uv")
        steps = [[uv, "venv", "-q", "--python", sys.executable, str(release.folder)] if uv
                 else [sys.executable, "-m", "venv", str(release.folder)], _installer(release, wanted)]
    say(f"installing {release.distribution} {release.version} into {release.folder}")
    for step in steps:
        try:
            done = subprocess.run(step, capture_output=True, text=True, timeout=INSTALL_SECONDS,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise HistoryError(f"installing took more than {INSTALL_SECONDS} s") from None
        if done.returncode != 0:
            lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
            if not ready.is_file():
                shutil.rmtree(release.folder, ignore_errors=True)
            raise HistoryError(f"cannot install {pinned}: {lines[-1] if lines else 'pip failed'}")
    _numpy_of_its_time(release)
    return _list_ready(release)


def _over_environment(release: Release, base: PythonEnvironment, say: Callable[[str], None]) -> dict[str, str]:
    """The release alone (no dependencies) in an environment whose path file adds the packages
    of `base` behind its own: what it imports first is the release."""
    ready = release.folder / "ready.json"
    if ready.is_file():
        installed: dict[str, str] = json.loads(ready.read_text(encoding="utf-8"))
        return installed
    lacking = base.missing()
    if lacking:
        raise HistoryError(lacking)
    shutil.rmtree(release.folder, ignore_errors=True)
    say(f"installing {release.distribution} {release.version} over {base.python().parent.parent} "
        f"into {release.folder}")
    made = subprocess.run([sys.executable, "-m", "venv", str(release.folder)], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    if made.returncode != 0:
        raise HistoryError(f"cannot make a venv: {made.stderr.strip()[-300:]}")
    (Path(_packages(release.python)) / "_topk_conformance_base.pth").write_text(_packages(base.python()) + "\n",
                                                                               encoding="utf-8")
    pip = [str(release.python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps",
           "--only-binary=:all:", f"{release.distribution}=={release.version}"]
    try:
        done = subprocess.run(pip, capture_output=True, text=True, timeout=INSTALL_SECONDS, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise HistoryError(f"installing took more than {INSTALL_SECONDS} s") from None
    if done.returncode != 0:
        shutil.rmtree(release.folder, ignore_errors=True)
        lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        raise HistoryError(f"cannot install {release.distribution}=={release.version}: "
                           f"{lines[-1] if lines else 'pip failed'}")
    return _list_ready(release)


def _list_ready(release: Release) -> dict[str, str]:
    """What the release's environment holds, written as its ready.json: the environment is made."""
    listed = subprocess.run([str(release.python), "-c", _LIST], capture_output=True, text=True, check=True)
    installed: dict[str, str] = json.loads(listed.stdout)
    (release.folder / "ready.json").write_text(json.dumps(installed, indent=1) + "\n", encoding="utf-8")
    return installed


def _packages(python: Path) -> str:
    """The folder an environment's interpreter installs pure packages into."""
    asked = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                           capture_output=True, text=True, check=True)
    return asked.stdout.strip()


def _numpy_of_its_time(release: Release) -> None:
    """A release built against NumPy 1 that does not declare `numpy<2` fails to import beside
    NumPy 2: it gets the NumPy of its time."""
    releases = releases_of(release.distribution)
    module = releases.module if releases else ""
    if not module:
        return
    tried = subprocess.run([str(release.python), "-c", f"import {module}"], capture_output=True, text=True)
    if tried.returncode != 0 and "numpy" in tried.stderr.lower():
        subprocess.run(_installer(release, ["numpy<2"]), capture_output=True, text=True, timeout=INSTALL_SECONDS)


def _installer(release: Release, wanted: list[str]) -> list[str]:
    uv = shutil.which("uv")
    if uv:
        return [uv, "pip", "install", "-q", "--python", str(release.python), *wanted]
    return [str(release.python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *wanted]


# The first of a name on the path is the one imported (an environment over another holds two).
_LIST = ("import importlib.metadata as m, json; found = {}; "
         "[found.setdefault(d.metadata['Name'].lower(), d.version) for d in m.distributions()]; "
         "print(json.dumps(found))")


def by_distribution(findings: Sequence[Finding], say: Callable[[str], None]) -> dict[str, list[Finding]]:
    """The findings grouped by the distribution their repro varies (repro.history); one line
    said for each that names none."""
    grouped: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.repro.history:
            grouped.setdefault(finding.repro.history, []).append(finding)
        else:
            say(f"{finding.id}: its record names no distribution to vary (repro.history)")
    return grouped


def companions_of(findings: Sequence[Finding]) -> set[str]:
    return {need for finding in findings for need in finding.repro.needs if need not in COMMANDS}


def measure(distribution: str, releases: Sequence[str], findings: Sequence[Finding], jobs: int,
            say: Callable[[str], None]) -> History:
    history = History(distribution, list(releases))
    companions = companions_of(findings)
    over = next((found for found in map(environment_of, findings) if found is not None), None)
    runnable: list[Release] = []
    for version in releases:
        release = Release(distribution, version)
        try:
            history.installed[version] = environment(release, companions, say, over)
            runnable.append(release)
        except HistoryError as exc:
            history.refused[version] = str(exc)
            say(f"{distribution} {version}: {exc}")
    pairs = [(finding, release) for release in runnable for finding in findings]

    def one(pair: tuple[Finding, Release]) -> tuple[Finding, Release, ReproRun]:
        finding, release = pair
        return finding, release, run_repro(finding, python=str(release.python))

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for finding, release, run in pool.map(one, pairs):
            history.outcomes.setdefault(finding.id, {})[release.version] = run.outcome
            if run.reason:
                history.reasons.setdefault(finding.id, {})[release.version] = run.reason
            say(f"{finding.id} on {distribution} {release.version}: {run.outcome}"
                + (f" ({run.reason})" if run.reason else ""))
    return history


@dataclass(frozen=True)
class Span:
    first: str  # the first release measured that shows it ("" none)
    fixed: str  # the release that stopped showing it, and every later one too ("" not fixed)
    regression: bool  # an earlier release measured did not show it
    oldest: bool  # it shows on the oldest release that could run the repro


def span(outcomes: dict[str, str], releases: Sequence[str]) -> Span:
    ran = [(version, outcomes[version]) for version in releases
           if outcomes.get(version) in ("reproduced", "not reproduced")]
    shown = [version for version, outcome in ran if outcome == "reproduced"]
    if not shown:
        return Span("", "", False, False)
    first = shown[0]
    after_last = [version for version, outcome in ran[[v for v, _ in ran].index(shown[-1]) + 1:]]
    fixed = after_last[0] if after_last and all(outcomes[v] == "not reproduced" for v in after_last) else ""
    before = [outcome for version, outcome in ran[:[v for v, _ in ran].index(first)]]
    return Span(first, fixed, bool(before) and all(o == "not reproduced" for o in before), not before)


def measured_span(finding: Finding, history: Mapping[str, Any]) -> tuple[Span, list[str]] | None:
    """What findings/history.yaml measured of the finding: its span over the releases that ran,
    and those releases; None where it was not measured."""
    measured = (history.get("runtimes") or {}).get(finding.repro.history) or {}
    outcomes = (measured.get("findings") or {}).get(finding.id)
    if not outcomes:
        return None
    releases = [v for v in measured.get("releases", []) if v not in (measured.get("refused") or {})]
    return span(outcomes, releases), releases


def describe(item: Span, releases: Sequence[str]) -> str:
    if not item.first:
        return "not shown on any release measured"
    since = f"since {item.first} or earlier" if item.oldest else f"new in {item.first}"
    kind = "regression" if item.regression else "old"
    return f"{kind}: {since}" + (f", fixed in {item.fixed}" if item.fixed else ", not fixed")


# --- findings/history.yaml -------------------------------------------------------------------


def read_history(root: Path) -> dict[str, Any]:
    path = root / HISTORY_FILE
    if not path.is_file():
        return {"runtimes": {}}
    loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return loaded if isinstance(loaded, dict) else {"runtimes": {}}


def record_history(root: Path, history: History, date: str) -> Path:
    """Merges one runtime's measurement into findings/history.yaml (other runtimes, and findings
    of this one not measured now, are kept)."""
    document = read_history(root)
    runtimes = document.setdefault("runtimes", {})
    previous = runtimes.get(history.distribution) or {}
    releases = list(dict.fromkeys([*history.releases, *previous.get("releases", [])]))
    releases.sort(key=_version_key)
    findings = dict(previous.get("findings") or {})
    for finding_id, outcomes in history.outcomes.items():
        findings[finding_id] = {**findings.get(finding_id, {}), **outcomes}
    runtimes[history.distribution] = {
        "measured": date,
        "machine": f"{platform.system()} {platform.machine()}, Python {platform.python_version()}",
        "releases": releases,
        "installed": {**(previous.get("installed") or {}), **{
            version: {name: found for name, found in sorted(installed.items())
                      if name in ("numpy", "onnx", "ml-dtypes", "ml_dtypes", "tensorflow", history.distribution)}
            for version, installed in history.installed.items()}},
        "refused": {**{version: why for version, why in (previous.get("refused") or {}).items()
                       if version not in history.installed}, **history.refused},  # installed now: no longer refused
        "findings": dict(sorted(findings.items())),
    }
    path = root / HISTORY_FILE
    header = ("# Written by `topk-conformance findings history --record`: each finding's repro, run on each\n"
              "# release of its runtime in an environment of its own. Outcomes: reproduced, not reproduced,\n"
              "# cannot run (the release cannot load the model, or lacks an API), broken.\n")
    atomic_write_text(path, header + yaml.safe_dump(document, sort_keys=False, width=110))
    return path


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) if part.isdigit() else 0 for part in version.replace("-", ".").split("."))
