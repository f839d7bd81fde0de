"""ONNX Runtime's CPU execution provider ranks NaN in opposite ways in two rows of one ArgMax or ArgMin
input: [[0, NaN], [NaN, 0]] over axis 1 gives index 0 in both rows, so NaN is picked in one row
and passed over in the other. ONNX says nothing about NaN, but no one placement of NaN (above every
number, or below) explains that answer. It also shows how a rank-1 input compares with the same row
as a rank-2 input. Needs onnxruntime, onnx (only to build the models) and numpy. Prints the
versions, then per model the input, ONNX Runtime's answer and the answer of each placement. The
last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
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
n = np.nan
unexplained = 0
for op, data, axis, opset in (("ArgMax", [0, n], 0, 13), ("ArgMax", [[0, n]], 1, 13),
                              ("ArgMax", [[0, n], [n, 0]], 1, 13), ("ArgMin", [[0, n], [n, 0]], 1, 13),
                              ("ArgMax", [[0, 0, 0, n], [0, 0, n, 0]], 0, 1),
                              ("ArgMin", [[0, 0, 0, n], [0, 0, n, 0]], 0, 1)):
    x = np.array(data, np.float32)
    graph = helper.make_graph([helper.make_node(op, ["X"], ["I"], axis=axis, keepdims=0)], "arg",
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version={1: 3, 13: 7}[opset])
    got = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"X": x})[0]
    # NaN as +inf (above every number) or -inf (below); equal values: the first index, as ONNX's tie rule says
    above, below = ((np.argmax if op == "ArgMax" else np.argmin)(np.where(np.isnan(x), v, x), axis=axis).tolist()
                    for v in (np.inf, -np.inf))
    fits = [name for name, want in (("above", above), ("below", below)) if want == got.tolist()] or ["neither"]
    print(f"{op}-{opset} float32 {x.tolist()}, axis {axis}, keepdims 0: ONNX Runtime {got.tolist()}; NaN above every "
          f"number gives {above}, below gives {below}; fits: {' and '.join(fits)}")
    unexplained += fits == ["neither"]
print("REPRODUCED" if unexplained else "NOT REPRODUCED")
sys.exit(0 if unexplained else 1)
