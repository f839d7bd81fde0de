"""onnx's reference evaluator (onnx.reference.ReferenceEvaluator) answers ArgMax and ArgMin with NaN as numpy's
argmax/argmin do: the first NaN wins both operators (with select_last_index=1 the axis is flipped, so the last
NaN wins). For ArgMin that treats NaN as below every number, for ArgMax as above: each answer fits one NaN
placement, but the two operators use opposite ones, and DirectML's ArgMin never chooses a NaN over a number.
ONNX ArgMax/ArgMin say nothing on NaN. Needs onnx (1.13 or later) and numpy. Prints the versions, then per
input the index each NaN placement allows and the reference's; the last line is REPRODUCED (exit 0: a NaN wins
in each), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import platform
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator
except ImportError as error:
    print(f"CANNOT RUN: {error}")
    sys.exit(2)

print(f"onnx {onnx.__version__}, numpy {np.__version__}; Python {platform.python_version()}, {platform.platform()}")
nan = float("nan")
INPUTS = [  # operator, row, select_last_index, the first (last) NaN's index, answer with NaN above, with NaN below
    ("ArgMin", [2, nan, 2, 1], 0, 1, 3, 1),
    ("ArgMin", [nan, 1, nan], 1, 2, 1, 2),
    ("ArgMax", [2, nan, 2, 1], 0, 1, 1, 0),
    ("ArgMax", [nan, 1, nan], 1, 2, 2, 1),
]
nan_wins = True
for op, row, last, nan_index, above, below in INPUTS:
    graph = helper.make_graph([helper.make_node(op, ["X"], ["I"], axis=0, keepdims=0, select_last_index=last)], "arg",
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT, [len(row)])],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)
    got = int(ReferenceEvaluator(model).run(None, {"X": np.array(row, np.float32)})[0])
    nan_wins = nan_wins and got == nan_index
    print(f"{op}-13 float32 {row}, axis 0, select_last_index={last}: expected {above} (NaN above every number) "
          f"or {below} (NaN below); reference {got}{' (a NaN)' if got == nan_index else ''}")
print("REPRODUCED" if nan_wins else "NOT REPRODUCED")
sys.exit(0 if nan_wins else 1)
