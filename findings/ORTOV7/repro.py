"""ONNX Runtime's OpenVINO execution provider answers TopK-1 with K (the attribute k) above the axis
size instead of refusing it: K = 6 over an axis of 5 returns six values per row, row 0 holding a 9
it does not have and row 1 a value from uninitialized memory. ONNX TopK's outputs hold "the values
of the top k elements along the specified axis", and an axis of 5 has no 6 of them; ONNX Runtime's
CPU provider and the ONNX reference implementation (onnx.reference) refuse it, and OpenVINO's TopK-11
says "The accepted range of values of K is <1;input1.shape[axis]>". K = 6 as a graph input or an
initializer (TopK-11) is refused. The TopK stands between Identity nodes (Identity -> TopK ->
Identity -> Identity: releases 1.20 to 1.23 decline smaller graphs), with CPU fall-back disabled
(session.disable_cpu_ep_fallback = 1), so that it runs on the OpenVINO provider or not at all.
Needs onnxruntime-openvino (it installs the module onnxruntime), onnx (only to build the models) and
numpy. Prints the versions, then per graph the provider's answer or its error. The last line is
REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import platform
import sys

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    if "OpenVINOExecutionProvider" not in ort.get_available_providers():
        raise ImportError("this onnxruntime has no OpenVINOExecutionProvider (install onnxruntime-openvino)")
except Exception as error:  # a module missing, a build that cannot load here, or no OpenVINO provider
    print(f"CANNOT RUN: {type(error).__name__}: {error}")
    sys.exit(2)

print(f"onnxruntime-openvino {ort.__version__}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
ort.set_default_logger_severity(4)
options = ort.SessionOptions()  # the session fails where a node would go to ONNX Runtime's CPU provider
options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
x = np.array([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]], np.float32)
print(f"input float32 {x.tolist()}, axis -1 (5 elements), K = 6: an error")
accepted = declined = False
for label, opset, k_in, k_init, call in (("TopK-1, K = 6 the attribute", 1, "", "", "<k = 6> (Y)"),
                                         ("TopK-11, K = 6 a graph input", 11, ", int64[1] K", "", "(Y, K)"),
                                         ("TopK-11, K = 6 an initializer", 11, "", "<int64[1] K = {6}>", "(Y, K)")):
    model = onnx.parser.parse_model(
        f'<ir_version: {3 if opset == 1 else 6}, opset_import: ["" : {opset}]> topk (float[2, 5] X{k_in}) => '
        f'(float[2, k] V2, int64[2, k] I) {k_init} {{Y = Identity(X) V0, I = TopK {call} V1 = Identity(V0) '
        'V2 = Identity(V1)}')
    try:
        session = ort.InferenceSession(model.SerializeToString(), options, providers=[("OpenVINOExecutionProvider", {
            "device_type": "CPU", "precision": "FP32"})], disabled_optimizers=["EliminateIdentity"])  # keep Identity
        values, indices = session.run(None, {"X": x, "K": np.array([6], np.int64)} if k_in else {"X": x})
        accepted |= opset == 1
        print(f"  {label}: no error; values {values.tolist()}, indices {indices.tolist()}")
    except Exception as error:
        declined |= opset == 1 and "fallback" in str(error)  # the provider does not take the TopK-1 graph
        print(f"  {label}: error: {' '.join(str(error).split()).split('Exception from')[-1][:200]}")
verdict = "REPRODUCED" if accepted else "CANNOT RUN: the TopK-1 graph is declined" if declined else "NOT REPRODUCED"
print(verdict)
sys.exit({"R": 0, "N": 1, "C": 2}[verdict[0]])
