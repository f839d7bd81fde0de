"""Every backend the suite knows, by contract name; third-party backends join through the
`topk_conformance.backends` entry point group (docs/vendors/backends.md).

An entry point names a callable that takes no argument and returns an iterable of Backend
objects. Each must be a `conformance.backends.base.Backend` whose class declares the interface version
it implements (`interface_version = 2`); the suite accepts the versions in
`SUPPORTED_INTERFACE_VERSIONS`. A plugin that fails to load, returns something else, declares
no version or another one, has a name not of the form `NAME_FORM` or one that is already
taken does not stop the suite: it appears as an unavailable backend whose reason names the
plugin (entry point, distribution and version), what is wrong, and the interface version
this suite wants. `run --backend NAME` on it exits 2 with that reason, like any backend that
cannot run here. What the suite does with a usable plugin's wrong answers at run time is in
conformance/running/workers.py (probe_here) and runner.py (execute)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from importlib import metadata
from typing import TypeGuard

from conformance.backends import (
    iree_compiled,
    mnn_cpu,
    onnx_reference,
    openvino_native,
    ort_cpu,
    ort_cuda,
    ort_dml,
    ort_openvino,
    ort_webgpu,
    tinygrad_onnx,
    tract_onnx,
    tvm_relax,
)
from conformance.backends.base import (
    INTERFACE_VERSION,
    SUPPORTED_INTERFACE_VERSIONS,
    Availability,
    Backend,
    Execution,
    Graph,
)
from conformance.backends.litert import litert_cpu
from conformance.backends.record import BackendRecord, SetupStep
from conformance.backends.web import ort_web
from conformance.backends.wine import directml
from conformance.backends.wine import ort_dml as ort_dml_wine

# The suite's own backends, in the order runs and results list them: one line each.
RECORDS: tuple[BackendRecord, ...] = (
    onnx_reference.RECORD,
    ort_cpu.RECORD,
    ort_openvino.RECORD,
    ort_cuda.RECORD,
    ort_dml.RECORD,
    ort_dml_wine.RECORD,
    directml.RECORD,
    *openvino_native.DEVICES,
    tract_onnx.RECORD,
    *openvino_native.HELD_TO_A_TIER,
    ort_web.WASM,
    ort_web.WEBGPU,
    iree_compiled.CPU,
    *iree_compiled.ON_VULKAN,
    tvm_relax.RECORD,
    tinygrad_onnx.RECORD,
    mnn_cpu.RECORD,
    ort_webgpu.RECORD,
    litert_cpu.RECORD,
)
ENTRY_POINT_GROUP = "topk_conformance.backends"
GRAPH_KINDS = ("onnx", "openvino", "directml")
# A backend's name (docs/vendors/backends.md): letters, digits, dashes between them; it goes
# into --backend, file names of reports, terminals.
NAME_FORM = re.compile(r"[A-Za-z0-9]+(-[A-Za-z0-9]+)*")
NAME_LIMIT = 64
NAME_RULE = f"letters, digits and single dashes between them (^{NAME_FORM.pattern}$), at most {NAME_LIMIT} characters"


def valid_name(name: object) -> TypeGuard[str]:
    return isinstance(name, str) and len(name) <= NAME_LIMIT and NAME_FORM.fullmatch(name) is not None


def builtin_backends() -> list[Backend]:
    return [record.make() for record in RECORDS]


def setup_steps() -> dict[str, SetupStep]:
    """`topk-conformance setup NAME`: every step a record names, by name, in record order."""
    return {record.setup.name: record.setup for record in RECORDS if record.setup is not None}


def set_up_by(step: SetupStep) -> list[Backend]:
    """The backends a setup step makes available."""
    return [record.make() for record in RECORDS if record.setup == step]


def all_backends() -> list[Backend]:
    found = builtin_backends()
    taken = {backend.name for backend in found}
    for number, entry in enumerate(metadata.entry_points(group=ENTRY_POINT_GROUP), start=1):
        for backend in load_plugin(entry, number):
            if backend.name in taken:
                backend = UnusablePlugin(
                    f"{_safe_entry_name(entry, number)}:{backend.name}",
                    f"plugin {describe_entry(entry)}: its backend name '{backend.name}' is already taken; "
                    "choose another name",
                )
            taken.add(backend.name)
            found.append(backend)
    return found


def load_plugin(entry: metadata.EntryPoint, number: int = 1) -> list[Backend]:
    """The backends one entry point (the `number`-th) gives, each checked; an unusable one
    is replaced by an unavailable stand-in saying why, under a name of the valid form."""
    origin = describe_entry(entry)
    safe = _safe_entry_name(entry, number)
    try:
        made = list(entry.load()())
    except Exception as exc:
        return [UnusablePlugin(safe, f"plugin {origin} failed to load: {type(exc).__name__}: {exc}{_moved(exc)}")]
    checked: list[Backend] = []
    for position, backend in enumerate(made):
        problem = interface_problem(backend)
        if problem is None:
            checked.append(backend)
            continue
        name = getattr(backend, "name", None)
        if not valid_name(name):
            name = safe if len(made) == 1 else f"{safe}#{position + 1}"
        checked.append(UnusablePlugin(name, f"plugin {origin}: {problem}"))
    return checked


def _moved(exc: Exception) -> str:
    """What a plugin written for the import path before 0.2 (the top-level `backends`) must change."""
    if isinstance(exc, ModuleNotFoundError) and (exc.name or "").split(".")[0] == "backends":
        return ("; the suite's backend interface moved from the top-level package `backends` to "
                "`conformance.backends` in topk-conformance 0.2: import Backend and the rest from "
                "conformance.backends.base (docs/vendors/backends.md)")
    return ""


def _safe_entry_name(entry: metadata.EntryPoint, number: int) -> str:
    """The entry point's name where it has the form of a backend name, else `plugin-N`."""
    return entry.name if valid_name(entry.name) else f"plugin-{number}"


def interface_problem(backend: object) -> str | None:
    """Why a plugin's object cannot be run as a backend of this suite, or None."""
    if not isinstance(backend, Backend):
        return (f"returned {type(backend).__module__}.{type(backend).__qualname__}, not a "
                f"conformance.backends.base.Backend (this topk-conformance wants interface {INTERFACE_VERSION})")
    cls = type(backend)
    what = f"backend {getattr(backend, 'name', '?')!r} ({cls.__module__}.{cls.__qualname__})"
    declared = declared_interface_version(cls)
    if declared is None:
        return (f"{what} declares no interface_version, so it was written for interface 1, before "
                f"versions were declared; this topk-conformance wants interface {INTERFACE_VERSION}: "
                f"check it against docs/vendors/backends.md and set interface_version = {INTERFACE_VERSION}")
    if declared not in SUPPORTED_INTERFACE_VERSIONS:
        newer = isinstance(declared, int) and declared > INTERFACE_VERSION
        return (f"{what} implements backend interface {declared!r}; this topk-conformance wants interface "
                f"{INTERFACE_VERSION}" + ("; upgrade topk-conformance" if newer else "; update the plugin"))
    if not isinstance(getattr(backend, "name", None), str) or not backend.name:
        return f"{what} has no name"
    if not valid_name(backend.name):
        return f"{what}: its name is not of the form backend names take, {NAME_RULE}"
    kinds = getattr(backend, "kinds", None)
    if not isinstance(kinds, tuple) or not kinds or any(kind not in GRAPH_KINDS for kind in kinds):
        return f"{what} has kinds {kinds!r}; want a non-empty tuple of {', '.join(GRAPH_KINDS)}"
    return None


def declared_interface_version(cls: type) -> object | None:
    """The interface_version a plugin's own classes set (not the default of Backend)."""
    for klass in cls.__mro__:
        if klass is Backend:
            return None
        if "interface_version" in vars(klass):
            value: object = vars(klass)["interface_version"]
            return value
    return None


def describe_entry(entry: metadata.EntryPoint) -> str:
    dist = getattr(entry, "dist", None)
    source = f" of {dist.name} {dist.version}" if dist is not None else ""
    return f"{entry.name!r} ({entry.value}){source}"


class UnusablePlugin(Backend):
    """Stands in for a plugin backend the suite cannot run: unavailable, with the reason."""

    kinds = ("onnx",)

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason

    def availability(self) -> Availability:
        return Availability(False, self.reason)

    def describe(self) -> dict[str, str]:
        return {"plugin": self.reason}

    def run(self, graph: Graph) -> Execution:
        raise RuntimeError(self.reason)


def backend_names() -> list[str]:
    return [backend.name for backend in all_backends()]


def by_name(names: Iterable[str]) -> list[Backend]:
    names = list(names)
    known = {backend.name: backend for backend in all_backends()}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise KeyError(f"unknown backend {', '.join(unknown)}; known: {', '.join(known)}")
    return [known[name] for name in names]


def available() -> list[Backend]:
    return [backend for backend in all_backends() if backend.availability().available]
