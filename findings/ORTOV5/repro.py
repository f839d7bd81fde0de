"""ONNX Runtime's OpenVINO execution provider computes int64 and uint32 TopK in 32 bits: int64
[0, 2147483648] with K = 1 gives [0] (index 0), int64 [9223372036854775807] comes back as -1, and
uint32 [0, 4294967295] gives [0]. ONNX TopK's values output "contains the values of the top k
elements along the specified axis", and its T includes tensor(int64) and tensor(uint32). OpenVINO's
CPU plugin, which the provider runs, does the same. The TopK stands behind an Identity (the provider
declines TopK as the first node of a small graph), with CPU fall-back disabled
(session.disable_cpu_ep_fallback = 1), so that it runs on the OpenVINO provider or not at all.
Needs onnxruntime-openvino (it installs the module onnxruntime), onnx (only to build the models) and
numpy. Prints the versions, then per input the provider's answer and ONNX's. The last line is
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


def topk(x, k):
    """Identity -> TopK-11 (axis -1, largest, sorted, K a graph input) on the OpenVINO provider alone."""
    model = onnx.parser.parse_model(
        f'<ir_version: 6, opset_import: ["" : 11]> topk ({x.dtype.name}[{len(x)}] X, int64[1] K) => '
        f'({x.dtype.name}[{k}] V, int64[{k}] I) {{Y = Identity(X) V, I = TopK(Y, K)}}')
    try:
        session = ort.InferenceSession(model.SerializeToString(), options, providers=[("OpenVINOExecutionProvider", {
            "device_type": "CPU", "precision": "FP32"})], disabled_optimizers=["EliminateIdentity"])  # keep Identity
    except Exception as error:
        print(f"CANNOT RUN: the session is refused in this release: {' '.join(str(error).split())[:200]}")
        sys.exit(2)
    return session.run(None, {"X": x, "K": np.array([k], np.int64)})


wrong = 0
for dtype, data, k in (("int64", [0, 2**31], 1), ("int64", [2**63 - 1], 1), ("uint32", [0, 2**32 - 1], 1),
                       ("uint32", [4294967295, 2147483648, 2147483647, 0, 1, 3000000000, 2147483649], 3),
                       ("int64", [9007199254740992, 9007199254740993, 9007199254740992], 1)):
    values, indices = topk(np.array(data, dtype), k)
    want = sorted(range(len(data)), key=lambda i: (-data[i], i))[:k]  # largest first, ties by the lower index
    wrong += indices.tolist() != want or values.tolist() != [data[i] for i in want]
    print(f"{dtype} {data}, K = {k}, largest:\n  ONNX:     values {[data[i] for i in want]}, indices {want}\n"
          f"  provider: values {values.tolist()}, indices {indices.tolist()}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
