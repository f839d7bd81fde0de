"""ONNX Runtime's CPU execution provider refuses ArgMax and ArgMin over an empty axis ([0] over axis
0, [2, 0] over axis 1) at run time with RUNTIME_EXCEPTION and an empty status message. ArgMax-11 and
ArgMin-11 say "The input tensor must not be empty", so an error is right there (opsets 1, 12 and 13
say nothing), but the empty message tells the user nothing. Needs onnxruntime, onnx (only to build
the models) and numpy. Prints the versions, then per model the input, what ONNX says and ONNX
Runtime's answer. The last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why
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
ort.set_default_logger_severity(4)  # no error lines between the lines
IR = {1: 3, 11: 6, 13: 7}  # the lowest IR version each opset allows, so that older releases load the models
silent = 0
for op in ("ArgMax", "ArgMin"):
    for shape, axis in (([0], 0), ([2, 0], 1)):
        for opset, says in ((1, "nothing on empty inputs"), (11, 'an error ("The input tensor must not be empty.")'),
                            (13, "nothing on empty inputs")):
            graph = helper.make_graph([helper.make_node(op, ["X"], ["I"], axis=axis, keepdims=1)], "arg",
                                      [helper.make_tensor_value_info("X", TensorProto.FLOAT, shape)],
                                      [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=IR[opset])
            try:
                session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
                got = f"shape {list(session.run(None, {'X': np.zeros(shape, np.float32)})[0].shape)}"
            except Exception as error:
                got = str(error).strip()[:300]
                silent += "RUNTIME_EXCEPTION" in got and got.split("Status Message:")[-1].strip() == ""
            print(f"{op}-{opset} float32 of shape {shape}, axis {axis}, keepdims 1\n  ONNX {op}-{opset} says: {says}\n"
                  f"  ONNX Runtime: {got}")
print("REPRODUCED" if silent else "NOT REPRODUCED")
sys.exit(0 if silent else 1)
