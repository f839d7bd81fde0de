"""ONNX Runtime's CPU execution provider rejects float16 ArgMax-1 and ArgMin-1 models as invalid: to
run float16 it inserts a Cast node (InsertedPrecisionFreeCast_X) whose 'to' attribute is an INT,
where the opset-1 Cast wants a STRING. Needs onnxruntime, onnx (only to build the models) and
numpy. Prints the versions, then per operator the input, the answer ONNX defines and ONNX
Runtime's. The last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why
(exit 2)."""
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
reproduced = 0
for op, want in (("ArgMax", 1), ("ArgMin", 0)):
    graph = helper.make_graph([helper.make_node(op, ["X"], ["I"], axis=0, keepdims=0)], "arg",
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT16, [3])],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 1)], ir_version=3)
    try:
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        got = session.run(None, {"X": np.array([1, 3, 2], np.float16)})[0].tolist()
    except Exception as error:
        got = str(error).strip()[:400]
        reproduced += "InsertedPrecisionFreeCast" in got or "Mismatched attribute type" in got
    print(f"{op}-1 float16 [1, 3, 2], axis 0, keepdims 0\n  ONNX defines: {want}\n  ONNX Runtime: {got}")
print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
