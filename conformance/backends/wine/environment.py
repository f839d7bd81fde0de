"""Where the Wine DirectML setup lives and how its programs are started: the cache folder,
the pinned wheel, Wine's `wined3d.dll` hashes, the environment Wine runs in, and an Xvfb
display of the suite's own. `topk-conformance setup directml` fills the folder
(conformance/backends/wine/provision.py); the two Wine backends read it."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from conformance.backends.cache import SetupFolder, cache_root
from conformance.core.processes import die_with_parent

# The onnxruntime-directml wheel carries onnxruntime.dll and DirectML.dll. constraints.txt
# pins the same version; tests/test_directml_setup.py keeps the two equal.
WHEEL_PACKAGE = "onnxruntime-directml"
WHEEL_VERSION = "1.24.4"
WHEEL_DLLS = ("onnxruntime.dll", "onnxruntime_providers_shared.dll", "DirectML.dll")

DEBIAN_PACKAGES = ("wine", "wine64", "mesa-vulkan-drivers", "xvfb", "gcc-mingw-w64-x86-64")
LAVAPIPE_ICD = Path("/usr/share/vulkan/icd.d/lvp_icd.x86_64.json")

# Wine 8.0's vkd3d 1.6 rejects every descriptor table on a Vulkan driver without
# VK_EXT_descriptor_indexing (lavapipe in Mesa 22.3), while every call reports success:
# outputs come back untouched. The patch (docs/semantics.md, DirectML under Wine) removes that
# one check in a copy of the DLL; it is applied only to the build it was verified on.
STOCK_WINED3D = Path("/usr/lib/x86_64-linux-gnu/wine/x86_64-windows/wined3d.dll")
WINED3D_STOCK_SHA256 = "2355630ef8ad3900504e17f8f569171fcc4c2978da4e147d2e678584f6f5058d"
WINED3D_PATCHED_SHA256 = "dd82b3f59cd2ca1fe69487f98682330cdb9715535000d80c76f79d3ee0d2a26b"
WINED3D_JUMP_OFFSET = 0x1108CE
WINED3D_JUMP = bytes.fromhex("0f85bc000000")  # jne taken when the descriptor check fails
WINED3D_MARKER_OFFSET = 0x40
WINED3D_MARKER = b"Wine builtin DLL"  # zeroed, or Wine loads its builtin copy instead

BRIDGE_SOURCES = Path(__file__).parent / "bridge"
BRIDGE_LIBRARIES = ("-ld3d12", "-ldxgi", "-lversion", "-lole32")


@dataclass(frozen=True)
class WineSetup(SetupFolder):
    """The folder `setup directml` fills, and how to start a program from it."""

    patched_wined3d: bool = True  # False only to show what the stock DLL does (tests)

    @property
    def bin(self) -> Path:
        return self.root / "bin"  # bridge.exe, the wheel's DLLs, the patched wined3d.dll

    @property
    def prefix(self) -> Path:
        return self.root / "prefix"

    @property
    def bridge_exe(self) -> Path:
        return self.bin / "bridge.exe"

    def missing(self) -> str:
        """What keeps the bridge from starting, or "" when nothing does."""
        hint = "; run `topk-conformance setup directml`"
        for tool in ("wine", "Xvfb"):
            if shutil.which(tool) is None:
                return f"`{tool}` is not installed{hint}"
        state = self.state()
        if self.patched_wined3d and state.get("wined3d") == "unsupported":
            return str(state.get("wined3d_reason"))
        if not state.get("complete"):
            return f"the DirectML setup in {self.root} is missing or incomplete{hint}"
        if self.patched_wined3d and state.get("wined3d") != "patched":
            return str(state.get("wined3d_reason") or f"no patched wined3d.dll in {self.bin}{hint}")
        for name in ("bridge.exe", *WHEEL_DLLS):
            if not (self.bin / name).is_file():
                return f"{self.bin / name} is missing{hint}"
        return ""

    def environment(self, display: str) -> dict[str, str]:
        overrides = "mscoree,mshtml="
        if self.patched_wined3d:
            overrides += ";wined3d=n"  # the patched copy beside bridge.exe
        runtime_dir = self.root / "xdg-runtime"
        runtime_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        return {
            **os.environ,
            "WINEPREFIX": str(self.prefix),
            "WINEARCH": "win64",
            "WINEDEBUG": "-all",
            "WINEDLLOVERRIDES": overrides,
            "VK_ICD_FILENAMES": str(LAVAPIPE_ICD),
            "XDG_RUNTIME_DIR": str(runtime_dir),
            "DISPLAY": display,
        }


def default_setup() -> WineSetup:
    return WineSetup(cache_root() / "directml")


class Display:
    """An Xvfb server of the suite's own: D3D12 under Wine needs an X display, and a
    display number chosen by Xvfb itself (-displayfd) cannot collide with another."""

    def __init__(self) -> None:
        read_end, write_end = os.pipe()
        try:
            self.process = subprocess.Popen(
                ["Xvfb", "-displayfd", str(write_end), "-nolisten", "tcp", "-screen", "0", "640x480x24"],
                pass_fds=(write_end,), stdin=subprocess.DEVNULL, preexec_fn=die_with_parent,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
        finally:
            os.close(write_end)
        with os.fdopen(read_end, "rb") as announced:
            number = announced.readline().strip()
        if not number:
            self.close()
            raise RuntimeError("Xvfb did not start (no display number announced)")
        self.name = f":{number.decode()}"

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _first_line(command: list[str]) -> str:
    try:
        completed = subprocess.run(command, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return completed.stdout.strip().splitlines()[0] if completed.stdout.strip() else ""


@cache
def translation_layer() -> dict[str, str]:
    """The layers between DirectML and the CPU, for results and reports: these columns
    show DirectML's semantics on a software Vulkan adapter, not a GPU driver's."""

    def package(name: str) -> str:
        return _first_line(["dpkg-query", "-W", "-f", "${Version}", name]) or "unknown"

    return {
        "wine": _first_line(["wine", "--version"]) or "unknown",
        # Debian's Wine 8.0 links its own vkd3d into wined3d.dll (1.6 in 8.0~repack-4).
        "vkd3d": "bundled in wined3d.dll (libwine " + package("libwine") + ")",
        "mesa_lavapipe": package("mesa-vulkan-drivers"),
        "semantics": "DirectML's own shaders on a software Vulkan adapter (Mesa lavapipe via "
        "Wine's vkd3d); says nothing about any GPU's driver",
    }
