"""ONNX Runtime's OpenVINO execution provider compares int64 and uint32 in 32 bits in ArgMax and
ArgMin: ArgMax-13 over int64 [2147483647, 2147483648, 2147483647] gives [0] where ONNX gives [1],
and over uint32 [4294967295, 4294967294, 0, 1, 0] gives [3] where ONNX gives [0]. ONNX ArgMax and
ArgMin select the first index of the maximum (minimum), and their T includes int64 and uint32. Not a
float conversion: int64 values above 2**53 that differ only in their low bits are told apart.
OpenVINO's CPU plugin, which the provider runs (its ONNX frontend lowers ArgMax to TopK with K = 1),
does the same. Sessions use the OpenVINO provider alone, CPU fall-back disabled
(session.disable_cpu_ep_fallback = 1), so that the node runs on it or the session is refused.
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


def arg(op, x, opset):
    """One-node ArgMax/ArgMin over a 1-D input (axis 0, keepdims 1) on the OpenVINO provider alone; None where the
    session is refused."""
    attrs = "axis = 0" + ", select_last_index = 0" * (opset >= 12)
    model = onnx.parser.parse_model(f'<ir_version: {({1: 3, 12: 7, 13: 7})[opset]}, opset_import: ["" : {opset}]> '
                                    f'arg ({x.dtype.name}[{len(x)}] X) => (int64[1] I) {{I = {op} <{attrs}> (X)}}')
    try:
        session = ort.InferenceSession(model.SerializeToString(), options, providers=[("OpenVINOExecutionProvider", {
            "device_type": "CPU", "precision": "FP32"})])
    except Exception:  # the provider declines the node, which would go to the CPU provider
        return None
    return session.run(None, {"X": x})[0].tolist()


outcomes = []  # per input: wrong (True), right (False) or declined (None)
for op, opset, data, dtype in (("ArgMax", 13, [2147483647, 2147483648, 2147483647], "int64"),
                               ("ArgMin", 1, [2147483648, 2147483647, 2147483648], "int64"),
                               ("ArgMax", 13, [2**63 - 1, 2**63 - 2, -2**63, -2**63 + 1, 0], "int64"),
                               ("ArgMax", 13, [2**32 - 1, 2**32 - 2, 0, 1, 0], "uint32"),
                               ("ArgMin", 12, [2**32 - 1, 2**32 - 2, 0, 1, 0], "uint32"),
                               ("ArgMax", 13, [2**53, 2**53 + 1, 2**53], "int64")):  # the control: above 2**53
    got, want = arg(op, x := np.array(data, dtype), opset), [int(getattr(np, op.lower())(x))]  # the first extreme
    outcomes.append(None if got is None else got != want)
    print(f"{op}-{opset} {dtype} {data}, axis 0, keepdims 1: ONNX {want}, provider {got or 'declined'}")
verdict = ("REPRODUCED" if True in outcomes[:-1] else "CANNOT RUN: an input is declined" if None in outcomes
           else "NOT REPRODUCED")  # the last input, the control, does not count
print(verdict)
sys.exit({"R": 0, "N": 1, "C": 2}[verdict[0]])
