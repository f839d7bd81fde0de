"""ONNX Runtime's DirectML execution provider: TopK with K larger than the axis does not fail where the input is
empty: float32 of shape [0] with K = 1 gives outputs of shape [1] (value 0.0, index 0) instead of an error, while on
a non-empty input the provider refuses K > n. The same with TopK-1's attribute k and with a symbolic dimension.

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


TEXT = ('<ir_version: {}, opset_import: ["" : {}]> topk ({}) => (float[k] V, int64[k] I)'
        ' {{ [topk] V, I = TopK <axis = 0{}> ({}) }}')  # ONNX's textual model syntax
CASES = [  # what, IR version, opset, graph inputs, TopK's attribute, TopK's inputs, X, K
    ("TopK-11, X float32 of shape [0], K = [1] a graph input", 6, 11, "float[0] X, int64[1] K", "", "X, K", [], [1]),
    ("TopK-1, X float32 of shape [0], attribute k = 1", 3, 1, "float[0] X", ", k = 1", "X", [], [1]),
    ("TopK-11, X float32 of symbolic shape [n] fed [0], K = [1] a graph input", 6, 11, "float[n] X, int64[1] K", "",
     "X, K", [], [1]),
    ("for contrast, TopK-11, X float32 [1, 2], K = [3] a graph input", 6, 11, "float[2] X, int64[1] K", "", "X, K",
     [1, 2], [3])]
answers = bridge([(TEXT.format(*c[1:6]), np.array(c[6], np.float32), np.array(c[7], np.int64)) for c in CASES])
for case, answer in zip(CASES, answers):
    print(f"{case[0]}: an error (K > n); DirectML {answer}")
reproduced = not isinstance(answers[0], str)
print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
