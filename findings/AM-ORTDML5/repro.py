"""ONNX Runtime with its DirectML execution provider: where the provider declines ArgMax's or ArgMin's input type
(int16, uint16, bfloat16), creating the session fails with an internal exception ("!node_provider_type.empty() was
false") instead of the refusal ONNX Runtime gives where CPU fall-back is disabled ("This session contains graph
nodes that are assigned to the default CPU EP, but fallback to CPU EP has been explicitly disabled by the user.",
as for float64).

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


TEXT = ('<ir_version: {0}, opset_import: ["" : {1}]> arg ({2}[3] X) => (int64[1] I)'
        ' {{ [{4}] I = {3} <axis = 0, keepdims = 1> (X) }}')  # ONNX's textual model syntax
CASES = [("ArgMax", 7, 13, "int16", [1, 3, 2]), ("ArgMin", 6, 11, "uint16", [3, 1, 2]),  # operator, IR, opset, type, X
         ("ArgMax", 7, 13, "bfloat16", [1, 3, 2]), ("ArgMax", 7, 13, "double", [1, 3, 2])]
answers = bridge([(TEXT.format(ir, opset, t, op, op.lower()), np.array(x, onnx.helper.tensor_dtype_to_np_dtype(
    getattr(onnx.TensorProto, t.upper())))) for op, ir, opset, t, x in CASES])  # the numpy type of ONNX's type
for (op, _, opset, t, x), answer in zip(CASES, answers):
    print(f"{op}-{opset} {t} {x}, axis 0: [1] or the refusal; DirectML {answer}")
reproduced = any("!node_provider_type.empty()" in str(answer) for answer in answers)
print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
