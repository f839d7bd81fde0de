"""onnx's reference evaluator (onnx.reference.ReferenceEvaluator) answers ArgMax and ArgMin over an empty axis
with numpy's "ValueError: attempt to get argmax of an empty sequence" (argmin likewise), at every opset. ArgMax-11
and ArgMin-11 say "The input tensor must not be empty", so an error is right there; ArgMax/ArgMin-1, -12 and -13
say nothing on an empty input, and no index exists in an empty axis. An empty dimension that is not reduced gives
the empty output, shown for comparison. Needs onnx (1.13 or later) and numpy. Prints the versions, then per
input the documents' answer and the reference's; the last line is REPRODUCED (exit 0: every empty axis raises
ValueError), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
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
INPUTS = [(op, opset, [2, 0]) for op in ("ArgMax", "ArgMin") for opset in (11, 13)] + [("ArgMax", 13, [0, 3])]
raised = 0
for op, opset, shape in INPUTS:
    graph = helper.make_graph([helper.make_node(op, ["X"], ["I"], axis=1, keepdims=0)], "arg",
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version={11: 6, 13: 7}[opset])
    try:
        got = f"indices {ReferenceEvaluator(model).run(None, {'X': np.zeros(shape, np.float32)})[0].tolist()}"
    except Exception as error:
        got = f"raises {type(error).__name__}: {str(error).splitlines()[0][:100]}"
        raised += isinstance(error, ValueError)
    documents = ("an empty output of shape [0]" if shape[1] else
                 "an error (the input must not be empty)" if opset == 11 else "nothing said; no index exists")
    print(f"{op}-{opset} float32 of shape {shape} over axis 1: documents: {documents}; reference: {got}")
print("REPRODUCED" if raised == 4 else "NOT REPRODUCED")
sys.exit(0 if raised == 4 else 1)
