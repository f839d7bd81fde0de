"""ONNX Runtime's CPU execution provider, given ArgMax or ArgMin with a negative axis over an input
that has a zero-sized dimension, returns an output of the input's own shape, not reduced; the same
axis counted from the front raises an error (an empty reduced axis) or reduces. Needs onnxruntime,
onnx (only to build the models) and numpy. Prints the versions, then per model the input, the
expected shape and ONNX Runtime's answer. The last line is REPRODUCED (exit 0), NOT REPRODUCED
(exit 1) or CANNOT RUN: why (exit 2)."""
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
unreduced = 0
for op in ("ArgMax", "ArgMin"):
    for shape, keepdims in (([0], 1), ([0], 0), ([2, 0], 0), ([0, 3], 0)):
        for axis in (len(shape) - 1, -1):
            graph = helper.make_graph([helper.make_node(op, ["X"], ["I"], axis=axis, keepdims=keepdims)], "arg",
                                      [helper.make_tensor_value_info("X", TensorProto.INT32, shape)],
                                      [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)
            reduced = shape[:-1] + [1] * keepdims
            try:
                session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
                out = list(session.run(None, {"X": np.zeros(shape, np.int32)})[0].shape)
                got, unreduced = f"shape {out}", unreduced + (axis < 0 and out == shape != reduced)
            except Exception as error:
                got = str(error).strip().splitlines()[0][:200]
            empty = " (or an error: the reduced axis is empty)" if shape[-1] == 0 else ""
            print(f"{op}-13 int32 of shape {shape}, axis {axis}, keepdims {keepdims}\n"
                  f"  expected: shape {reduced}{empty}\n  ONNX Runtime: {got}")
print("REPRODUCED" if unreduced else "NOT REPRODUCED")
sys.exit(0 if unreduced else 1)
