"""The machine a result depends on: the CPU, the instruction sets runtimes choose their
kernels by, and the instruction-set tier ("isa") a backend's kernels were chosen under.

Runtimes pick kernels by the CPU's instruction sets (OpenVINO's CPU plugin through oneDNN
and its own CPUID checks, lavapipe compiling shaders for the host), so one wheel can give
different answers on different CPUs. A result records the tier it ran under, and a
baseline entry may be scoped to a range of tiers (`isa: "<avx512_core_bf16"`), so that a
baseline recorded on one machine holds on another (docs/vendors/baselines.md).

The tiers are oneDNN's names (its ONEDNN_MAX_CPU_ISA values, lower-cased), in oneDNN's
order; a CPU's tier is the highest one whose instruction sets it has all of. The features
come from numpy's own runtime detection (CPUID, so an emulated CPU is seen as emulated),
plus, on Linux, the kernel's flags for the few that numpy does not detect (AVX-VNNI, AMX)."""

from __future__ import annotations

import contextlib
import importlib
import os
import platform
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

# (tier, the instruction sets it needs, beyond nothing: each list is complete)
_X86_AVX512 = ("avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl")
X86_TIERS: tuple[tuple[str, frozenset[str]], ...] = tuple((name, frozenset(features)) for name, features in (
    ("sse41", ("sse4_1",)),
    ("avx", ("sse4_1", "avx")),
    ("avx2", ("sse4_1", "avx", "avx2")),
    ("avx2_vnni", ("sse4_1", "avx", "avx2", "avx_vnni")),
    ("avx512_core", ("sse4_1", "avx", "avx2", *_X86_AVX512)),
    ("avx512_core_vnni", ("sse4_1", "avx", "avx2", *_X86_AVX512, "avx512_vnni")),
    ("avx512_core_bf16", ("sse4_1", "avx", "avx2", *_X86_AVX512, "avx512_vnni", "avx512_bf16")),
    ("avx512_core_fp16", ("sse4_1", "avx", "avx2", *_X86_AVX512, "avx512_vnni", "avx512_bf16", "avx512_fp16")),
    ("avx512_core_amx", ("sse4_1", "avx", "avx2", *_X86_AVX512, "avx512_vnni", "avx512_bf16", "avx512_fp16",
                         "amx_tile", "amx_int8", "amx_bf16")),
))
TIER_NAMES = tuple(name for name, _ in X86_TIERS)
_RANK = {name: position for position, name in enumerate(TIER_NAMES)}

# numpy's feature names -> the lower-case names used here (Linux's /proc/cpuinfo flags).
_NUMPY_NAMES = {
    "SSE41": "sse4_1", "SSE42": "sse4_2", "AVX": "avx", "AVX2": "avx2", "FMA3": "fma", "F16C": "f16c",
    "AVX512F": "avx512f", "AVX512CD": "avx512cd", "AVX512BW": "avx512bw", "AVX512DQ": "avx512dq",
    "AVX512VL": "avx512vl", "AVX512VNNI": "avx512_vnni", "AVX512BF16": "avx512_bf16", "AVX512FP16": "avx512_fp16",
    "ASIMD": "asimd", "ASIMDHP": "asimdhp", "ASIMDDP": "asimddp", "ASIMDFHM": "asimdfhm", "SVE": "sve",
}
# Kernel-selecting features numpy does not detect, taken from the kernel's flags, and the
# feature numpy must see for each to count (an emulated CPU shows the host's flags).
_FLAG_ONLY = {"avx_vnni": "avx2", "amx_tile": "avx512_fp16", "amx_int8": "avx512_fp16", "amx_bf16": "avx512_fp16"}
KERNEL_FEATURES = (*_NUMPY_NAMES.values(), *_FLAG_ONLY)
# Set in a worker that runs on an emulated CPU (conformance/backends/isa_limit.py): there the kernel's
# flags describe the host, not the CPU the process sees.
EMULATED_CPU_VARIABLE = "TOPK_EMULATED_CPU"


@cache
def cpu_features() -> frozenset[str]:
    """The kernel-selecting instruction sets this process's CPU reports."""
    detected: dict[str, bool] = {}
    for module in ("numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):  # numpy 2, 1
        with contextlib.suppress(ImportError):
            detected = importlib.import_module(module).__cpu_features__
            break
    found = {ours for theirs, ours in _NUMPY_NAMES.items() if detected.get(theirs)}
    flags = set() if os.environ.get(EMULATED_CPU_VARIABLE) else set(_cpuinfo_field("flags").split())
    found |= {flag for flag, needs in _FLAG_ONLY.items() if flag in flags and needs in found}
    return frozenset(found)


def _cpuinfo_field(name: str) -> str:
    """The first value of a /proc/cpuinfo field (Linux), else ""."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    match = re.search(rf"^{re.escape(name)}\s*:\s*(.*)$", text, re.MULTILINE)
    return match.group(1).strip() if match else ""


@cache
def cpu_name() -> str:
    """Vendor and model as the OS names them (`AMD EPYC 9B14 (AuthenticAMD)`)."""
    model = _cpuinfo_field("model name") or platform.processor() or platform.machine()
    vendor = _cpuinfo_field("vendor_id")
    name = f"{model} ({vendor})" if vendor else model
    emulator = os.environ.get(EMULATED_CPU_VARIABLE)
    return f"emulated by {emulator}, on {name}" if emulator else name


def tier_of(features: Iterable[str]) -> str:
    """The highest tier whose instruction sets are all in `features`; off x86-64, the
    architecture (with `+sve` where the CPU has SVE); "" where nothing is known."""
    have = set(features)
    if "sse4_1" not in have:
        arch = platform.machine().lower()
        return f"{arch}+sve" if "sve" in have else arch
    return [name for name, needs in X86_TIERS if needs <= have][-1]


@cache
def host_tier() -> str:
    return tier_of(cpu_features())


def capped(tier: str, limit: str) -> str:
    """`tier` limited to at most `limit` (x86-64 tier names); unchanged without a limit ("")."""
    if tier not in _RANK or limit not in _RANK:
        return tier
    return tier if _RANK[tier] <= _RANK[limit] else limit


def features_of_tier(tier: str) -> frozenset[str]:
    return dict(X86_TIERS).get(tier, frozenset())


def describe(tier: str) -> dict[str, str]:
    """The machine part of a backend's description (results' `backends`, the report)."""
    features = sorted(cpu_features(), key=KERNEL_FEATURES.index)
    return {"cpu": cpu_name(), "cpu_features": " ".join(features), "isa": tier}


# --- scopes: where a baseline entry holds ---------------------------------------------------

# What tier_of() gives off x86-64 (platform.machine(), lower case; `+sve` may follow).
ARCHITECTURES = ("aarch64", "arm64", "armv7l", "armv8l", "ppc64le", "s390x", "riscv64", "loongarch64", "i686", "x86_64")


class ScopeError(ValueError):
    """A scope that names no known tier, or is not of the scope form."""


@dataclass(frozen=True)
class Scope:
    """A range of tiers: `">=avx512_core <avx512_core_bf16"` (every condition holds), or one
    tier by name (`avx2`, also an architecture such as `aarch64`). "" is everywhere."""

    text: str

    @staticmethod
    def parse(text: str) -> Scope:
        conditions = _conditions(text)
        for operator, name in conditions:
            if operator and name not in _RANK:
                raise ScopeError(f"{name!r} is not an instruction-set tier; known: {', '.join(TIER_NAMES)}")
            if not operator and name not in _RANK and name.removesuffix("+sve") not in ARCHITECTURES:
                # A misspelt tier would hold nowhere, silently, even under --strict-baseline.
                raise ScopeError(f"{name!r} is neither an instruction-set tier ({', '.join(TIER_NAMES)}) nor an "
                                 f"architecture ({', '.join(ARCHITECTURES)})")
        scope = Scope(" ".join(text.split()))
        named = {name for _, name in conditions}
        if conditions and not any(scope.holds(tier) for tier in (*TIER_NAMES, *named)):
            raise ScopeError(f"{scope.text!r} holds on no tier")
        return scope

    def holds(self, tier: str) -> bool:
        """Whether a result of this tier is in the scope ("" tier: unknown, only the
        scope that is everywhere holds)."""
        if not self.text:
            return True
        if not tier:
            return False
        for operator, name in _conditions(self.text):
            if not operator:
                if tier != name:
                    return False
                continue
            if tier not in _RANK:
                return False
            difference = _RANK[tier] - _RANK[name]
            if not {"<": difference < 0, "<=": difference <= 0, ">": difference > 0, ">=": difference >= 0}[operator]:
                return False
        return True


@cache
def _conditions(text: str) -> tuple[tuple[str, str], ...]:
    """A scope's conditions, (operator or "", tier), parsed once per text."""
    return tuple(_split_condition(condition) for condition in text.split())


def _split_condition(condition: str) -> tuple[str, str]:
    match = re.fullmatch(r"(<=|>=|<|>)?([a-z0-9_+]+)", condition)
    if match is None:
        raise ScopeError(f"{condition!r} is not a tier or a comparison with one (>=avx512_core, <avx2)")
    return match.group(1) or "", match.group(2)


def scopes_between(tiers: list[str]) -> list[Scope]:
    """For tiers in order whose results differ at each step, the scope of each: the first
    reaches down to every lower tier, the last up to every higher one, and each boundary
    sits at the higher of the two observed tiers (an unobserved tier between them falls
    with the lower)."""
    scopes = []
    for position, tier in enumerate(tiers):
        conditions = []
        if position > 0:
            conditions.append(f">={tier}")
        if position + 1 < len(tiers):
            conditions.append(f"<{tiers[position + 1]}")
        scopes.append(Scope(" ".join(conditions)))
    return scopes


def tier_order(tier: str) -> int:
    return _RANK.get(tier, len(_RANK))
