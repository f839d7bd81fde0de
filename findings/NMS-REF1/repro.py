"""onnx's reference evaluator (onnx.reference.ReferenceEvaluator) drops a box whose score equals score_threshold in
NonMaxSuppression (opsets 10 and 11): onnx/reference/ops/op_non_max_suppression.py keeps a box only when
`class_scores[box_index] > score_threshold`. ONNX: "Bounding boxes with score less than score_threshold are
removed", so a score equal to it stays. The boxes do not overlap, so only the score threshold can remove one. Needs
onnx (1.13 or later) and numpy. Prints the versions, then per opset the boxes ONNX keeps and the boxes the reference
keeps; the last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
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
scores = np.array([[[0.9, 0.5, 0.5]]], np.float32)
consts = [helper.make_tensor("cap", TensorProto.INT64, [1], [10]),
          helper.make_tensor("iou", TensorProto.FLOAT, [1], [0.5]),
          helper.make_tensor("score", TensorProto.FLOAT, [1], [0.5])]
node = helper.make_node("NonMaxSuppression", ["boxes", "scores", "cap", "iou", "score"], ["selected"])
graph = helper.make_graph([node], "nms", [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, 3, 4]),
                                          helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 1, 3])],
                          [helper.make_tensor_value_info("selected", TensorProto.INT64, None)], consts)
wrong = False
for opset, ir_version in [(10, 5), (11, 6)]:  # the lowest IR version each opset allows
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir_version)
    selected = ReferenceEvaluator(model).run(None, {"boxes": boxes, "scores": scores})[0]
    kept = sorted(int(row[2]) for row in np.asarray(selected).reshape(-1, 3))
    wrong = wrong or kept != [0, 1, 2]
    print(f"NonMaxSuppression-{opset}, three disjoint boxes, scores [0.9, 0.5, 0.5], score_threshold 0.5, "
          f"iou_threshold 0.5: ONNX keeps [0, 1, 2]; the reference keeps {kept}{'  <- wrong' * (kept != [0, 1, 2])}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
