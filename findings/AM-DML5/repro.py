"""DirectML DML_OPERATOR_ARGMAX / ARGMIN / REDUCE: what is accepted and right (every listed
input type the device supports, INT32/INT64/UINT32/UINT64 indices, 8-D REDUCE).

Runs DirectML.dll (1.15.4 as tested) under Wine 8.0 on Mesa lavapipe (a software Vulkan adapter) through
the small C program bridge.exe that `topk-conformance setup directml` builds, with its DirectML.dll,
patched wined3d.dll and Wine prefix, in ~/.cache/topk-conformance/directml (DIRECTML_WINE_ROOT
overrides the folder). No import of the suite: numpy and the standard library only. Prints
`CANNOT RUN: ...` (exit 2) where wine, Xvfb, lavapipe or that folder is missing.

Where x86_64-w64-mingw32-gcc is installed, it first compiles repro_windows.c beside it (the
standalone C program on D3D12 and DirectML's own API that a maintainer compiles on Windows) and
runs that under the same Wine instead, ending with its verdict; bridge.exe answers otherwise.
"""
import os
import platform
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time


def cannot(why):
    print(f"CANNOT RUN: {why}")
    sys.exit(2)


try:
    import numpy as np
except ImportError:
    cannot("numpy is not installed")

ROOT = os.path.expanduser(os.environ.get("DIRECTML_WINE_ROOT", "~/.cache/topk-conformance/directml"))
BRIDGE = os.path.join(ROOT, "bin", "bridge.exe")
LAVAPIPE = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
MAGIC = 0x32424B54  # "TKB2": the bridge's frame marker
ELEM = {np.float32: 1, np.uint8: 2, np.int8: 3, np.uint16: 4, np.int16: 5, np.int32: 6, np.int64: 7,
        np.float16: 10, np.float64: 11, np.uint32: 12, np.uint64: 13}  # ONNX TensorProto numbers
DTYPE = {code: np.dtype(t) for t, code in ELEM.items()}
DEADLINE = time.monotonic() + 45  # the whole repro stays well under a minute


def first_line(command):
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return out.splitlines()[0] if out else "unknown"


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


for tool in ("wine", "Xvfb"):
    if shutil.which(tool) is None:
        cannot(f"`{tool}` is not installed")
for path, why in ((BRIDGE, "no bridge.exe (run `topk-conformance setup directml`)"),
                  (os.path.join(ROOT, "bin", "DirectML.dll"), "no DirectML.dll beside bridge.exe"),
                  (os.path.join(ROOT, "prefix"), "no Wine prefix (run `topk-conformance setup directml`)"),
                  (LAVAPIPE, "no Mesa lavapipe Vulkan driver (mesa-vulkan-drivers)")):
    if not os.path.exists(path):
        cannot(f"{why}: {path} is missing")

read_end, write_end = os.pipe()  # Xvfb picks a free display and writes its number here
xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write_end), "-nolisten", "tcp"], pass_fds=[write_end],
                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(write_end)
if not select.select([read_end], [], [], 20)[0]:
    xvfb.kill()
    cannot("Xvfb did not announce a display")
display = os.read(read_end, 16).decode().strip()
if not display:
    cannot("Xvfb did not start")
os.makedirs(os.path.join(ROOT, "xdg-runtime"), mode=0o700, exist_ok=True)
env = dict(os.environ, WINEPREFIX=os.path.join(ROOT, "prefix"), WINEARCH="win64", WINEDEBUG="-all",
           DISPLAY=":" + display, WINEDLLOVERRIDES="mscoree,mshtml=;wined3d=n",  # the patched wined3d.dll beside it
           VK_ICD_FILENAMES=LAVAPIPE, XDG_RUNTIME_DIR=os.path.join(ROOT, "xdg-runtime"))

def run_windows_c():
    """Where x86_64-w64-mingw32-gcc is installed: compiles repro_windows.c (the standalone program
    on DirectML's own API that a maintainer compiles on Windows) into a scratch folder beside
    DirectML.dll and the patched wined3d.dll, runs it under this same Wine, and ends with its
    verdict. Returns why it could not, and the bridge below answers instead."""
    compiler = shutil.which("x86_64-w64-mingw32-gcc")
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "repro_windows.c")
    if compiler is None:
        return "x86_64-w64-mingw32-gcc is not installed"
    with tempfile.TemporaryDirectory(prefix="repro_windows_") as scratch:
        exe = os.path.join(scratch, "repro_windows.exe")
        built = subprocess.run([compiler, "-O2", "-o", exe, source, "-ld3d12", "-ldxgi", "-lversion"],
                               capture_output=True, text=True, timeout=60)
        if built.returncode != 0:
            errors = [line for line in built.stderr.splitlines() if "error" in line] or ["?"]
            return "repro_windows.c did not compile: " + errors[0][:200]
        for name in ("DirectML.dll", "wined3d.dll"):  # the patched wined3d.dll is loaded from beside the .exe
            if not os.path.isfile(os.path.join(ROOT, "bin", name)):
                return f"no {name} in {os.path.join(ROOT, 'bin')}"
            os.symlink(os.path.join(ROOT, "bin", name), os.path.join(scratch, name))
        try:
            done = subprocess.run(["wine", exe], env=env, cwd=scratch, stdin=subprocess.DEVNULL, capture_output=True,
                                  text=True, timeout=max(5.0, DEADLINE - time.monotonic()))
        except subprocess.TimeoutExpired:
            return "repro_windows.exe did not finish in time under Wine"
    lines = done.stdout.strip().splitlines()
    verdict = lines[-1].split(":")[0] if lines else ""
    if (done.returncode, verdict) not in ((0, "REPRODUCED"), (1, "NOT REPRODUCED"), (2, "CANNOT RUN")):
        return f"repro_windows.exe exited with status {done.returncode} (last line {verdict[:80]!r})"
    print("Python", sys.version.split()[0], "|", platform.platform(), "| CPU:", cpu_name())
    print(first_line(["wine", "--version"]), "| Mesa lavapipe (mesa-vulkan-drivers)",
          first_line(["dpkg-query", "-W", "-f", "${Version}", "mesa-vulkan-drivers"]), "|",
          first_line([compiler, "--version"]))
    print("repro_windows.c, compiled here with x86_64-w64-mingw32-gcc and run under Wine on Mesa lavapipe")
    print("(DirectML under Wine on a software Vulkan adapter: says nothing about any GPU's driver)")
    print()
    print(done.stdout.rstrip())
    xvfb.terminate()
    sys.exit(done.returncode)


why_not_c = run_windows_c()
print(f"(repro_windows.c not run: {why_not_c}; asking bridge.exe instead)")

bridge = subprocess.Popen(["wine", BRIDGE], env=env, cwd=os.path.dirname(BRIDGE), stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


def close():
    try:
        bridge.stdin.close()
        bridge.wait(10)
    except (OSError, subprocess.TimeoutExpired):
        bridge.kill()
    xvfb.terminate()


def read_exactly(n):
    data = b""
    while len(data) < n:
        left = DEADLINE - time.monotonic()
        if left <= 0 or not select.select([bridge.stdout], [], [], left)[0]:
            close()
            cannot("the bridge under Wine did not answer in time")
        chunk = os.read(bridge.stdout.fileno(), n - len(data))
        if not chunk:
            close()
            cannot(f"the bridge under Wine exited (status {bridge.poll()})")
        data += chunk
    return data


def ask(op, body):
    """One request to bridge.exe (framing in the suite's conformance/backends/wine/bridge/bridge.h)."""
    bridge.stdin.write(struct.pack("<IIQ", MAGIC, op, len(body)) + body)
    bridge.stdin.flush()
    magic, status, _, _, n = struct.unpack("<IIIIQ", read_exactly(24))
    if magic != MAGIC:
        close()
        cannot(f"the bridge answered with an unknown frame {magic:#x}")
    out = read_exactly(n)
    return (None, out.decode(errors="replace")) if status else (out, "")


def text(s):
    return struct.pack("<I", len(s)) + s.encode()


def tensor(x):
    return struct.pack(f"<II{x.ndim}qQ", ELEM[x.dtype.type], x.ndim, *x.shape, x.nbytes) + x.tobytes()


def spec(elem, shape):
    return struct.pack(f"<II{len(shape)}qQ", elem, len(shape), *shape, 0)


def dml_run(op_type, members):
    """OP_DML_RUN: DirectML operator `op_type`, its desc struct's members in declaration order.
    Returns {output name: array}, or DirectML's refusal as a string (the call and its HRESULT)."""
    out, refused = ask(4, struct.pack("<II", op_type, len(members)) + b"".join(members))
    if refused:
        return refused.strip().splitlines()[0]
    outputs, at = {}, 4
    for _ in range(struct.unpack_from("<I", out)[0]):
        n = struct.unpack_from("<I", out, at)[0]
        name = out[at + 4:at + 4 + n].decode()
        elem, rank = struct.unpack_from("<II", out, at + 4 + n)
        shape = struct.unpack_from(f"<{rank}q", out, at + 12 + n)
        size = struct.unpack_from("<Q", out, at + 12 + n + 8 * rank)[0]
        start = at + 20 + n + 8 * rank
        outputs[name] = np.frombuffer(out[start:start + size], DTYPE[elem]).reshape(shape)
        at = start + size
    return outputs


def input_member(name, x):
    return struct.pack("<I", 1) + text(name) + tensor(x)


def output_member(name, output, elem, shape):
    return struct.pack("<I", 2) + text(name) + text(output) + spec(elem, shape)


def uint_member(name, value):
    return struct.pack("<I", 3) + text(name) + struct.pack("<I", value)


def uints_member(name, values):
    return struct.pack("<I", 6) + text(name) + struct.pack(f"<I{len(values)}I", len(values), *values)


info, refused = ask(3, b"")
if refused:
    close()
    cannot(f"no DirectML device under Wine: {refused.strip()[:200]}")
info = dict(line.split("=", 1) for line in info.decode().splitlines() if "=" in line)
print("Python", sys.version.split()[0], "|", platform.platform(), "| CPU:", cpu_name())
print("numpy", np.__version__, "|", first_line(["wine", "--version"]), "| Mesa lavapipe (mesa-vulkan-drivers)",
      first_line(["dpkg-query", "-W", "-f", "${Version}", "mesa-vulkan-drivers"]))
print("DirectML.dll", info.get("directml_dll", "unknown"), "| adapter:", info.get("adapter", "unknown"),
      "| DML feature level", info.get("dml_feature_level", "unknown"))
print("(DirectML under Wine on a software Vulkan adapter: says nothing about any GPU's driver)")
print()

DML_OPERATOR_REDUCE, DML_OPERATOR_ARGMIN, DML_OPERATOR_ARGMAX = 55, 137, 138
DML_REDUCE_FUNCTION_ARGMAX, DML_REDUCE_FUNCTION_ARGMIN = 0, 1
INCREASING, DECREASING = 0, 1  # DML_AXIS_DIRECTION: the first extreme, the last
UINT32_INDICES = 12
nan = float("nan")


def arg(op, x, axes, direction=INCREASING, index_elem=UINT32_INDICES):
    """DML_ARGMAX/ARGMIN_OPERATOR_DESC {InputTensor, OutputTensor, AxisCount + Axes,
    AxisDirection} (op "argmax"/"argmin"), or DML_REDUCE_OPERATOR_DESC {Function, InputTensor,
    OutputTensor, AxisCount + Axes} (op "reduce-argmax"/"reduce-argmin"); the output keeps the
    reduced axes as size 1. Returns the indices as a list, or DirectML's refusal."""
    shape = [1 if i in axes else d for i, d in enumerate(x.shape)]
    members = [input_member("InputTensor", x), output_member("OutputTensor", "indices", index_elem, shape),
               uints_member("Axes", list(axes))]
    if op.startswith("reduce-"):
        function = DML_REDUCE_FUNCTION_ARGMAX if op == "reduce-argmax" else DML_REDUCE_FUNCTION_ARGMIN
        members.insert(0, uint_member("Function", function))
        op_type = DML_OPERATOR_REDUCE
    else:
        members.append(uint_member("AxisDirection", direction))
        op_type = DML_OPERATOR_ARGMAX if op == "argmax" else DML_OPERATOR_ARGMIN
    out = dml_run(op_type, members)
    return out if isinstance(out, str) else out["indices"].ravel().tolist()


def name(op, direction=INCREASING):
    label = {"argmax": "DML_OPERATOR_ARGMAX", "argmin": "DML_OPERATOR_ARGMIN",
             "reduce-argmax": "DML_OPERATOR_REDUCE (ARGMAX)", "reduce-argmin": "DML_OPERATOR_REDUCE (ARGMIN)"}[op]
    return label + (" DECREASING" if direction == DECREASING else "")


def documents_answer(row, largest, last, nan_high=True):
    """The index of the first (last: the last) extreme of one row; NaN, on which the documents
    say nothing, above (or below) every number."""
    keys = [((1 if nan_high else -1) if v != v else 0, 0 if v != v else v) for v in row]
    best = max(keys) if largest else min(keys)
    hits = [i for i, key in enumerate(keys) if key == best]
    return hits[-1] if last else hits[0]


print("What ARGMAX, ARGMIN and REDUCE accept, and their answers beside the documents'")
flags = {k[6:]: v for k, v in info.items() if k.startswith("dtype.")}
print("  the device's DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT:", " ".join(f"{k}={v}" for k, v in flags.items()))
reproduced = all(flags.get(t) == "0" for t in ("FLOAT16", "INT16", "UINT16"))
print("  FLOAT16, INT16, UINT16 reported unsupported:", reproduced)


def check(label, out, want):
    global reproduced
    print(f"  {label}: output {out}, documents {want}")
    reproduced &= out == want


x = np.array([1, 3, 2, 3], np.float32)
for index_name, code in (("INT32", 6), ("INT64", 7), ("UINT32", 12), ("UINT64", 13)):
    for direction in (INCREASING, DECREASING):
        check(f"{index_name} indices, float32 [1, 3, 2, 3], {name('argmax', direction)}",
              arg("argmax", x, (0,), direction, code), [1 if direction == INCREASING else 3])
    check(f"{index_name} indices, float32 [1, 3, 2, 3], {name('argmin')}", arg("argmin", x, (0,), INCREASING, code), [0])
for dtype in (np.float32, np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64):
    for op in ("argmax", "reduce-argmax", "argmin", "reduce-argmin"):
        check(f"{np.dtype(dtype).name} [1, 3, 2, 3], {name(op)}", arg(op, x.astype(dtype), (0,)),
              [1 if op.endswith("argmax") else 0])
x8 = np.zeros((1, 1, 1, 1, 1, 1, 2, 3), np.float32)
x8[0, 0, 0, 0, 0, 0, 1, 2] = 1
for op in ("argmax", "reduce-argmax"):
    check(f"8-D float32 of shape [1, 1, 1, 1, 1, 1, 2, 3] (rows [0, 0, 0], [0, 0, 1]), axis 7, {name(op)}",
          arg(op, x8, (7,)), [0, 2])
close()
print("(REPRODUCED: every one accepted and right, and the device reports FLOAT16, INT16, UINT16 unsupported)")
print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
