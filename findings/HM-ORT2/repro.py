"""ONNX Runtime's CPU execution provider has no float64 (double) and no bfloat16 Hardmax kernel: the
session is refused with NOT_IMPLEMENTED, though ONNX's Hardmax takes tensor(double) at every version
and tensor(bfloat16) from Hardmax-13. Needs onnxruntime, onnx (only to build the model) and numpy.
Prints the versions, then per model the input, the answer ONNX defines and ONNX Runtime's. The last
line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import platform
import sys

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper
except Exception as error:  # missing, or built against another numpy
    print(f"CANNOT RUN: {type(error).__name__}: {error}")
    sys.exit(2)

print(f"onnxruntime {ort.__version__}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
ort.set_default_logger_severity(3)  # no warnings between the lines
IR = {1: 3, 11: 6, 13: 7}  # the lowest IR version each opset allows, so that older releases load the model
refused = 0
for name, elem, opset in (("float64", TensorProto.DOUBLE, 13), ("float64", TensorProto.DOUBLE, 11),
                          ("float64", TensorProto.DOUBLE, 1), ("bfloat16", TensorProto.BFLOAT16, 13)):
    graph = helper.make_graph([helper.make_node("Hardmax", ["X"], ["Y"], axis=0)], "hardmax",
                              [helper.make_tensor_value_info("X", elem, [3])],
                              [helper.make_tensor_value_info("Y", elem, [3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=IR[opset])
    try:
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        # numpy has no bfloat16 to feed: a session that loads shows that a kernel exists
        x = np.array([1, 3, 2], np.float64)
        got = "session created" if name == "bfloat16" else session.run(None, {"X": x})[0].tolist()
    except Exception as error:
        got = str(error).strip().splitlines()[0][:300]
        refused += "NOT_IMPLEMENTED" in got or "Could not find an implementation" in got
    print(f"Hardmax-{opset} {name} [1, 3, 2], axis 0\n  ONNX defines: [0, 1, 0]\n  ONNX Runtime: {got}")
print("REPRODUCED" if refused else "NOT REPRODUCED")
sys.exit(0 if refused else 1)
