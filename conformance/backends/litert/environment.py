"""Where the LiteRT backend's own Python environment lives, what it holds, and
`topk-conformance setup litert`, which makes it.

onnx2tf, the converter a LiteRT user runs on an ONNX model, brings TensorFlow 2.19, onnxruntime
1.23 and numpy 1.26 with exact pins of its own, which cannot share the suite's environment
(onnxruntime 1.32, numpy 2): it gets a venv of its own in the suite's cache, made from
requirements.txt beside this file (every package pinned as recorded), and the backend's worker
drives a host process there (host.py)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from conformance.backends.cache import SetupFolder, cache_root
from conformance.backends.record import PythonEnvironment, SetupStep
from conformance.backends.setup_steps import Say, SetupError

REQUIREMENTS = Path(__file__).with_name("requirements.txt")
HOST = Path(__file__).with_name("host.py")
ONNX2TF = "1.29.24"  # the last onnx2tf for Python 3.11; requirements.txt pins it
# onnx2tf reads sample images for a graph whose inputs all look like NHWC images from this file in
# its working folder, and downloads it from GitHub where it is missing: setup writes a stand-in,
# which each host's folder links, so a conversion never reaches the network.
SAMPLE_IMAGES = "calibration_image_sample_data_20x128x128x3_float32.npy"
SETUP_HINT = "topk-conformance setup litert"


def folder() -> SetupFolder:
    return SetupFolder(cache_root() / "litert")


def python() -> Path:
    return folder().root / "venv" / "bin" / "python"


def sample_images() -> Path:
    return folder().root / SAMPLE_IMAGES


def requirements_digest() -> str:
    return hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()


def missing() -> str:
    """What the environment lacks, in one line ("" where it is whole)."""
    if not python().is_file():
        return f"LiteRT's environment is not made (no {python()}); run: {SETUP_HINT}"
    if folder().state().get("requirements") != requirements_digest():
        return f"LiteRT's environment holds other packages than this suite pins; run: {SETUP_HINT}"
    if not sample_images().is_file():
        return f"the converter's sample-image stand-in is missing ({sample_images()}); run: {SETUP_HINT}"
    return ""


def _make(say: Say) -> None:
    setup = folder()
    if not missing():
        say(f"LiteRT's environment: present (onnx2tf {ONNX2TF}, {python().parent.parent})")
        return
    venv = python().parent.parent
    say(f"LiteRT's environment: making {venv} (onnx2tf {ONNX2TF}, TensorFlow, ai-edge-litert: about 1.5 GB)")
    steps = [
        [sys.executable, "-m", "venv", "--clear", str(venv)],
        [str(python()), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
         "--only-binary=:all:", "-r", str(REQUIREMENTS)],
    ]
    for step in steps:
        completed = subprocess.run(step, capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False)
        if completed.returncode != 0:
            said = " ".join((completed.stderr or completed.stdout).split())[-600:]
            raise SetupError(f"`{' '.join(step[:4])} ...` failed (exit {completed.returncode}): {said}")
    _write_sample_images()
    setup.update_state(requirements=requirements_digest(), onnx2tf=ONNX2TF)
    say(f"LiteRT's environment: made ({venv})")


def _write_sample_images() -> None:
    """A stand-in for the sample images onnx2tf would download (fixed pseudo-random pixels in
    [0, 1), its shape): written with the environment's own numpy, whose .npy it reads."""
    code = ("import sys, numpy as np; np.save(sys.argv[1], "
            "np.random.default_rng(0).random((20, 128, 128, 3), dtype=np.float32))")
    completed = subprocess.run([str(python()), "-c", code, str(sample_images())], capture_output=True, text=True,
                               stdin=subprocess.DEVNULL, check=False)
    if completed.returncode != 0:
        raise SetupError(f"writing the converter's sample-image stand-in failed: {completed.stderr.strip()[-600:]}")


SETUP = SetupStep("litert", "a Python environment of its own holding onnx2tf and LiteRT (TensorFlow Lite's "
                  "runtime), for the LiteRT backend", _make)

ENVIRONMENT = PythonEnvironment(python, missing)
