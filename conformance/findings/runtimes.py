"""The runtimes findings are about, one record each: where a maintainer takes a report (its
tracker and the form it asks for), the prefix of its findings' ids, the PyPI distribution whose
releases `findings history` varies, and where its repros run. The findings tooling consults
these records and keeps no table of its own keyed by a runtime's name: a new runtime is a new
record here (and its findings' `runtime` names it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from conformance.backends.litert.environment import ENVIRONMENT as LITERT_ENVIRONMENT
from conformance.backends.record import PythonEnvironment

# The form an upstream issue takes: OpenVINO's bug form, ONNX Runtime's (every provider and
# ONNX Runtime Web), ONNX's bug template, or a plain report with the same parts.
IssueForm = Literal["openvino-bug", "onnxruntime-bug", "onnx-bug", "plain"]
# A finding's id: an operator family's prefix for operators after TopK, then the runtime's.
OPERATOR_PREFIXES = ("AM-", "HM-", "NMS-")


@dataclass(frozen=True)
class Provider:
    """How ONNX Runtime's bug form names where a finding shows: the first whose `section_has`
    is in the finding's section ("" : any)."""

    name: str  # "Execution Provider"
    section_has: str = ""
    api: str = "Python"  # "ONNX Runtime API"
    platform: str = ""  # "Platform" ("": this machine's OS)


@dataclass(frozen=True)
class Releases:
    """The distribution whose releases `findings history` installs, each in an environment of
    its own; or, with `elsewhere`, why it cannot (its releases are not on PyPI)."""

    distribution: str
    measured: tuple[str, ...] = ()  # measured when none are named: from 2024 on, a few a year
    module: str = ""  # imported once to see that a release loads
    together: tuple[str, ...] = ()  # released in step with it: installed at the same version
    # A release whose requirement admits a later companion it cannot load with, and the
    # companion of its time (release, pins).
    of_its_time: tuple[tuple[str, tuple[str, ...]], ...] = ()
    elsewhere: str = ""

    def pins_of(self, version: str) -> tuple[str, ...]:
        return next((pins for release, pins in self.of_its_time if release == version), ())


@dataclass(frozen=True)
class RuntimeRecord:
    name: str  # as a finding's `runtime` says
    tracker: str  # owner/repo of its issue tracker
    prefixes: tuple[str, ...]  # its findings' ids: PREFIX then a number (after an operator prefix)
    form: IssueForm = "plain"
    providers: tuple[Provider, ...] = ()  # for ONNX Runtime's form
    releases: Releases | None = None
    # Its repros run in this environment of its own (the backend's), not one made of their needs.
    environment: PythonEnvironment | None = None
    # Its repros import npm packages from a node_modules beside them: the web setup's.
    node_modules: bool = False

    def provider(self, section: str) -> Provider:
        return next((p for p in self.providers if p.section_has in section), Provider(self.name))


_ORT_RELEASES = ("1.20.1", "1.22.1", "1.24.4", "1.26.0", "1.28.0", "1.30.0", "1.31.1", "1.32.0")

RUNTIMES: tuple[RuntimeRecord, ...] = (
    RuntimeRecord("openvino", "openvinotoolkit/openvino", ("OV",), "openvino-bug", releases=Releases(
        "openvino", ("2024.0.0", "2024.3.0", "2024.6.0", "2025.0.0", "2025.2.0", "2025.4.1", "2026.0.0", "2026.2.1",
                     "2026.4.1"), "openvino")),
    RuntimeRecord("onnxruntime", "microsoft/onnxruntime", ("ORT",), "onnxruntime-bug", (Provider("Default CPU"),),
                  Releases("onnxruntime", _ORT_RELEASES, "onnxruntime")),
    RuntimeRecord("onnxruntime-openvino", "microsoft/onnxruntime", ("ORTOV",), "onnxruntime-bug",
                  (Provider("OpenVINO"),),
                  Releases("onnxruntime-openvino", ("1.20.0", "1.21.0", "1.22.0", "1.23.0", "1.24.1"), "onnxruntime")),
    RuntimeRecord("onnxruntime-directml", "microsoft/onnxruntime", ("ORTDML",), "onnxruntime-bug",
                  (Provider("DirectML"),),
                  Releases("onnxruntime-directml", elsewhere="its wheels are for Windows only")),
    RuntimeRecord("onnxruntime-web", "microsoft/onnxruntime", ("WASM", "WGPU"), "onnxruntime-bug",
                  (Provider("WebGPU (onnxruntime-web)", "webgpu", "JavaScript", "Web Browser"),
                   Provider("WebAssembly (onnxruntime-web)", "", "JavaScript")),
                  Releases("onnxruntime-web", elsewhere="its releases are npm packages (onnxruntime-web@VERSION)"),
                  node_modules=True),
    RuntimeRecord("onnx", "onnx/onnx", ("REF",), "onnx-bug", releases=Releases(
        "onnx", ("1.17.0", "1.18.0", "1.19.1", "1.20.1", "1.21.0", "1.22.0", "1.23.2"), "onnx")),
    RuntimeRecord("directml", "microsoft/DirectML", ("DML",)),
    RuntimeRecord("tract", "sonos/tract", ("TR",), releases=Releases(
        "tract", ("0.19.15", "0.20.22", "0.21.19", "0.22.4", "0.23.9"), "tract")),
    RuntimeRecord("iree", "iree-org/iree", ("IREE",), releases=Releases(
        "iree-base-compiler", ("3.0.0", "3.3.0", "3.6.0", "3.9.0", "3.11.0", "3.12.0", "3.13.0"), "iree.compiler",
        together=("iree-base-runtime",))),
    # apache-tvm 0.25.0 asks for apache-tvm-ffi>=0.1.12, and its libtvm_runtime.so lacks symbols
    # from 0.1.13 on (measured: 0.1.12 loads, 0.1.13.post3 and 0.1.14.post1 do not).
    RuntimeRecord("tvm", "apache/tvm", ("TVM",), releases=Releases(
        "apache-tvm", ("0.25.0", "0.26.0", "0.27.0.post1"), "tvm",
        of_its_time=(("0.25.0", ("apache-tvm-ffi==0.1.12",)),))),
    RuntimeRecord("tinygrad", "tinygrad/tinygrad", ("TG",), releases=Releases(
        "tinygrad", ("0.10.3", "0.11.0", "0.12.0", "0.13.0", "0.14.0"), "tinygrad")),
    RuntimeRecord("mnn", "alibaba/MNN", ("MNN",), releases=Releases(
        "mnn", ("3.0.0", "3.2.0", "3.4.1", "3.5.0", "3.6.0", "3.6.1"), "MNN")),
    # 2.1.0 is the one onnx2tf 1.29.24 pins, and so the litert-cpu backend's. Its repros convert
    # with onnx2tf's TensorFlow (about 1.7 GB): they run in the backend's environment.
    RuntimeRecord("litert", "google-ai-edge/LiteRT", ("LRT",), releases=Releases(
        "ai-edge-litert", ("1.0.1", "1.2.0", "1.4.0", "2.0.3", "2.1.0", "2.1.6", "2.2.0", "2.3.0"), "ai_edge_litert"),
        environment=LITERT_ENVIRONMENT),
)


class UnknownRuntime(KeyError):
    pass


def runtime(name: str) -> RuntimeRecord:
    for record in RUNTIMES:
        if record.name == name:
            return record
    raise UnknownRuntime(f"no runtime {name!r} (the runtimes: {', '.join(r.name for r in RUNTIMES)})")


def releases_of(distribution: str) -> Releases | None:
    """The releases record of a distribution `findings history` can vary, or None."""
    return next((r.releases for r in RUNTIMES if r.releases and r.releases.distribution == distribution), None)


def distributions(measured: bool = True) -> Sequence[str]:
    """The distributions `findings history` varies (with releases it measures by default)."""
    return [r.releases.distribution for r in RUNTIMES
            if r.releases and (r.releases.measured or not measured)]


def id_prefixes() -> list[str]:
    return [prefix for record in RUNTIMES for prefix in record.prefixes]


def id_problem(finding_id: str, runtime_name: str) -> str:
    """Why an id does not fit its runtime's prefixes ("" where it does)."""
    try:
        record = runtime(runtime_name)
    except UnknownRuntime as exc:
        return f"runtime: {exc.args[0]}"
    bare = next((finding_id[len(p):] for p in OPERATOR_PREFIXES if finding_id.startswith(p)), finding_id)
    prefix = bare.rstrip("0123456789")
    if prefix not in record.prefixes or prefix == bare:
        return (f"id: {finding_id!r} does not begin with one of {runtime_name}'s prefixes "
                f"({', '.join(record.prefixes)}), after an operator's ({', '.join(OPERATOR_PREFIXES)}), "
                "and end with a number")
    return ""
