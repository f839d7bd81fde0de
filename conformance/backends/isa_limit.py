"""A CPU backend held to fewer instruction sets than the host has, to give on one machine the
answers a machine of a lower tier gives (`openvino-cpu-avx2`, `openvino-cpu-avx`).

Two layers, both needed (docs/semantics.md, "Instruction sets"): ONEDNN_MAX_CPU_ISA, set in
the worker before OpenVINO loads, caps the kernels oneDNN chooses; but OpenVINO's CPU plugin
also asks CPUID itself (K = 1 with ties takes another kernel on an AVX2 CPU whatever the
oneDNN limit says), so where the host has more than the limit the worker runs on an
emulated CPU that has exactly the limit's instruction sets: QEMU's user-mode x86-64
emulator, whose TCG implements AVX2 and no AVX-512. Where the host's tier is the limit,
the worker runs natively; where it is below, or not x86-64, the backend is unavailable."""

from __future__ import annotations

import importlib
import os
import shutil
import sys

from conformance.backends.base import Availability, WorkerLaunch
from conformance.backends.record import SetupStep
from conformance.backends.setup_steps import Say, install_packages
from conformance.core import machine

QEMU = "qemu-x86_64"
DEBIAN_PACKAGES = ("qemu-user",)  # `topk-conformance setup isa-limits` installs them
# The QEMU CPU model of each limit: TCG's "max" is an AVX2 CPU without AVX-512 or AVX-VNNI.
QEMU_CPU = {"avx2": "max", "avx": "max,-avx2"}
ONEDNN_LIMIT = {"avx2": "AVX2", "avx": "AVX"}
LIMITS = tuple(QEMU_CPU)
ONEDNN_VARIABLE = "ONEDNN_MAX_CPU_ISA"


def numpy_baseline_only() -> dict[str, str]:
    """The worker's numpy held to its baseline instructions (NPY_DISABLE_CPU_FEATURES naming every
    target it dispatches to): the judge runs in the worker, under the emulator too, and QEMU 7.2's
    TCG gave numpy's AVX2-level (X86_V3) float32 loops wrong answers here: an IoU of 0.5714 for two
    boxes that do not meet (NonMaxSuppression's judge then called OpenVINO's right answer wrong).
    Only numpy's own code is held: the runtime's kernels still run as that tier's machine runs them."""
    try:
        umath = importlib.import_module("numpy._core._multiarray_umath")  # numpy's own list of its targets
    except ImportError:
        return {}
    targets = getattr(umath, "__cpu_dispatch__", ())
    return {"NPY_DISABLE_CPU_FEATURES": " ".join(targets)} if targets else {}


def launch(limit: str) -> WorkerLaunch:
    """The worker of a backend held to `limit`: the oneDNN limit always; the emulator where
    the host has more than the limit and QEMU is installed (without it, the worker's
    availability says why it cannot run)."""
    env = {ONEDNN_VARIABLE: ONEDNN_LIMIT[limit]}
    host = machine.host_tier()
    qemu = shutil.which(QEMU)
    if machine.capped(host, limit) == limit and host != limit and qemu and sys.platform.startswith("linux"):
        env[machine.EMULATED_CPU_VARIABLE] = f"{QEMU} -cpu {QEMU_CPU[limit]}"
        env.update(numpy_baseline_only())
        return WorkerLaunch(env, (qemu, "-cpu", QEMU_CPU[limit]))
    return WorkerLaunch(env)


def availability(limit: str) -> Availability:
    """Asked in the worker: whether this process runs held to the limit, and if not, why."""
    tier = machine.host_tier()
    if tier not in machine.TIER_NAMES:
        return Availability(False, f"the {limit} limit is for x86-64 CPUs; this one is {tier or 'unknown'}")
    if machine.capped(tier, limit) != limit:
        return Availability(False, f"this CPU's instruction sets reach only {tier}, below {limit}")
    if tier != limit and not shutil.which(QEMU):
        return Availability(False, f"this CPU has {tier}; held to {limit}, OpenVINO must run on an emulated {limit} "
                                   f"CPU, since its CPU plugin reads CPUID itself: {QEMU} not found (Debian's "
                                   "qemu-user: topk-conformance setup isa-limits)")
    if tier != limit:
        return Availability(False, f"this process sees {tier}: a backend held to {limit} runs only in its own "
                                   "worker (not --in-process)")
    if os.environ.get(ONEDNN_VARIABLE) != ONEDNN_LIMIT[limit]:
        return Availability(False, f"{ONEDNN_VARIABLE} is not {ONEDNN_LIMIT[limit]} in this process: a backend "
                                   f"held to {limit} runs only in its own worker (not --in-process)")
    return Availability(True)


def describe(limit: str) -> dict[str, str]:
    emulator = os.environ.get(machine.EMULATED_CPU_VARIABLE, "")
    where = f"on an emulated CPU ({emulator})" if emulator else "natively (the CPU's own tier is the limit)"
    return {"isa_limit": f"{limit}: {ONEDNN_VARIABLE}={ONEDNN_LIMIT[limit]}, {where}"}


def _install(say: Say) -> None:
    install_packages(say, DEBIAN_PACKAGES, "the instruction-set limited backends")


SETUP = SetupStep("isa-limits", "QEMU's user-mode emulator, for the backends held to a lower instruction-set tier "
                  "on a CPU with more", _install)
