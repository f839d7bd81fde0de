"""ONNX Runtime's DirectML execution provider: ArgMax-13 and ArgMin-13 on float32 with NaN. With select_last_index = 1
on [NaN, NaN, NaN] both give 0, where every NaN placement gives 2 (all elements equal: the last occurrence); and
over axis 1 of [[0, NaN], [NaN, 0]] both give [[0], [0]], which no one NaN placement explains (NaN above the
numbers gives [[1], [0]] for ArgMax, NaN below [[0], [1]]). ONNX says nothing about NaN; any one consistent
placement is accepted here. The middle inputs show NaN never winning a comparison unless it comes first.

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


TEXT = ('<ir_version: 7, opset_import: ["" : 13]> arg (float[{}] X) => (int64[{}] I)'
        ' {{ [arg] I = {} <axis = {}, keepdims = 1, select_last_index = {}> (X) }}')  # ONNX's textual model syntax
nan = float("nan")
CASES = [  # operator, X, axis, select_last_index; the answer with NaN above every number, and with NaN below
    ("ArgMax", [nan, nan, nan], 0, 1, [2], [2]), ("ArgMin", [nan, nan, nan], 0, 1, [2], [2]),
    ("ArgMax", [1, 2, 2, nan], 0, 0, [3], [1]), ("ArgMax", [1, 2, 2, nan], 0, 1, [3], [2]),
    ("ArgMin", [nan, 1, 2, 2], 0, 0, [1], [0]),
    ("ArgMax", [[0, nan], [nan, 0]], 1, 0, [[1], [0]], [[0], [1]]),
    ("ArgMin", [[0, nan], [nan, 0]], 1, 0, [[0], [1]], [[1], [0]])]
answers = bridge([(TEXT.format(",".join(map(str, np.shape(x))), ",".join("ab"[:np.ndim(x)]), op, axis, last),
                   np.array(x, np.float32)) for op, x, axis, last, _, _ in CASES])
for (op, x, axis, last, above, below), answer in zip(CASES, answers):
    print(f"{op} {x}, axis {axis}, select_last_index {last}: {above} (NaN above) or {below} (NaN below);"
          f" DirectML {answer}")
reproduced = any(not isinstance(answer, str) and answer[0][0] not in case[4:] for case, answer in zip(CASES, answers))
print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
