"""ONNX Runtime with its DirectML execution provider: where the provider declines TopK's input type (TopK-11 on
int16 and uint16; TopK-24 on int8, uint8, int16, uint16, uint32, uint64 and bfloat16), creating the session fails
with an internal exception ("!node_provider_type.empty() was false. Provider type for TopK node with name 'topk' is
not set.") instead of the refusal ONNX Runtime gives where CPU fall-back is disabled ("This session contains graph
nodes that are assigned to the default CPU EP, but fallback to CPU EP has been explicitly disabled by the user.",
as for TopK-11 on float64 and TopK-24 on int32).

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


TEXT = ('<ir_version: {0}, opset_import: ["" : {1}]> topk ({2}[4] X) => ({2}[k] V, int64[k] I) <int64[1] K = {{2}}>'
        ' {{ [topk] V, I = TopK <axis = 0> (X, K) }}')  # ONNX's textual model syntax
CASES = [(6, 11, t) for t in ("int16", "uint16", "int8", "double")] + [
    (12, 24, t) for t in ("int8", "uint8", "int16", "uint16", "uint32", "uint64", "bfloat16", "int32")]
answers = bridge([(TEXT.format(*case), np.array([1, 2, 2, 3], onnx.helper.tensor_dtype_to_np_dtype(
    getattr(onnx.TensorProto, case[2].upper())))) for case in CASES])  # the numpy type of ONNX's type
for (_, opset, t), answer in zip(CASES, answers):
    print(f"TopK-{opset} {t} [1, 2, 2, 3], K = 2: values, indices [[3, 2], [3, 1]] or the refusal; DirectML {answer}")
reproduced = any("Provider type for TopK node" in str(answer) for answer in answers)
print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
