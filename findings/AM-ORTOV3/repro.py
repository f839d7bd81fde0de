"""ONNX Runtime's OpenVINO execution provider answers ArgMax and ArgMin with NaN under opposite
placements of NaN in two rows of one tensor: over float32 [[0, NaN], [NaN, 0]], axis 1, ArgMax gives
[0, 0] and ArgMin [1, 1]. No document places NaN, but one placement (every NaN above every number,
or every NaN below) should explain the whole tensor: ArgMax [1, 0] or [0, 1], ArgMin [0, 1] or
[1, 0]. Each row alone is answered as if NaN were below every number ([1, 2, 2, NaN] gives [1]),
which that placement allows. OpenVINO's CPU plugin, which the provider runs, does the same.
Sessions use the OpenVINO provider alone, CPU fall-back disabled (session.disable_cpu_ep_fallback =
1), so that the node runs on it or the session is refused.
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
for op, data, axis, last, allowed, counts in (("ArgMax", [1, 2, 2, nan], 0, 0, [[3], [1]], False),
                                              ("ArgMax", [nan, 1, 2, 2], 0, 1, [[0], [3]], False),
                                              ("ArgMax", [[0, nan], [nan, 0]], 1, 0, [[1, 0], [0, 1]], True),
                                              ("ArgMin", [[0, nan], [nan, 0]], 1, 0, [[0, 1], [1, 0]], True)):
    got = arg(op, np.array(data, np.float32), axis, last)
    outcomes += [None if got is None else got not in allowed] * counts
    print(f"{op}-13 float32 {data}, axis {axis}, select_last_index {last}: NaN above or below every number: "
          f"{' or '.join(map(str, allowed))}; provider {got or 'declined'}{'' if counts else ' (one row alone)'}")
verdict = "REPRODUCED" if True in outcomes else "CANNOT RUN: input declined" if None in outcomes else "NOT REPRODUCED"
print(verdict)
sys.exit({"R": 0, "N": 1, "C": 2}[verdict[0]])
