"""onnx's reference evaluator (onnx.reference.ReferenceEvaluator) raises a TypeError ("Issues with types ...") on a
NonMaxSuppression node that leaves out max_output_boxes_per_class or iou_threshold, though both inputs are optional
with defaults: ONNX, max_output_boxes_per_class: "Default to 0, which means no output"; iou_threshold: "Default to
0". onnx/reference/ops/op_non_max_suppression.py reads `.size` of each (prepare_compute), which fails on None with
an AttributeError that the evaluator turns into the TypeError. Needs onnx (1.13 or later) and numpy. Prints the
versions, then per node the documents' answer and the reference's (its error's first line); the last line is
REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
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
boxes = np.array([[[0, 0, 1, 1], [0, 2, 1, 3], [0, 4, 1, 5]]], np.float32)  # disjoint: IoU 0
scores = np.array([[[0.9, 0.8, 0.7]]], np.float32)
consts = [helper.make_tensor("cap", TensorProto.INT64, [1], [10]),
          helper.make_tensor("iou", TensorProto.FLOAT, [1], [0.5])]
INPUTS = [  # the node's inputs ("" or missing: left out), the documents' answer
    (["boxes", "scores"], []),  # cap 0: no output
    (["boxes", "scores", "", "iou"], []),  # cap left out: 0
    (["boxes", "scores", "cap"], [[0, 0, 0], [0, 0, 1], [0, 0, 2]]),  # IoU threshold 0: disjoint boxes all kept
]
wrong = False
for inputs, want in INPUTS:
    graph = helper.make_graph([helper.make_node("NonMaxSuppression", inputs, ["selected"])], "nms",
                              [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, 3, 4]),
                               helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 1, 3])],
                              [helper.make_tensor_value_info("selected", TensorProto.INT64, None)],
                              [c for c in consts if c.name in inputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], ir_version=6)
    try:
        selected = ReferenceEvaluator(model).run(None, {"boxes": boxes, "scores": scores})[0]
        got = np.asarray(selected).reshape(-1, 3).tolist()
    except Exception as error:  # what the evaluator raises is the finding
        got = f"{type(error).__name__}: {str(error).splitlines()[0][:150]}"
    wrong = wrong or got != want
    print(f"NonMaxSuppression-11 with inputs {inputs}, scores [0.9, 0.8, 0.7], three disjoint boxes: documents {want}; "
          f"reference {got}{'  <- wrong' * (got != want)}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
