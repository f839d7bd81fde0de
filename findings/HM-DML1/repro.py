"""DirectML's DML_OPERATOR_ACTIVATION_HARDMAX and DML_OPERATOR_ACTIVATION_HARDMAX1 refuse a tensor with a zero-sized
dimension (float32 of shape [3, 0]) at IDMLDevice::CreateOperator with E_INVALIDARG, although their documents ask
only that the output have the input's sizes; both run on a [3, 3] tensor.

Needs wine, Xvfb and x86_64-w64-mingw32-gcc; Python's standard library only. It compiles repro_windows.c, the C
program beside it on D3D12 and DirectML's own API (what a maintainer on Windows builds and runs), and runs it under
Wine 8.0 on Mesa lavapipe, a software Vulkan adapter that Wine names "NVIDIA GeForce GTX 470", beside the DirectML.dll
(1.15.4 as tested) and the patched wined3d.dll that `topk-conformance setup directml` puts in
$TOPK_CONFORMANCE_CACHE/directml (by default ~/.cache/topk-conformance/directml), in the Wine prefix there. The
program prints each input, DirectML's output and the documents' answer. Last line: REPRODUCED (exit 0),
NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import os
import platform
import shutil
import subprocess
import sys
import tempfile


def cannot(why):
    print(f"CANNOT RUN: {why}")
    sys.exit(2)


ROOT = os.path.join(os.environ.get("TOPK_CONFORMANCE_CACHE") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "topk-conformance"), "directml")
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "repro_windows.c")
LAVAPIPE = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"  # Mesa's software Vulkan driver
missing = ["repro_windows.c is missing beside this script"] if not os.path.isfile(SOURCE) else []
missing += [f"{tool} is not installed" for tool in ("wine", "Xvfb", "x86_64-w64-mingw32-gcc") if not shutil.which(tool)]
missing += [f"{path} is missing (Mesa lavapipe; `topk-conformance setup directml` makes the rest)" for path in
            (LAVAPIPE, *(os.path.join(ROOT, name) for name in ("bin/DirectML.dll", "bin/wined3d.dll", "prefix")))
            if not os.path.exists(path)]
if missing:
    cannot(missing[0])
versions = os.popen("wine --version 2>/dev/null; dpkg-query -W -f '${Version}' mesa-vulkan-drivers").read()
print("Python", platform.python_version(), "|", platform.platform(), "|", versions.replace("\n", " | Mesa lavapipe "))
with tempfile.TemporaryDirectory() as scratch:
    built = subprocess.run(["x86_64-w64-mingw32-gcc", "-o", "repro_windows.exe", SOURCE, "-ld3d12", "-ldxgi",
                            "-lversion"], cwd=scratch, capture_output=True, text=True)
    if built.returncode:
        cannot("repro_windows.c did not compile: " + built.stderr.strip()[-400:])
    for name in ("DirectML.dll", "wined3d.dll"):  # DirectML.dll and the patched wined3d.dll, beside the .exe
        os.symlink(os.path.join(ROOT, "bin", name), os.path.join(scratch, name))
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", "1", "-nolisten", "tcp"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)  # it picks a free display and prints its number
    env = dict(os.environ, WINEPREFIX=os.path.join(ROOT, "prefix"), WINEDEBUG="-all", VK_ICD_FILENAMES=LAVAPIPE,
               WINEDLLOVERRIDES="mscoree,mshtml=;wined3d=n", DISPLAY=":" + xvfb.stdout.readline().decode().strip())
    done = subprocess.run(["timeout", "50", "wine", "repro_windows.exe"], env=env, cwd=scratch, capture_output=True,
                          text=True)
    xvfb.terminate()
if done.returncode == 124:
    cannot("repro_windows.exe did not finish within 50 s under Wine")
print(done.stdout, end="")
sys.exit(done.returncode)
