"""ONNX Runtime with its DirectML execution provider rejects float16 ArgMax-1 as an invalid model: ONNX Runtime
inserts a Cast node ("InsertedPrecisionFreeCast...") whose attribute is wrong. ArgMax-13 on the same float16 input
gets the ordinary refusal instead (the provider declines float16 on this device, and CPU fall-back is disabled).

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


TEXT = ('<ir_version: {}, opset_import: ["" : {}]> arg (float16[3] X) => (int64[1] I)'
        ' {{ [arg] I = ArgMax <axis = 0, keepdims = 1> (X) }}')  # ONNX's textual model syntax
x = np.array([1, 3, 2], np.float16)
argmax1, argmax13 = bridge([(TEXT.format(ir, opset), x) for ir, opset in ((3, 1), (7, 13))])
print(f"ArgMax-1 (axis 0, keepdims 1) float16 {x.tolist()}: [1]; DirectML {argmax1}")
print(f"The same graph at ArgMax-13, for contrast: {argmax13}")
reproduced = "InsertedPrecisionFreeCast" in str(argmax1)
print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
