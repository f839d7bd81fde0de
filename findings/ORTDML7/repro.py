"""ONNX Runtime's DirectML execution provider: TopK-11 on float32 with NaN puts NaN neither consistently above nor
below the numbers: [NaN, NaN] with K = 2 gives indices [1, 0], and in longer inputs NaN lands among the numbers.
ONNX's TopK says nothing about NaN, so any one consistent placement (NaN above every number, or below, ties by
lower index) is accepted here; the outputs match neither.

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


TEXT = ('<ir_version: 6, opset_import: ["" : 11]> topk (float[{}] X) => (float[k] V, int64[k] I) <int64[1] K = {{{}}}>'
        ' {{ [topk] V, I = TopK <axis = 0, largest = {}> (X, K) }}')  # ONNX's textual model syntax
nan, inf = float("nan"), float("inf")
CASES = [  # input, K, largest; the indices with NaN above every number, and with NaN below (ties: lower index first)
    ([nan, nan], 2, 1, [0, 1], [0, 1]),
    ([0, -0.0, nan, 1, -inf, inf, nan, -0.0], 8, 1, [2, 6, 5, 3, 0, 1, 7, 4], [5, 3, 0, 1, 7, 4, 2, 6]),
    ([0, -0.0, nan, 1, -inf, inf, nan, -0.0], 8, 0, [4, 0, 1, 7, 3, 5, 2, 6], [2, 6, 4, 0, 1, 7, 3, 5]),
    ([nan, 0, 0], 3, 1, [0, 1, 2], [1, 2, 0])]
answers = bridge([(TEXT.format(len(x), k, largest), np.array(x, np.float32)) for x, k, largest, _, _ in CASES])
for (x, k, largest, above, below), answer in zip(CASES, answers):
    print(f"TopK-11 float32 {x}, K = {k}, {['smallest', 'largest'][largest]}: indices {above} (NaN above) or {below}"
          f" (NaN below); DirectML {answer}")
reproduced = any(not isinstance(answer, str) and answer[0][1] not in case[3:] for case, answer in zip(CASES, answers))
print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
