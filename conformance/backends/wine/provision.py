"""`topk-conformance setup directml`: everything the two Wine backends need, each step
skipped when already done (a second run takes seconds). Steps: Debian packages, the
onnxruntime-directml wheel's DLLs, the bridge built from source, a patched copy of
wined3d.dll (only for the Wine build the patch was verified on), a Wine prefix."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from conformance.backends.record import SetupStep
from conformance.backends.setup_steps import Say, SetupError, install_packages
from conformance.backends.wine.environment import (
    BRIDGE_LIBRARIES,
    BRIDGE_SOURCES,
    DEBIAN_PACKAGES,
    STOCK_WINED3D,
    WHEEL_DLLS,
    WHEEL_PACKAGE,
    WHEEL_VERSION,
    WINED3D_JUMP,
    WINED3D_JUMP_OFFSET,
    WINED3D_MARKER,
    WINED3D_MARKER_OFFSET,
    WINED3D_PATCHED_SHA256,
    WINED3D_STOCK_SHA256,
    Display,
    WineSetup,
    default_setup,
)


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_wheel_dlls(setup: WineSetup, say: Say) -> None:
    state = setup.state()
    if state.get("wheel") == WHEEL_VERSION and all((setup.bin / name).is_file() for name in WHEEL_DLLS):
        say(f"{WHEEL_PACKAGE} {WHEEL_VERSION}: present")
        return
    say(f"{WHEEL_PACKAGE} {WHEEL_VERSION}: downloading the Windows wheel")
    with tempfile.TemporaryDirectory() as folder:
        command = [
            sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
            "--platform", "win_amd64", "--python-version", "3.11", "--dest", folder,
            f"{WHEEL_PACKAGE}=={WHEEL_VERSION}",
        ]
        completed = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        wheels = list(Path(folder).glob("*.whl"))
        if completed.returncode != 0 or not wheels:
            raise SetupError(f"pip could not download {WHEEL_PACKAGE}=={WHEEL_VERSION}:\n{completed.stderr[-2000:]}")
        setup.bin.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheels[0]) as wheel:
            for name in WHEEL_DLLS:
                (setup.bin / name).write_bytes(wheel.read(f"onnxruntime/capi/{name}"))
    setup.update_state(wheel=WHEEL_VERSION)


def bridge_source_hash() -> str:
    digest = hashlib.sha256()
    for path in sorted(BRIDGE_SOURCES.glob("*.[ch]")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    digest.update(" ".join(BRIDGE_LIBRARIES).encode())
    return digest.hexdigest()


def build_bridge(setup: WineSetup, say: Say) -> None:
    wanted = bridge_source_hash()
    if setup.state().get("bridge") == wanted and setup.bridge_exe.is_file():
        say("bridge.exe: up to date")
        return
    compiler = shutil.which("x86_64-w64-mingw32-gcc")
    if compiler is None:
        raise SetupError("x86_64-w64-mingw32-gcc is missing (Debian package gcc-mingw-w64-x86-64)")
    say("bridge.exe: building from " + str(BRIDGE_SOURCES))
    setup.bin.mkdir(parents=True, exist_ok=True)
    sources = sorted(str(path) for path in BRIDGE_SOURCES.glob("*.c"))
    command = [compiler, "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(setup.bridge_exe), *sources, *BRIDGE_LIBRARIES]
    completed = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if completed.returncode != 0:
        raise SetupError(f"building the bridge failed:\n{completed.stderr[-4000:]}")
    setup.update_state(bridge=wanted)


def patch_wined3d(setup: WineSetup, say: Say) -> None:
    """A patched copy beside bridge.exe, only when the installed DLL is the verified build;
    otherwise the reason is recorded and the backends report themselves unavailable."""
    target = setup.bin / "wined3d.dll"
    if target.is_file() and sha256(target) == WINED3D_PATCHED_SHA256:
        say("wined3d.dll: patched copy present")
        setup.update_state(wined3d="patched", wined3d_reason="")
        return
    found = sha256(STOCK_WINED3D) if STOCK_WINED3D.is_file() else "missing"
    if found != WINED3D_STOCK_SHA256:
        reason = (
            f"Wine's {STOCK_WINED3D} has sha256 {found}, not the build whose vkd3d fix was verified "
            f"({WINED3D_STOCK_SHA256}); stock Wine 8.0 returns DirectML outputs untouched on lavapipe, "
            "and another build is not patched blind"
        )
        say("wined3d.dll: NOT patched: " + reason)
        target.unlink(missing_ok=True)
        setup.update_state(wined3d="unsupported", wined3d_reason=reason)
        return
    data = bytearray(STOCK_WINED3D.read_bytes())
    jump = slice(WINED3D_JUMP_OFFSET, WINED3D_JUMP_OFFSET + len(WINED3D_JUMP))
    marker = slice(WINED3D_MARKER_OFFSET, WINED3D_MARKER_OFFSET + len(WINED3D_MARKER))
    if data[jump] != WINED3D_JUMP or data[marker] != WINED3D_MARKER:
        raise SetupError("wined3d.dll has the verified hash but not the expected bytes; refusing to patch")
    data[jump] = b"\x90" * len(WINED3D_JUMP)  # nop out the jump
    data[marker] = bytes(len(WINED3D_MARKER))
    if hashlib.sha256(data).hexdigest() != WINED3D_PATCHED_SHA256:
        raise SetupError("the patched wined3d.dll does not have the verified hash; refusing to use it")
    setup.bin.mkdir(parents=True, exist_ok=True)
    target.write_bytes(bytes(data))
    say("wined3d.dll: patched copy written (vkd3d descriptor-heap check removed)")
    setup.update_state(wined3d="patched", wined3d_reason="")


def make_prefix(setup: WineSetup, say: Say) -> None:
    if (setup.prefix / "system.reg").is_file():
        say(f"Wine prefix: present ({setup.prefix})")
        return
    say(f"Wine prefix: creating {setup.prefix} (about 20 s)")
    setup.prefix.parent.mkdir(parents=True, exist_ok=True)
    display = Display()
    try:
        env = setup.environment(display.name)
        # An inherited terminal stdin makes wineboot lose its output: give it /dev/null.
        completed = subprocess.run(
            ["wineboot", "-i"], env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300,
        )
        subprocess.run(["wineserver", "-w"], env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    finally:
        display.close()
    if not (setup.prefix / "system.reg").is_file():
        raise SetupError(
            f"wineboot did not create the prefix (exit {completed.returncode}):\n{completed.stderr[-2000:]}"
        )


def provision(setup: WineSetup, say: Say = print) -> None:
    """Every step in order; raises SetupError with what to do when one cannot be done."""
    setup.update_state(complete=False)
    install_packages(say, DEBIAN_PACKAGES, "the Wine backends")
    fetch_wheel_dlls(setup, say)
    build_bridge(setup, say)
    patch_wined3d(setup, say)
    make_prefix(setup, say)
    setup.update_state(complete=True)


# The backends prove the bridge on known inputs before they call themselves available: asked
# in this process, as the setup's own check.
def _provision_here(say: Say) -> None:
    provision(default_setup(), say=say)


SETUP = SetupStep("directml", "Wine, the onnxruntime-directml DLLs and the bridge, for the DirectML backends "
                  "under Wine (Debian packages need root)", _provision_here, probe_seconds=None)
