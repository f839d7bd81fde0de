"""ONNX Runtime's DirectML execution provider: ArgMax and ArgMin on int64 compare values as if only their low 32
bits counted, read as signed, where the values share their high 32 bits: ArgMax of [2147483647, 2147483648,
2147483647] gives 0 instead of 1. Values that differ in their high words (the last input) come out right.

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


TEXT = ('<ir_version: {}, opset_import: ["" : {}]> arg (int64[{}] X) => (int64[1] I)'
        ' {{ [arg] I = {} <axis = 0, keepdims = 1> (X) }}')  # ONNX's textual model syntax
CASES = [  # operator, IR version, opset, X, the index ONNX defines; the last X's values differ in their high words
  ("ArgMax", 7, 13, [2147483647, 2147483648, 2147483647], 1), ("ArgMin", 3, 1, [2147483648, 2147483647, 2147483648], 1),
    ("ArgMax", 7, 13, [5, 4294967295], 1), ("ArgMax", 7, 13, [-1, 4294967296, 7], 1)]
answers = bridge([(TEXT.format(ir, opset, len(x), op), np.array(x, np.int64)) for op, ir, opset, x, _ in CASES])
for (op, _, opset, x, index), answer in zip(CASES, answers):
    print(f"{op}-{opset} int64 {x}, axis 0: [{index}]; DirectML {answer}")
reproduced = any(not isinstance(answer, str) and answer[0] != [[case[4]]] for case, answer in zip(CASES, answers))
print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
