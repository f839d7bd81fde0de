"""ONNX Runtime's OpenVINO execution provider places NaN above the numbers in some rows of a tensor
and below them in others: TopK-11, K = 1, over the rows [NaN, 1, 2], [1, 2, NaN], [2, NaN, 1] of one
float32 tensor, gives values [2, NaN, 1] (largest) and [NaN, 1, 1] (smallest). No document says
where NaN goes, but one placement (every NaN above every number, or every NaN below, ties by the
lower index) should explain the whole output; this one fits neither. OpenVINO's CPU plugin, which
the provider runs, does the same. The TopK stands between Identity nodes (Identity -> TopK ->
Identity -> Identity: releases 1.20 to 1.23 decline smaller graphs), with CPU fall-back disabled
(session.disable_cpu_ep_fallback = 1), so that it runs on the OpenVINO provider or not at all.
Needs onnxruntime-openvino (it installs the module onnxruntime), onnx (only to build the models) and
numpy. Prints the versions, then per direction the provider's answer and the two placements'. The
last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
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
OPENVINO_ONLY = [("OpenVINOExecutionProvider", {"device_type": "CPU", "precision": "FP32"})]
options = ort.SessionOptions()  # the session fails where a node would go to ONNX Runtime's CPU provider
options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
x = np.array([[np.nan, 1, 2], [1, 2, np.nan], [2, np.nan, 1]], np.float32)
print(f"input float32 {x.tolist()}, TopK-11, axis -1, K = 1 a graph input")
mixed = 0
for largest, above, below in ((1, [0, 2, 1], [2, 1, 0]), (0, [1, 0, 2], [0, 2, 1])):
    model = onnx.parser.parse_model(
        f'<ir_version: 6, opset_import: ["" : 11]> topk (float[3, 3] X, int64[1] K) => (float[3, 1] V2, int64[3, 1] I) '
        f'{{Y = Identity(X) V0, I = TopK <largest = {largest}> (Y, K) V1 = Identity(V0) V2 = Identity(V1)}}')
    try:
        session = ort.InferenceSession(model.SerializeToString(), options, providers=OPENVINO_ONLY,
                                       disabled_optimizers=["EliminateIdentity"])  # keep the Identity nodes
    except Exception as error:
        print(f"CANNOT RUN: the session is refused in this release: {' '.join(str(error).split())[:200]}")
        sys.exit(2)
    values, indices = session.run(None, {"X": x, "K": np.array([1], np.int64)})
    mixed += indices.ravel().tolist() not in (above, below)
    print(f"{'largest' if largest else 'smallest'}:\n  NaN above every number: indices {above}\n"
          f"  NaN below every number: indices {below}\n"
          f"  provider:               indices {indices.ravel().tolist()}, values {values.ravel().tolist()}")
print("REPRODUCED" if mixed else "NOT REPRODUCED")
sys.exit(0 if mixed else 1)
