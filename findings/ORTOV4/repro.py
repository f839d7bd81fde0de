"""ONNX Runtime's OpenVINO execution provider lists tied TopK values in another order than ONNX's
rule: "Given two equivalent values, this operator uses the indices along the axis as a tiebreaker.
That is, the element with the lower index will appear first." uint32 and float32 [0, 0] with K = 2
given as a graph input come out as indices [1, 0]; 20 equal float32 values with K = 20 given as an
initializer as [1, 2, ..., 19, 0]. OpenVINO's CPU plugin, which the provider runs, does the same
through its ONNX frontend. The TopK stands behind an Identity (the provider declines TopK as the
first node of a small graph), with CPU fall-back disabled (session.disable_cpu_ep_fallback = 1), so
that it runs on the OpenVINO provider or not at all.
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
OPENVINO_ONLY = [("OpenVINOExecutionProvider", {"device_type": "CPU", "precision": "FP32"})]
options = ort.SessionOptions()  # the session fails where a node would go to ONNX Runtime's CPU provider
options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")


def topk(x, k, k_input):
    """Identity -> TopK-11 (axis -1, largest, sorted) on the OpenVINO provider alone."""
    t = {"float32": "float", "uint32": "uint32"}[x.dtype.name]
    model = onnx.parser.parse_model(
        f'<ir_version: 6, opset_import: ["" : 11]> topk ({t}[{len(x)}] X{", int64[1] K" * k_input}) => '
        f'({t}[k] V, int64[k] I) {f"<int64[1] K = {{{k}}}>" * (not k_input)} {{Y = Identity(X) V, I = TopK(Y, K)}}')
    try:
        session = ort.InferenceSession(model.SerializeToString(), options, providers=OPENVINO_ONLY,
                                       disabled_optimizers=["EliminateIdentity"])  # keep the Identity node
    except Exception as error:
        print(f"CANNOT RUN: the session is refused in this release: {' '.join(str(error).split())[:200]}")
        sys.exit(2)
    return session.run(None, {"X": x, "K": np.array([k], np.int64)} if k_input else {"X": x})


wrong = 0
for dtype, data, k, k_input in (("uint32", [0, 0], 2, True), ("float32", [0, 0], 2, True),
                                ("float32", [1] * 20, 20, False), ("uint32", [0, 0], 2, False)):
    values, indices = topk(np.array(data, dtype), k, k_input)
    wrong += indices.tolist() != list(range(k))
    print(f"{dtype} {data}, K = {k} ({'a graph input' if k_input else 'an initializer'}), largest:\n"
          f"  ONNX:     indices {list(range(k))}\n  provider: indices {indices.tolist()}, values {values.tolist()}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
