"""ONNX Runtime's OpenVINO execution provider, ArgMin with NaN: a NaN replaces the running minimum
and the next number replaces the NaN. ArgMin-13 over float32 [NaN, NaN, NaN] gives [2] where ONNX's
tie rule gives [0] (with select_last_index = 1: [0], not [2]); float16 likewise (ArgMin-12). Over
[2, NaN, 2, 1] with select_last_index = 1 it gives [0], a 2: the minimum under no placement of NaN.
No document places NaN; the answers listed are those of the two consistent placements (every NaN
above every number, or every NaN below), with ONNX's rule for equal values: "the index of the last
occurrence of the max is selected if the max appears more than once in the input. Otherwise the
index of the first occurrence is selected" (ArgMax-12/13; ArgMin likewise). OpenVINO's CPU plugin,
which the provider runs, does the same. Sessions use the OpenVINO provider alone, CPU fall-back
disabled (session.disable_cpu_ep_fallback = 1), so that the node runs on it or the session is refused.
Needs onnxruntime-openvino (it installs the module onnxruntime), onnx (only to build the models) and
numpy. Prints the versions, then per input the provider's answer and the placements'. The last line
is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""

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


def arg(op, x, axis=0, last=0, opset=13):
    """One-node ArgMax/ArgMin (keepdims 1) on the OpenVINO provider alone; None where the session is refused."""
    kind, dims = x.dtype.name.replace("float32", "float"), ", ".join(map(str, x.shape))
    model = onnx.parser.parse_model(
        f'<ir_version: 7, opset_import: ["" : {opset}]> arg ({kind}[{dims}] X) => (int64[{", ".join("ab"[:x.ndim])}] I)'
        f' {{I = {op} <axis = {axis}, select_last_index = {last}> (X)}}')
    try:
        session = ort.InferenceSession(model.SerializeToString(), options, providers=[("OpenVINOExecutionProvider", {
            "device_type": "CPU", "precision": "FP32"})])
    except Exception:  # the provider declines the node, which would go to the CPU provider
        return None
    return session.run(None, {"X": x})[0].ravel().tolist()


nan, outcomes = float("nan"), []  # outcomes: per input that counts, wrong (True), right (False) or declined (None)
for data, dtype, last, opset, allowed, counts in (([nan, nan, nan], "float32", 0, 13, [[0]], True),
                                                  ([nan, nan, nan], "float32", 1, 13, [[2]], True),
                                                  ([nan, nan, nan], "float16", 0, 12, [[0]], True),
                                                  ([2, nan, 2, 1], "float32", 1, 13, [[3], [1]], True),
                                                  ([1, 2, 2, nan], "float32", 0, 13, [[0], [3]], False)):
    got = arg("ArgMin", np.array(data, dtype), last=last, opset=opset)
    outcomes += [None if got is None else got not in allowed] * counts
    print(f"ArgMin-{opset} {dtype} {data}, axis 0, select_last_index {last}: NaN above or below every number: "
          f"{' or '.join(map(str, allowed))}; provider {got or 'declined'}{'' if counts else ' (for comparison)'}")
verdict = "REPRODUCED" if True in outcomes else "CANNOT RUN: input declined" if None in outcomes else "NOT REPRODUCED"
print(verdict)
sys.exit({"R": 0, "N": 1, "C": 2}[verdict[0]])
