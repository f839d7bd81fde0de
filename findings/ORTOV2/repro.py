"""ONNX Runtime's OpenVINO execution provider declines TopK on float64 and uint64, even behind an
Identity: with CPU fall-back disabled (session.disable_cpu_ep_fallback = 1) the session is refused,
as the node would go to ONNX Runtime's CPU provider. ONNX TopK-11 allows tensor(double) and
tensor(uint64); float32, int64 and uint32 behind an Identity run on the provider. (TopK alone, the
first node of a graph of three or fewer nodes, is declined whatever its type.)
Needs onnxruntime-openvino (it installs the module onnxruntime), onnx (only to build the models) and
numpy. Prints the versions, then per type the provider's answer or the session's error. The last
line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
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
print("input [1, 3, 2], TopK-11, K = 2 a graph input, largest; ONNX: values [3, 2], indices [1, 2]")
refused = set()
for dtype, name in (("float64", "double"), ("uint64", "uint64"), ("float32", "float"), ("int64", "int64"),
                    ("uint32", "uint32")):
    for before in (0, 1):
        model = onnx.parser.parse_model(
            f'<ir_version: 6, opset_import: ["" : 11]> topk ({name}[3] X, int64[1] K) => ({name}[2] V, int64[2] I) '
            f'{{ {"Y = Identity(X)" * before} V, I = TopK ({"Y" if before else "X"}, K) }}')
        label = f"{dtype} {'behind an Identity' if before else 'alone'}"
        try:
            session = ort.InferenceSession(model.SerializeToString(), options, providers=OPENVINO_ONLY,
                                           disabled_optimizers=["EliminateIdentity"])  # keep the Identity node
            values, indices = session.run(None, {"X": np.array([1, 3, 2], dtype), "K": np.array([2], np.int64)})
            print(f"  {label}: values {values.tolist()}, indices {indices.tolist()}")
        except Exception as error:
            refused.add((dtype, before))
            print(f"  {label}: session refused: {' '.join(str(error).split())[:200]}")
reproduced = {("float64", 1), ("uint64", 1)} <= refused
print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
