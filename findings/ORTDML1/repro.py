"""ONNX Runtime's DirectML execution provider: TopK-11 on int64 orders values as if only their low 32 bits counted,
read as signed: of [0, 2147483648] it gives 0 as the largest; of [5, 4294967295], 5 as the largest and 4294967295 as
the smallest.

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


TEXT = ('<ir_version: 6, opset_import: ["" : 11]> topk (int64[2] X) => (int64[k] V, int64[k] I) <int64[1] K = {{1}}>'
        ' {{ [topk] V, I = TopK <axis = 0, largest = {}> (X, K) }}')  # ONNX's textual model syntax
CASES = [([0, 2147483648], 1, [[2147483648], [1]]), ([5, 4294967295], 1, [[4294967295], [1]]),
         ([5, 4294967295], 0, [[5], [0]])]  # X, largest, the values and indices ONNX defines
answers = bridge([(TEXT.format(largest), np.array(x, np.int64)) for x, largest, _ in CASES])
for (x, largest, expected), answer in zip(CASES, answers):
    print(f"TopK-11 int64 {x}, K = 1, {['smallest', 'largest'][largest]}: values, indices {expected}; DirectML", answer)
reproduced = any(not isinstance(answer, str) and answer[0] != case[2] for case, answer in zip(CASES, answers))
print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
