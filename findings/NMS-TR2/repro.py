"""tract drops a box whose score equals score_threshold in ONNX NonMaxSuppression (opsets 10 and 11): its kernel
(onnx-opl/src/non_max_suppression.rs) keeps a box only when `*score > score_threshold`. ONNX: "Bounding boxes with
score less than score_threshold are removed", so a score equal to it stays. The boxes do not overlap, so only the
score threshold can remove one. Needs tract, onnx (to build the model) and numpy; writes the model in a temporary
folder. Prints the versions, then per opset the boxes ONNX keeps and the boxes tract keeps; the last line is
REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2). Do not name it tract.py (it would shadow
the tract package)."""
import os
import platform
import sys
import tempfile

try:
    import numpy as np
    import onnx
    import tract
    from onnx import TensorProto, helper
except Exception as error:  # a module missing, or a build that cannot load here
    print(f"CANNOT RUN: a module is missing or cannot load ({type(error).__name__}: {error})")
    sys.exit(2)
NEW = hasattr(tract, "Tensor")  # tract's Python API from 0.23 on: load and into_model

print(f"tract {tract.version()}, onnx {onnx.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
      f"{platform.platform()}")
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
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "nms.onnx")
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir_version), path)
        model = tract.onnx().load(path) if NEW else tract.onnx().model_for_path(path)
        runnable = (model.into_model() if NEW else model.into_optimized()).into_runnable()
        kept = sorted(int(row[2]) for row in runnable.run([boxes, scores])[0].to_numpy().reshape(-1, 3))
    wrong = wrong or kept != [0, 1, 2]
    print(f"NonMaxSuppression-{opset}, three disjoint boxes, scores [0.9, 0.5, 0.5], score_threshold 0.5, "
          f"iou_threshold 0.5: ONNX keeps [0, 1, 2]; tract keeps {kept}{'  <- wrong' * (kept != [0, 1, 2])}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
