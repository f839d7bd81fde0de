"""ONNX Runtime's DirectML execution provider has no TopK-24 kernel: an opset-24 TopK node (the current ONNX TopK) is
left to the CPU, so with CPU fall-back disabled the session is refused, while TopK-11 on the same float32 input
runs on DirectML.

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


TEXT = ('<ir_version: {}, opset_import: ["" : {}]> topk (float[4] X) => (float[k] V, int64[k] I) <int64[1] K = {{2}}>'
        ' {{ [topk] V, I = TopK <axis = 0> (X, K) }}')  # ONNX's textual model syntax
x = np.array([1, 2, 2, 3], np.float32)
topk11, topk24 = bridge([(TEXT.format(ir, opset), x) for ir, opset in ((6, 11), (12, 24))])
for opset, answer in ((11, topk11), (24, topk24)):
    print(f"TopK-{opset} float32 {x.tolist()}, K = 2, largest: values, indices [[3.0, 2.0], [3, 1]]; DirectML {answer}")
reproduced = "assigned to the default CPU EP" in str(topk24) and not isinstance(topk11, str)
print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
