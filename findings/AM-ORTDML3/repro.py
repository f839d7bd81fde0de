"""ONNX Runtime's DirectML execution provider: ArgMax and ArgMin over an empty axis (float32 of shape [0] over axis 0,
of shape [2, 0] over axis 1) return an output instead of an error; ArgMax-11 and ArgMin-11 say "The input tensor
must not be empty", and no index exists in an empty axis. The output is preallocated and filled with 0xA5 bytes
before each run ("untouched" where they remain), yet it comes back overwritten: with zeros or stale memory, and
through one session with the previous input's float32 bits (0x3f800000 is 1.0, 0x40000000 2.0, 0x41100000 9.0,
0x40800000 4.0).

Needs Linux with Wine, xvfb-run (Debian's xvfb), Mesa lavapipe (mesa-vulkan-drivers), numpy and onnx, and the
folder `topk-conformance setup directml` fills ($TOPK_CONFORMANCE_CACHE/directml, by default
~/.cache/topk-conformance/directml): bin/bridge.exe, a small Windows program that runs the onnxruntime-directml
1.24.4 wheel's onnxruntime.dll and DirectML.dll (beside it, with a wined3d.dll patched so that Wine 8.0's D3D12 runs
on lavapipe) through ONNX Runtime's C API, and a Wine prefix. Each session has providers ["DmlExecutionProvider"]
and session.disable_cpu_ep_fallback = 1; ONNX Runtime's record of the provider each node was assigned to is printed
beside each answer. What shows here may lie in DirectML's shaders or in Wine's translation of D3D12 to Vulkan, and
says nothing about a GPU driver; repro_windows.py is the same check for Windows.
Last line: REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import sys

try:
    import numpy as np
except Exception as error:
    sys.exit(print(f"CANNOT RUN: numpy and onnx are needed ({error})") or 2)  # print the verdict, exit status 2
try:
    from wine_bridge import bridge  # the Wine side, beside this script
except ImportError:
    sys.exit(print("CANNOT RUN: wine_bridge.py is missing beside this script") or 2)


TEXT = ('<ir_version: {}, opset_import: ["" : {}]> arg (float[{}] X) => (int64[{}] I)'
        ' {{ [arg] I = {} <axis = {}, keepdims = 1> (X) }}')  # ONNX's textual model syntax


RUNS = [  # what, opset, operator, X's declared shape, axis, X, session key (""; a new session), the index ONNX defines
    ("a new session", 11, "ArgMax", "0", 0, [], "", "an error"),
    ("a new session", 11, "ArgMin", "2,0", 1, [[], []], "", "an error"),
    ("a new session", 13, "ArgMax", "0", 0, [], "", "an error"),
    ("a new session", 13, "ArgMin", "2,0", 1, [[], []], "", "an error"),
    ("one session, first", 11, "ArgMax", "n", 0, [1, 2, 9], "A", [2]),
    ("then", 11, "ArgMax", "n", 0, [], "A", "an error"),
    ("one session, first", 13, "ArgMin", "2,n", 1, [[1, 2, 9], [4, 3, 1]], "B", [[0], [2]]),
    ("then", 13, "ArgMin", "2,n", 1, [[], []], "B", "an error")]
answers = bridge([(TEXT.format({11: 6, 13: 7}[opset], opset, dims, "2,1" if axis else "1", op, axis),
                   np.array(x, np.float32), key, [2, 1] if axis else [1])
                  for _, opset, op, dims, axis, x, key, _ in RUNS])
for (what, opset, op, _, axis, x, _, expected), answer in zip(RUNS, answers):
    bits = answer if isinstance(answer, str) else [hex(int(v) % 2**64).replace("0xa5a5a5a5a5a5a5a5", "untouched")
                                                   for v in np.ravel(answer[0][0])]
    print(f"{op}-{opset} float32 {x} of shape {list(np.shape(x))}, axis {axis} ({what}): {expected};"
          f" DirectML {answer}, bits {bits}")
reproduced = any(not isinstance(answer, str) for run, answer in zip(RUNS, answers) if run[7] == "an error")
print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
