"""ONNX Runtime's CPU execution provider rejects a float16 Hardmax-1 model as invalid: to run float16
on its float-only kernel it inserts a Cast node (InsertedPrecisionFreeCast_X) whose 'to' attribute
is an INT, where the opset-1 Cast wants a STRING. Hardmax-11 runs the same input, for contrast.
Needs onnxruntime, onnx (only to build the model) and numpy. Prints the versions, then per model the
input, the answer ONNX defines and ONNX Runtime's. The last line is REPRODUCED (exit 0), NOT
REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
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
reproduced = False
for opset in (1, 11):
    graph = helper.make_graph([helper.make_node("Hardmax", ["X"], ["Y"], axis=1)], "hardmax",
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT16, [1, 3])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT16, [1, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version={1: 3, 11: 6}[opset])
    try:
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        got = session.run(None, {"X": np.array([[1, 3, 2]], np.float16)})[0].tolist()
    except Exception as error:
        got = str(error).strip()[:400]
        reproduced |= opset == 1 and ("InsertedPrecisionFreeCast" in got or "Mismatched attribute type" in got)
    print(f"Hardmax-{opset} float16 [[1, 3, 2]], axis 1\n  ONNX defines: [[0, 1, 0]]\n  ONNX Runtime: {got}")
print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
