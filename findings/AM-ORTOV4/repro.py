"""ONNX Runtime's OpenVINO execution provider declines ArgMax on float64, uint64 and bfloat16, and on
inputs with a zero-sized dimension, alone and behind an Identity: with CPU fall-back disabled
(session.disable_cpu_ep_fallback = 1) every such session is refused, as the node would go to ONNX
Runtime's CPU provider. ONNX ArgMax-13's T includes tensor(double), tensor(uint64) and
tensor(bfloat16), and input [1, 3, 2] gives [1]; ArgMax-11 says the input "must not be empty", and
over a non-empty axis ([0, 3], axis 1) the answer is an empty [0, 1]. float32 [1, 3, 2] runs on the
provider, for comparison.
Needs onnxruntime-openvino (it installs the module onnxruntime), onnx (only to build the models) and
numpy. Prints the versions, then per input the provider's answer or the session's error, alone and
behind an Identity. The last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why
(exit 2)."""

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


def argmax(x, kind, opset, axis, identity):
    """ArgMax (keepdims 1), alone or behind an Identity, on the OpenVINO provider alone: its answer, or the error."""
    model = onnx.parser.parse_model(
        f'<ir_version: {({11: 6, 13: 7})[opset]}, opset_import: ["" : {opset}]> arg ({kind}[{str(list(x.shape))[1:-1]}]'
        f' X) => (int64[{", ".join("ab"[:x.ndim])}] I) {{{"Y = Identity(X) " * identity}I = ArgMax <axis = {axis}> '
        f'({"Y" if identity else "X"})}}')
    try:
        session = ort.InferenceSession(model.SerializeToString(), options, providers=[("OpenVINOExecutionProvider", {
            "device_type": "CPU", "precision": "FP32"})], disabled_optimizers=["EliminateIdentity"])
        return f"{session.run(None, {'X': x})[0].ravel().tolist()}"
    except Exception as error:
        return f"session refused: {' '.join(str(error).split())[:150]}"


declined = []
for label, x, kind, opset, axis in (("float64 [1, 3, 2]", np.float64([1, 3, 2]), "double", 13, 0),
                                    ("uint64 [1, 3, 2]", np.uint64([1, 3, 2]), "uint64", 11, 0),
                                    # bfloat16 1, 3, 2, given as their bits
                                    ("bfloat16 [1, 3, 2]", np.uint16([16256, 16448, 16384]), "bfloat16", 13, 0),
                                    ("float32 of shape [0]", np.zeros([0], np.float32), "float", 13, 0),
                                    ("float32 of shape [2, 0]", np.zeros([2, 0], np.float32), "float", 13, 1),
                                    ("float32 of shape [0, 3]", np.zeros([0, 3], np.float32), "float", 13, 1),
                                    ("float32 [1, 3, 2], for comparison", np.float32([1, 3, 2]), "float", 13, 0)):
    said = [argmax(x, kind, opset, axis, identity) for identity in (False, True)]
    declined += [label] * (all(s.startswith("session refused") for s in said) and "comparison" not in label)
    print(f"ArgMax-{opset} {label}, axis {axis}:\n  alone: {said[0]}\n  behind an Identity: {said[1]}")
print("REPRODUCED" if len(declined) == 6 else f"NOT REPRODUCED ({len(declined)} of the 6 inputs declined)")
sys.exit(0 if len(declined) == 6 else 1)
