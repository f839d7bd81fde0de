"""Every backend the suite knows, by contract name; third-party backends join through the
`topk_conformance.backends` entry point group (a callable returning Backend objects)."""

from __future__ import annotations

from importlib import metadata

from backends.base import Backend
from backends.directml_wine import DirectMLWine
from backends.onnx_reference import OnnxReference
from backends.openvino_native import OpenVINO
from backends.ort_cpu import OrtCpu
from backends.ort_cuda import OrtCuda
from backends.ort_dml import OrtDml
from backends.ort_dml_wine import OrtDmlWine
from backends.ort_openvino import OrtOpenVINO

OPENVINO_DEVICES = ("CPU", "GPU", "NPU")


def all_backends() -> list[Backend]:
    found: list[Backend] = [
        OnnxReference(), OrtCpu(), OrtOpenVINO(), OrtCuda(), OrtDml(), OrtDmlWine(), DirectMLWine(),
        *(OpenVINO(device) for device in OPENVINO_DEVICES),
    ]
    for entry in metadata.entry_points(group="topk_conformance.backends"):
        found += list(entry.load()())
    return found


def backend_names() -> list[str]:
    return [backend.name for backend in all_backends()]


def by_name(names: list[str]) -> list[Backend]:
    known = {backend.name: backend for backend in all_backends()}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise KeyError(f"unknown backend {', '.join(unknown)}; known: {', '.join(known)}")
    return [known[name] for name in names]


def available() -> list[Backend]:
    return [backend for backend in all_backends() if backend.availability().available]
