"""onnx's reference evaluator (onnx.reference.ReferenceEvaluator) misplaces NaN in bfloat16 TopK (TopK-24):
bfloat16 [1.0, NaN, -1.0] with K = 1, smallest, returns 1.0 (index 0), the smallest element under no placement
of NaN; [-inf, NaN, inf] with K = 1, largest, returns -inf (index 0). The same rows in float32 come out right.
ONNX TopK says nothing on where NaN goes: the answers accepted below are those of one consistent placement
(every NaN above every number, or every NaN below). Needs onnx (1.19 or later, for TopK-24), numpy, ml_dtypes.
Prints the versions, then per input the (value, index) either placement allows and the reference's; the last line
is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import platform
import sys

try:
    import ml_dtypes
    import numpy as np
    import onnx
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator
except ImportError as error:
    print(f"CANNOT RUN: {error}")
    sys.exit(2)

print(f"onnx {onnx.__version__}, numpy {np.__version__}, ml_dtypes {ml_dtypes.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
if onnx.defs.onnx_opset_version() < 24:
    print(f"CANNOT RUN: onnx {onnx.__version__} implements opsets up to {onnx.defs.onnx_opset_version()}; "
          "TopK-24 is needed")
    sys.exit(2)
nan = float("nan")
INPUTS = [  # row, largest, (value, index) with NaN above every number, with NaN below
    ([1.0, nan, -1.0], 0, (-1.0, 2), (nan, 1)),
    ([-np.inf, nan, np.inf], 1, (nan, 1), (np.inf, 2)),
]
wrong = False
for row, largest, above, below in INPUTS:
    for dtype, elem in ((ml_dtypes.bfloat16, TensorProto.BFLOAT16), (np.float32, TensorProto.FLOAT)):
        graph = helper.make_graph(
            [helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=-1, largest=largest)], "topk",
            [helper.make_tensor_value_info("X", elem, [3])],
            [helper.make_tensor_value_info("V", elem, [1]), helper.make_tensor_value_info("I", TensorProto.INT64, [1])],
            [helper.make_tensor("K", TensorProto.INT64, [1], [1])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 24)], ir_version=12)
        values, indices = ReferenceEvaluator(model).run(None, {"X": np.array(row, dtype)})
        got = (float(values[0]), int(indices[0]))
        fits = str(got) in (str(above), str(below))
        wrong = wrong or (not fits and dtype is ml_dtypes.bfloat16)
        print(f"TopK-24 {np.dtype(dtype).name} {row}, K = 1, {'largest' if largest else 'smallest'}: expected {above} "
              f"(NaN above every number) or {below} (NaN below); reference {got}{'' if fits else '  <- neither'}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
