"""ONNX Runtime's DirectML execution provider declines ArgMax and ArgMin on float64, and (on this device) on float16,
types ArgMax-13 and ArgMin-13 allow: with CPU fall-back disabled the session is refused. float32 runs.

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
    import onnx
except Exception as error:
    sys.exit(print(f"CANNOT RUN: numpy and onnx are needed ({error})") or 2)  # print the verdict, exit status 2
try:
    from wine_bridge import bridge  # the Wine side, beside this script
except ImportError:
    sys.exit(print("CANNOT RUN: wine_bridge.py is missing beside this script") or 2)


TEXT = ('<ir_version: {}, opset_import: ["" : {}]> arg ({}[3] X) => (int64[1] I)'
        ' {{ [arg] I = {} <axis = 0, keepdims = 1> (X) }}')  # ONNX's textual model syntax
CASES = [("ArgMax", 7, 13, "double", [1, 3, 2]), ("ArgMin", 7, 13, "double", [3, 1, 2]),  # operator, IR, opset, type, X
         ("ArgMax", 7, 13, "float16", [1, 3, 2]), ("ArgMax", 6, 11, "float16", [1, 3, 2]),
         ("ArgMax", 7, 13, "float", [1, 3, 2])]  # float32 for contrast
answers = bridge([(TEXT.format(ir, opset, t, op), np.array(x, onnx.helper.tensor_dtype_to_np_dtype(
    getattr(onnx.TensorProto, t.upper())))) for op, ir, opset, t, x in CASES])  # the numpy type of ONNX's type
for (op, _, opset, t, x), answer in zip(CASES, answers):
    print(f"{op}-{opset} {t} {x}, axis 0: [1]; DirectML {answer}")
reproduced = any("assigned to the default CPU EP" in str(answer) for answer in answers[:4])
print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
