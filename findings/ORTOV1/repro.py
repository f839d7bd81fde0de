"""ONNX Runtime's OpenVINO execution provider does not take a TopK node that starts a graph of
three or fewer nodes: with CPU fall-back disabled (session.disable_cpu_ep_fallback = 1), a one-node
TopK-11 graph (K a graph input or an initializer) and TopK followed by two Identity nodes are
refused, as the node would go to ONNX Runtime's CPU provider. TopK followed by three Identity nodes
runs on the OpenVINO provider and gives ONNX's answer; so does TopK behind an Identity (in 1.24.1;
releases before it decline that graph too).
Needs onnxruntime-openvino (it installs the module onnxruntime), onnx (only to build the models) and
numpy. Prints the versions, then per graph the provider's answer or the session's error. The last
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
x, k = np.array([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]], np.float32), np.array([2], np.int64)
print(f"input float32 {x.tolist()}, TopK-11, axis 1, K = 2; ONNX: values [[5, 4], [9, 6]], indices [[4, 2], [0, 2]]")
answers = {}
for i, (before, after, k_input) in enumerate(((0, 0, 1), (0, 0, 0), (0, 2, 1), (0, 3, 1), (1, 0, 1))):
    label = f"{'Identity -> ' * before}TopK{' -> Identity' * after}, K {'an input' if k_input else 'an initializer'}"
    nodes = ["Y = Identity(X)"] * before + [f"V0, I = TopK <axis = 1> ({'Y' if before else 'X'}, K)"]
    nodes += [f"V{n + 1} = Identity(V{n})" for n in range(after)]
    model = onnx.parser.parse_model(
        f'<ir_version: 6, opset_import: ["" : 11]> topk (float[2, 5] X{", int64[1] K" * k_input}) => '
        f'(float[2, 2] V{after}, int64[2, 2] I) {"<int64[1] K = {2}>" * (1 - k_input)} {{ {" ".join(nodes)} }}')
    options = ort.SessionOptions()  # the session fails where a node would go to ONNX Runtime's CPU provider
    options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    try:
        session = ort.InferenceSession(model.SerializeToString(), options, providers=OPENVINO_ONLY,
                                       disabled_optimizers=["EliminateIdentity"])  # keep the Identity nodes
        got = answers[i] = [out.tolist() for out in session.run(None, {"X": x, "K": k} if k_input else {"X": x})]
        print(f"  {label}: values {got[0]}, indices {got[1]}")
    except Exception as error:
        print(f"  {label}: session refused: {' '.join(str(error).split())[:200]}")
reproduced = (not {0, 1, 2} & set(answers)  # refused: the one-node graphs and TopK + 2 Identity
              and answers.get(3) == [[[5, 4], [9, 6]], [[4, 2], [0, 2]]])  # taken and right: TopK + 3 Identity
print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
