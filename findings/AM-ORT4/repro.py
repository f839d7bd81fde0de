"""ONNX Runtime's CPU execution provider ranks NaN differently in ArgMax and ArgMin on rank-1 inputs,
and differently again with select_last_index = 1. ONNX says nothing about NaN, so each answer alone
is valid under one placement (NaN above every number, or below), but the placement changes with the
operator and the attribute. Needs onnxruntime, onnx (only to build the models) and numpy. Prints
the versions, then per model the input, ONNX Runtime's answer and the answer of each placement.
The last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
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
fits_only = set()
for op, data, last in (("ArgMax", [2, n, 2, 1], 0), ("ArgMin", [2, n, 2, 1], 0), ("ArgMax", [2, n, 2, 1], 1),
                       ("ArgMin", [2, n, 2, 1], 1), ("ArgMax", [n, 2, 1], 1), ("ArgMin", [n, 2, 1], 1)):
    x = np.array(data, np.float32)
    graph = helper.make_graph([helper.make_node(op, ["X"], ["I"], axis=0, keepdims=0, select_last_index=last)], "arg",
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT, [len(x)])],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)
    got = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"X": x})[0]
    placements = {}
    for name, nan_as in (("above", np.inf), ("below", -np.inf)):  # NaN as +inf or -inf; equal values by the tie rule
        y = np.where(np.isnan(x), nan_as, x)
        hits = np.flatnonzero(y == (y.max() if op == "ArgMax" else y.min()))
        placements[name] = int(hits[-1] if last else hits[0])
    fits = [name for name, want in placements.items() if want == got] or ["neither"]
    print(f"{op}-13 float32 {x.tolist()}, axis 0, select_last_index {last}: ONNX Runtime {got.tolist()}; NaN above "
          f"every number gives {placements['above']}, below gives {placements['below']}; fits: {' and '.join(fits)}")
    fits_only.update(fits if len(fits) == 1 else [])
reproduced = {"above", "below"} <= fits_only  # some answers fit only NaN above, others only NaN below
print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
