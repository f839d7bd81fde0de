"""The vendor's workflow (issue 12): the suite as a wheel, installed in a fresh virtual
environment, runs the shipped corpus from an empty directory (CLI and pytest plugin); the
example plugin package joins through the entry point and runs the corpus; a plugin built
for another interface version is refused by name; the GitHub workflow is valid.

The sdist and the wheel are built once, and one environment is made once, per test session
(shared between xdist workers). pip installs the suite's dependencies from the package
index (its cache makes that quick); without it these tests fail with pip's reason: nothing
here is skipped."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tarfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from harness import CASES, REPO
from plugin_entries import PluginDist, PluginEntry

from conformance.backends import registry
from conformance.backends.base import INTERFACE_VERSION, Availability, Backend, Execution, Graph
from conformance.cases.loader import load_cases
from conformance.cli import _parser

EXAMPLE = REPO / "examples" / "topk-numpy-backend"
WORKFLOW = REPO / ".github" / "workflows" / "conformance.yml"
CONSTRAINTS = REPO / "constraints.txt"
PIP_TIMEOUT = 600


@dataclass(frozen=True)
class Installed:
    wheel: Path
    sdist: Path
    venv: Path

    @property
    def bin(self) -> Path:
        return self.venv / ("Scripts" if sys.platform == "win32" else "bin")

    @property
    def python(self) -> Path:
        return self.bin / ("python.exe" if sys.platform == "win32" else "python")

    def tool(self, name: str) -> Path:
        return self.bin / (f"{name}.exe" if sys.platform == "win32" else name)


def _run(command: list[str | Path], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """A command as a CI job runs it: stdin closed, CI=true, nothing of this checkout on the
    path (PYTHONPATH and the virtual environment of the test run removed)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(CI="true", COLUMNS="400", PYTHONUTF8="1")
    env.pop("FORCE_COLOR", None)
    return subprocess.run(
        [str(part) for part in command], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=timeout, check=False,
    )


def _checked(command: list[str | Path], cwd: Path, what: str, timeout: float = PIP_TIMEOUT) -> None:
    completed = _run(command, cwd, timeout)
    if completed.returncode != 0:
        raise AssertionError(
            f"{what} failed (exit {completed.returncode}): {shlex.join(map(str, command))}\n"
            f"{completed.stdout[-3000:]}\n{completed.stderr[-6000:]}"
        )


def _once(folder: Path, make: Callable[[Path], None]) -> None:
    """Run `make(folder)` in exactly one process of the session (xdist workers share the
    folder); the others wait for it, and all see its failure."""
    ready, failed = folder / ".ready", folder / ".failed"
    try:
        folder.mkdir(parents=True)
    except FileExistsError:
        deadline = time.monotonic() + 900
        while not (ready.exists() or failed.exists()):
            if time.monotonic() > deadline:
                raise AssertionError(f"gave up waiting for {folder}") from None
            time.sleep(0.5)
        if failed.exists():
            raise AssertionError(failed.read_text(encoding="utf-8")) from None
        return
    try:
        make(folder)
    except BaseException as exc:
        failed.write_text(f"{type(exc).__name__}: {exc}", encoding="utf-8")
        raise
    ready.write_text("", encoding="utf-8")


OLD_PLUGIN_MODULE = '''
from conformance.backends.base import Availability, Backend, Execution, Graph


class _Methods:
    kinds = ("onnx",)

    def availability(self) -> Availability:
        return Availability(True)

    def describe(self) -> dict[str, str]:
        return {}

    def run(self, graph: Graph) -> Execution:
        raise NotImplementedError


class OldTopK(_Methods, Backend):
    interface_version = 1  # written for an older interface
    name = "old-topk"


class UndeclaredTopK(_Methods, Backend):  # declares nothing, as every plugin before versions
    name = "undeclared-topk"


def backends() -> list[Backend]:
    return [OldTopK(), UndeclaredTopK()]
'''


def _write_old_plugin(folder: Path) -> Path:
    package = folder / "topk-old-backend"
    (package / "topk_old_backend").mkdir(parents=True)
    (package / "topk_old_backend" / "__init__.py").write_text(OLD_PLUGIN_MODULE, encoding="utf-8")
    (package / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "topk-old-backend"\nversion = "0.3.0"\n\n'
        '[project.entry-points."topk_conformance.backends"]\nold = "topk_old_backend:backends"\n\n'
        '[tool.setuptools]\npackages = ["topk_old_backend"]\n',
        encoding="utf-8",
    )
    return package


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The suite's sdist and wheel (python -m build: the wheel is built from the sdist), a
    fresh virtual environment with the wheel, the example plugin and an outdated plugin."""
    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "packaging"

    def make(folder: Path) -> None:
        dist = folder / "dist"
        _checked([sys.executable, "-m", "build", "--outdir", dist, REPO], folder, "building the sdist and wheel")
        venv = folder / "venv"
        _checked([sys.executable, "-m", "venv", venv], folder, "making a virtual environment")
        made = Installed(next(dist.glob("*.whl")), next(dist.glob("*.tar.gz")), venv)
        _checked([made.python, "-m", "pip", "install", "-q", made.wheel, "-c", CONSTRAINTS], folder,
                 "installing the wheel and its dependencies (pip needs the package index or its cache)")
        _checked([made.python, "-m", "pip", "install", "-q", EXAMPLE, "-c", CONSTRAINTS], folder,
                 "installing examples/topk-numpy-backend")
        _checked([made.python, "-m", "pip", "install", "-q", "--no-deps", _write_old_plugin(folder)], folder,
                 "installing an outdated plugin")

    _once(shared, make)
    dist = shared / "dist"
    return Installed(next(dist.glob("*.whl")), next(dist.glob("*.tar.gz")), shared / "venv")


@pytest.fixture
def empty_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "empty"
    folder.mkdir()
    return folder


@pytest.fixture(scope="module")
def corpus_ids() -> list[str]:
    loaded = load_cases([CASES])
    assert not loaded.errors, [str(e) for e in loaded.errors]
    return [case.id for case in loaded.cases]


def _results(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


# --- what the wheel carries -----------------------------------------------------------------

def test_wheel_ships_the_corpus_and_the_bridge_sources(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    case_files = sorted(p.relative_to(CASES).as_posix() for p in CASES.rglob("*.y*ml"))
    assert case_files
    missing = [f for f in case_files if f"conformance/corpus/{f}" not in names]
    assert not missing, f"case files not in the wheel: {missing}"
    # Only the repository's cases: nothing else lands in the corpus folder.
    assert {n for n in names if n.startswith("conformance/corpus/")} == {f"conformance/corpus/{f}" for f in case_files}
    bridge = sorted(p.name for p in (REPO / "conformance" / "backends" / "wine" / "bridge").iterdir()
                    if p.suffix in (".c", ".h"))
    assert bridge and all(f"conformance/backends/wine/bridge/{name}" in names for name in bridge)
    assert "conformance/cases/schema/case.schema.json" in names
    # One top-level name: a `backends` (or any other) beside it would shadow or be shadowed.
    top = {name.split("/")[0] for name in names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"conformance"}, top
    # The documentation an installed user reads (the contract, the vendors' guide) rides along.
    pages = sorted(p.relative_to(REPO / "docs").as_posix() for p in (REPO / "docs").rglob("*.md"))
    assert "contract.md" in pages and "vendors/README.md" in pages
    missing_pages = [page for page in pages if f"conformance/docs/{page}" not in names]
    assert not missing_pages, f"pages of docs/ not in the wheel: {missing_pages}"
    with tarfile.open(installed.sdist) as sdist:
        members = {Path(m).relative_to(Path(m).parts[0]).as_posix() for m in sdist.getnames() if "/" in m}
    assert all(f"cases/{f}" in members for f in case_files)
    assert all(f"docs/{page}" in members for page in pages)
    assert "setup.py" in members and "constraints.txt" in members


# --- the installed wheel, from an empty directory -------------------------------------------

def test_installed_wheel_runs_the_whole_shipped_corpus_from_an_empty_directory(
    installed: Installed, empty_dir: Path, corpus_ids: list[str],
) -> None:
    out = empty_dir.parent / "out"
    completed = _run([installed.tool("topk-conformance"), "run", "--backend", "onnx-reference", "--out", out],
                     empty_dir)
    assert completed.returncode == 0, completed.stderr[-4000:]
    data = _results(out / "results.json")
    ran = {r["case"] for r in data["results"]}
    assert set(corpus_ids) <= ran, f"shipped cases that did not run: {sorted(set(corpus_ids) - ran)}"
    assert not data.get("case_errors"), data.get("case_errors")
    assert list(empty_dir.iterdir()) == []  # nothing written where it ran


def test_the_wheel_installs_no_backends_module(installed: Installed, empty_dir: Path) -> None:
    imported = _run([installed.python, "-c", "import backends"], empty_dir)
    assert imported.returncode != 0 and "No module named 'backends'" in imported.stderr, imported.stderr


def test_cases_lists_what_ships(installed: Installed, empty_dir: Path, corpus_ids: list[str]) -> None:
    completed = _run([installed.tool("topk-conformance"), "cases", "--list"], empty_dir)
    assert completed.returncode == 0, completed.stderr
    rows = [line.split("\t") for line in completed.stdout.splitlines()]
    assert [row[0] for row in rows] == corpus_ids
    example = next(row for row in rows if row[0] == "dml-top-k1-example-3")
    assert example[1] == "DML_TOP_K1_OPERATOR_DESC, Example 3"
    assert "ties" in example[2].split(", ")
    assert example[3] == "corpus/documented/directml-top-k1.yaml"
    assert f"{len(corpus_ids)} cases" in completed.stderr

    where = _run([installed.tool("topk-conformance"), "cases", "--path"], empty_dir)
    assert where.returncode == 0, where.stderr
    corpus = Path(where.stdout.strip())
    assert corpus.is_dir() and corpus.resolve().is_relative_to(installed.venv.resolve()), corpus

    schema = _run([installed.tool("topk-conformance"), "cases", "--schema"], empty_dir)
    assert schema.returncode == 0, schema.stderr
    assert json.loads(Path(schema.stdout.strip()).read_text(encoding="utf-8"))["title"] == "topk-conformance case file"


def test_own_cases_run_beside_the_shipped_ones(installed: Installed, empty_dir: Path) -> None:
    mine = empty_dir.parent / "mine"
    mine.mkdir()
    (mine / "mine.yaml").write_text(
        "cases:\n  - id: vendor-own-case\n    source: a vendor's own case\n    tags: [vendor]\n"
        "    input: {dtype: float32, shape: [4], data: [1, 3, 3, 2]}\n    axis: 0\n    k: 2\n",
        encoding="utf-8",
    )
    shipped = _run([installed.tool("topk-conformance"), "cases", "--path"], empty_dir).stdout.strip()
    out = empty_dir.parent / "out"
    completed = _run([installed.tool("topk-conformance"), "run", "--backend", "onnx-reference",
                      "--cases", shipped, "--cases", mine, "--case", "vendor-own-case",
                      "--case", "dml-top-k1-example-3", "--out", out], empty_dir)
    assert completed.returncode == 0, completed.stderr[-4000:]
    verdicts = {(r["case"], r["verdict"]) for r in _results(out / "results.json")["results"]}
    assert {case for case, _ in verdicts} == {"vendor-own-case", "dml-top-k1-example-3"}
    assert ("vendor-own-case", "pass") in verdicts
    # Instead of the shipped ones: only the user's file.
    only = _run([installed.tool("topk-conformance"), "cases", "--cases", mine], empty_dir)
    assert [line.split("\t")[0] for line in only.stdout.splitlines()] == ["vendor-own-case"]


def test_pytest_plugin_runs_the_shipped_corpus_from_an_empty_directory(installed: Installed, empty_dir: Path) -> None:
    completed = _run([installed.python, "-m", "pytest", "--backend", "onnx-reference", "--pyargs", "conformance",
                      "-k", "dml-top-k1-example-3", "-p", "no:cacheprovider", "-v"], empty_dir)
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-2000:]
    assert "dml-top-k1-example-3[topk-onnx-reference-onnx-opset11-constant] PASSED" in completed.stdout
    assert re.search(r"\b\d+ passed\b", completed.stdout) and " failed" not in completed.stdout
    assert list(empty_dir.iterdir()) == []


# --- plugins ---------------------------------------------------------------------------------

def test_example_plugin_runs_the_whole_corpus(installed: Installed, empty_dir: Path) -> None:
    """The example is a plugin of interface 2: it runs every TopK case, and no other operator's."""
    topk_ids = [case.id for case in load_cases([CASES]).cases if case.op == "topk"]
    listed = _run([installed.tool("topk-conformance"), "run", "--list-backends"], empty_dir)
    row = next(line for line in listed.stdout.splitlines() if " numpy-topk " in line)
    assert "yes" in row.split(), row
    out = empty_dir.parent / "out"
    completed = _run([installed.tool("topk-conformance"), "run", "--backend", "numpy-topk", "--out", out], empty_dir)
    assert completed.returncode == 0, completed.stderr[-4000:]
    data = _results(out / "results.json")
    assert set(topk_ids) == {r["case"] for r in data["results"]}
    assert {r["backend"] for r in data["results"]} == {"numpy-topk"}
    assert data["backends"]["numpy-topk"]["device"] == "numpy (CPU)"
    documented = {r["verdict"] for r in data["results"] if "documented" in r.get("tags", [])}
    assert documented <= {"pass", "skip"} and "pass" in documented, documented


def test_plugin_for_another_interface_version_is_refused_by_name(installed: Installed, empty_dir: Path) -> None:
    completed = _run([installed.tool("topk-conformance"), "run", "--backend", "old-topk"], empty_dir)
    assert completed.returncode == 2, completed.stdout + completed.stderr
    message = " ".join(completed.stderr.split())
    assert "backend old-topk is not available: plugin 'old' (topk_old_backend:backends) of topk-old-backend 0.3.0" \
        in message, message
    assert f"implements backend interface 1; this topk-conformance wants interface {INTERFACE_VERSION}" in message
    undeclared = _run([installed.tool("topk-conformance"), "run", "--backend", "undeclared-topk"], empty_dir)
    assert undeclared.returncode == 2
    assert "declares no interface_version" in undeclared.stderr, undeclared.stderr
    # The others still run.
    listed = _run([installed.tool("topk-conformance"), "run", "--list-backends"], empty_dir)
    assert listed.returncode == 0, listed.stderr
    # Every backend of the suite's own, each with its answer (the plugins' too).
    said = {line.split(":")[0].strip() for line in listed.stdout.splitlines() if line.startswith("  ")}
    assert {record.name for record in registry.RECORDS} | {"numpy-topk", "old-topk"} <= said, listed.stdout


# --- the plugin interface, in this process ---------------------------------------------------

class _Plugin(Backend):
    interface_version = INTERFACE_VERSION
    name = "good-plugin"
    kinds = ("onnx",)

    def availability(self) -> Availability:
        return Availability(True)

    def describe(self) -> dict[str, str]:
        return {}

    def run(self, graph: Graph) -> Execution:
        raise NotImplementedError


def _bare(name: str, **attributes: Any) -> type[Backend]:
    """A Backend subclass built from scratch, declaring only what it is given."""
    body = {"__module__": __name__, "name": name, "kinds": ("onnx",), "availability": _Plugin.availability,
            "describe": _Plugin.describe, "run": _Plugin.run, **attributes}
    return type(name.title().replace("-", ""), (Backend,), body)


def _status(name: str) -> Availability:
    (backend,) = registry.by_name([name])
    return backend.availability()


def test_a_plugin_declaring_this_version_joins(entry_points: list[PluginEntry]) -> None:
    entry_points.append(PluginEntry("good", lambda: [_Plugin()], dist=PluginDist()))
    assert _status("good-plugin").available
    assert isinstance(registry.by_name(["good-plugin"])[0], _Plugin)


@pytest.mark.parametrize(
    ("declared", "expected"),
    [
        ({}, "declares no interface_version, so it was written for interface 1"),
        ({"interface_version": 1}, f"implements backend interface 1; this topk-conformance wants interface "
                                   f"{INTERFACE_VERSION}; update the plugin"),
        ({"interface_version": INTERFACE_VERSION + 1}, f"implements backend interface {INTERFACE_VERSION + 1}; this "
                                                       f"topk-conformance wants interface {INTERFACE_VERSION}; "
                                                       "upgrade topk-conformance"),
        ({"interface_version": "2"}, "implements backend interface '2'"),
    ],
)
def test_a_plugin_for_another_version_is_unavailable_naming_both_versions(
    entry_points: list[PluginEntry], declared: dict[str, Any], expected: str,
) -> None:
    cls = _bare("vendor-topk", **declared)
    entry_points.append(PluginEntry("vendor", lambda: [cls()], dist=PluginDist()))
    status = _status("vendor-topk")
    assert not status.available
    assert status.reason.startswith(
        "plugin 'vendor' (vendor_plugin:backends) of vendor-plugin 1.2.3: backend 'vendor-topk' "
        f"({__name__}.VendorTopk)"
    ), status.reason
    assert expected in status.reason


def test_a_plugin_that_fails_to_load_or_returns_no_backend_is_unavailable(entry_points: list[PluginEntry]) -> None:
    def broken() -> list[Backend]:
        raise ImportError("no module named vendor_runtime")

    entry_points.append(PluginEntry("broken", broken))
    entry_points.append(PluginEntry("odd", lambda: [object()]))
    assert _status("broken").reason == (
        "plugin 'broken' (vendor_plugin:backends) failed to load: ImportError: no module named vendor_runtime"
    )
    assert "not a conformance.backends.base.Backend" in _status("odd").reason
    assert _status("onnx-reference").available  # the suite's own backends are untouched


def test_a_plugin_written_for_the_old_import_path_is_told_where_the_interface_went(
    entry_points: list[PluginEntry],
) -> None:
    def old_import_path() -> list[Backend]:
        import backends.base  # type: ignore[import-not-found]  # noqa: F401  (before 0.2)

        return []

    entry_points.append(PluginEntry("old-path", old_import_path))
    reason = _status("old-path").reason
    assert reason.startswith("plugin 'old-path' (vendor_plugin:backends) failed to load: ModuleNotFoundError: "
                             "No module named 'backends'"), reason
    assert "import Backend and the rest from conformance.backends.base" in reason, reason


def test_a_plugin_cannot_take_a_builtin_name_or_bad_kinds(entry_points: list[PluginEntry]) -> None:
    clash = _bare("ort-cpu", interface_version=INTERFACE_VERSION)
    kinds = _bare("odd-kinds", interface_version=INTERFACE_VERSION, kinds=("tflite",))
    entry_points.append(PluginEntry("clash", lambda: [clash(), kinds()]))
    assert type(registry.by_name(["ort-cpu"])[0]).__name__ == "OrtCpu"
    assert "its backend name 'ort-cpu' is already taken" in _status("clash:ort-cpu").reason
    assert "has kinds ('tflite',)" in _status("odd-kinds").reason


def test_builtin_backends_implement_this_interface_version() -> None:
    for backend in registry.builtin_backends():
        assert backend.interface_version == INTERFACE_VERSION, backend.name


# --- the GitHub workflow ---------------------------------------------------------------------

def _workflow() -> dict[Any, Any]:
    data: dict[Any, Any] = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    return data


def test_workflow_matches_the_github_workflow_schema() -> None:
    checker = Path(sys.executable).parent / ("check-jsonschema.exe" if sys.platform == "win32" else "check-jsonschema")
    assert checker.exists(), f"{checker} is missing: install the test extra (pip install -e '.[test]')"
    completed = _run([checker, "--builtin-schema", "vendor.github-workflows", WORKFLOW], REPO, timeout=120)
    assert completed.returncode == 0, completed.stdout + completed.stderr


def _scripts() -> list[tuple[str, str, str]]:
    """(job, step name, run script) for every run step."""
    return [(job_id, step.get("name", ""), step["run"])
            for job_id, job in _workflow()["jobs"].items() for step in job["steps"] if "run" in step]


# Shell words of the workflow, replaced by an example value before a command line is parsed.
_SHELL_WORDS = {
    r'\$\(gate "?\$?[\w-]+"?\)': "--baseline tests/baselines/example.yaml",
    r'"\$\{extra\[@\]\}"': "--allow-unavailable",
    r'"\$\{files\[@\]\}"': "a/results.json b/results.json",
    r"\$backend": "onnx-reference",
}


def _suite_commands() -> list[tuple[str, list[str]]]:
    commands = []
    for job, _, script in _scripts():
        for line in script.replace("\\\n", " ").splitlines():
            line = line.strip().split(" || ")[0]
            if not line.startswith("topk-conformance "):
                continue
            for pattern, value in _SHELL_WORDS.items():
                line = re.sub(pattern, value, line)
            commands.append((job, shlex.split(line)[1:]))
    return commands


def test_workflow_commands_are_the_suites_own() -> None:
    commands = _suite_commands()
    used = {args[0] for _, args in commands}
    assert {"run", "setup", "merge", "report"} <= used, used
    parser = _parser()
    known = {backend.name for backend in registry.builtin_backends()}
    for job, args in commands:
        try:
            parsed = parser.parse_args(args)
        except SystemExit:
            pytest.fail(f"{job}: topk-conformance {shlex.join(args)} is not a valid command line")
        assert set(getattr(parsed, "backend", None) or []) <= known, (job, args)
    text = WORKFLOW.read_text(encoding="utf-8")
    for name in re.findall(r"for backend in ([\w -]+); do", text):
        assert set(name.split()) <= known, name
    # Each backend the jobs run has its baseline at tests/baselines/<backend>.yaml.
    assert 'tests/baselines/$1.yaml' in _workflow()["env"]["GATE"]
    for name in ("ort-openvino", "ort-dml"):
        assert f"$(gate {name})" in text


def test_workflow_jobs_fit_together() -> None:
    workflow = _workflow()
    jobs = workflow["jobs"]
    assert set(jobs) == {"linux", "windows", "report"}
    assert set(jobs["report"]["needs"]) == {"linux", "windows"}
    assert "windows" in jobs["windows"]["runs-on"]
    # Every uploaded results artifact is what the report job downloads.
    uploads = [step["with"]["name"] for job in ("linux", "windows") for step in jobs[job]["steps"]
               if step.get("uses", "").startswith("actions/upload-artifact@")]
    downloads = [step["with"]["pattern"] for step in jobs["report"]["steps"]
                 if step.get("uses", "").startswith("actions/download-artifact@")]
    assert uploads == ["results-linux", "results-windows"] and downloads == ["results-*"]
    # The tox environments it calls exist, and ort-openvino writes where the upload looks.
    tox = (REPO / "tox.ini").read_text(encoding="utf-8")
    for env in re.findall(r"tox -e ([\w-]+)", WORKFLOW.read_text(encoding="utf-8")):
        assert f"[testenv:{env}]" in tox, env
    assert "--out {toxinidir}/reports/ort-openvino" in tox
    # Windows installs onnxruntime-directml, not the CPU wheel of the [ort] extra.
    windows = " ".join(script for job, _, script in _scripts() if job == "windows")
    assert "onnxruntime-directml" in windows and "[ort]" not in windows


def test_the_wheel_ships_the_finding_records_and_lists_them_from_an_empty_directory(
    installed: Installed, empty_dir: Path,
) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    records = sorted(p.relative_to(REPO / "findings").as_posix() for p in (REPO / "findings").glob("*/finding.yaml"))
    assert records and all(f"conformance/finding_records/{r}" in names for r in records)
    repros = sorted(p.relative_to(REPO / "findings").as_posix() for p in (REPO / "findings").glob("*/repro.py"))
    assert all(f"conformance/finding_records/{r}" in names for r in repros)
    listed = _run([installed.tool("topk-conformance"), "findings", "list"], empty_dir)
    assert listed.returncode == 0, listed.stderr
    assert "OV3" in listed.stdout and "openvino#35824" in listed.stdout
    report = _run([installed.tool("topk-conformance"), "findings", "report", "OV3", "--no-run"], empty_dir)
    assert report.returncode == 0 and "openvino#35824" in report.stdout, report.stderr
    assert list(empty_dir.iterdir()) == []
