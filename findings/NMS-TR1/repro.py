"""tract keeps every box in ONNX NonMaxSuppression when max_output_boxes_per_class is 0 or left out (its default, 0),
where ONNX selects none: "Default to 0, which means no output". tract's kernel (onnx-opl/src/non_max_suppression.rs)
turns a cap of 0 into i64::MAX. Needs tract, onnx (to build the model) and numpy; writes the model in a temporary
folder. Prints the versions, then per node the rows ONNX gives and tract's; the last line is REPRODUCED (exit 0),
NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2). Do not name it tract.py (it would shadow the tract package)."""
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
scores = np.array([[[0.9, 0.8, 0.7]]], np.float32)
consts = [helper.make_tensor("cap", TensorProto.INT64, [1], [0]),
          helper.make_tensor("iou", TensorProto.FLOAT, [1], [0.5])]
wrong = False
for inputs in (["boxes", "scores", "cap", "iou"], ["boxes", "scores", "", "iou"], ["boxes", "scores"]):
    graph = helper.make_graph([helper.make_node("NonMaxSuppression", inputs, ["selected"])], "nms",
                              [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, 3, 4]),
                               helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 1, 3])],
                              [helper.make_tensor_value_info("selected", TensorProto.INT64, None)],
                              [c for c in consts if c.name in inputs])
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "nms.onnx")
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], ir_version=6), path)
        model = tract.onnx().load(path) if NEW else tract.onnx().model_for_path(path)
        runnable = (model.into_model() if NEW else model.into_optimized()).into_runnable()
        got = runnable.run([boxes, scores])[0].to_numpy().reshape(-1, 3).tolist()
    wrong = wrong or got != []
    what = "max_output_boxes_per_class 0" if "cap" in inputs else "max_output_boxes_per_class left out (0)"
    print(f"NonMaxSuppression-11, inputs {inputs}: {what}, three disjoint boxes, scores [0.9, 0.8, 0.7]: "
          f"ONNX selects []; tract {got}{'  <- wrong' * (got != [])}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
