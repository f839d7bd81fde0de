"""onnx's reference evaluator (onnx.reference.ReferenceEvaluator) computes Hardmax-1 and Hardmax-11 along `axis`
alone, ignoring the 2-D coercion those versions specify (the input is coerced to [a_0*...*a_{k-1},
a_k*...*a_{n-1}] for axis k, and each row gets a single 1 at its first maximum), so a row gets several 1s; with
`axis` left out it uses the last axis (Hardmax-13's default -1) instead of 1. Hardmax-13 (one axis) is right and
is shown for contrast. Needs onnx (1.13 or later) and numpy. Prints the versions, then per input the documents'
answer and the reference's; the last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why
(exit 2)."""
import platform
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator
except Exception as error:  # missing, or built against another numpy
    print(f"CANNOT RUN: {type(error).__name__}: {error}")
    sys.exit(2)

print(f"onnx {onnx.__version__}, numpy {np.__version__}; Python {platform.python_version()}, {platform.platform()}")
x2 = np.array([[0, 2, 0], [1, 2, 2]], np.float32)
x3 = np.array([[[12, 0], [-101, 11]], [[3, 234], [0, -101]]], np.float32)
INPUTS = [  # opset, input, axis (None: left out), the documents' answer
    (11, x2, 0, [[0, 1, 0], [0, 0, 0]]),  # one row of six: a single 1, at the first 2
    (1, x2, 0, [[0, 1, 0], [0, 0, 0]]),
    (11, x3, None, [[[1, 0], [0, 0]], [[0, 1], [0, 0]]]),  # axis 1: two rows of four
    (13, x2, 0, [[0, 1, 0], [1, 0, 1]]),  # Hardmax-13: one 1 per column, for contrast
]
wrong = False
for opset, x, axis, want in INPUTS:
    node = helper.make_node("Hardmax", ["X"], ["Y"], **({} if axis is None else {"axis": axis}))
    graph = helper.make_graph([node], "hardmax", [helper.make_tensor_value_info("X", TensorProto.FLOAT, x.shape)],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, x.shape)])
    ir_version = {1: 3, 11: 6, 13: 7}[opset]  # the lowest each opset allows
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir_version)
    got = np.asarray(ReferenceEvaluator(model).run(None, {"X": x})[0]).astype(int).tolist()
    wrong = wrong or (got != want and opset < 13)
    print(f"Hardmax-{opset}, {'axis left out' if axis is None else f'axis {axis}'}, float32 {x.astype(int).tolist()}: "
          f"documents {want}; reference {got}{'  <- differs' if got != want else ''}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
