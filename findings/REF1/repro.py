"""onnx's reference evaluator (onnx.reference.ReferenceEvaluator) runs ONNX TopK-11 with K = -1 and returns
empty outputs instead of refusing the model, though ONNX TopK says K holds "a single positive value".
Shown beside it, K above the axis size, on which the ONNX TopK text says nothing: an empty float32 tensor
of shape [0, 1] with K = 2 returns outputs of shape [0, 2]; [[3, 1, 4, 1, 5]] with K = 7 raises numpy's
IndexError. Needs onnx (1.13 or later) and numpy. Prints the versions, then per input and per way of
giving K the documents' answer and the reference's; the last line is REPRODUCED (exit 0: K = -1 returns
outputs), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
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
INPUTS = [  # input, K, what the documents say
    (np.array([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]], np.float32), -1, "an error (K is a single positive value)"),
    (np.zeros((0, 1), np.float32), 2, "nothing (K is above the axis size)"),
    (np.array([[3, 1, 4, 1, 5]], np.float32), 7, "nothing (K is above the axis size)"),
]
accepted = False
for x, k, documents in INPUTS:
    for k_as_input in (False, True):
        graph = helper.make_graph(
            [helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=-1)], "topk",
            [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(x.shape))]
            + [helper.make_tensor_value_info("K", TensorProto.INT64, [1])] * k_as_input,
            [helper.make_tensor_value_info("V", TensorProto.FLOAT, None),
             helper.make_tensor_value_info("I", TensorProto.INT64, None)],
            [] if k_as_input else [helper.make_tensor("K", TensorProto.INT64, [1], [k])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], ir_version=6)
        try:
            feed = {"X": x, "K": np.array([k], np.int64)} if k_as_input else {"X": x}
            values, _ = ReferenceEvaluator(model).run(None, feed)
            got, accepted = f"values {values.tolist()} of shape {list(values.shape)}", accepted or k < 0
        except Exception as error:
            got = f"raises {type(error).__name__}: {str(error).splitlines()[0][:100]}"
        print(f"TopK-11 float32 {x.tolist()} (shape {list(x.shape)}), axis -1, K = {k} "
              f"({'a graph input' if k_as_input else 'an initializer'}): documents: {documents}; reference: {got}")
print("REPRODUCED" if accepted else "NOT REPRODUCED")
sys.exit(0 if accepted else 1)
