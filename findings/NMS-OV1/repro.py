"""OpenVINO's CPU plugin suppresses a box whose IoU with a kept box equals the IoU threshold, in its own
NonMaxSuppression-5 and -9 and in ONNX NonMaxSuppression read by its ONNX frontend. OpenVINO: "func(iou) = 1 if
iou <= iou_threshold else 0"; ONNX: "boxes with IOU exactly equal to the threshold are kept". So at threshold 0
boxes that do not overlap at all (IoU 0) suppress each other, and at threshold 1 identical boxes do. Needs openvino,
onnx (to build the ONNX model) and numpy. Prints the versions, then per input and graph the boxes both documents
keep and the boxes OpenVINO keeps; the last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why
(exit 2)."""
import platform
import sys

try:
    import numpy as np
    import onnx.parser  # binds onnx too
    import openvino as ov
except Exception as error:  # not installed, or an install that does not import
    print(f"CANNOT RUN: {type(error).__name__}: {error}")
    sys.exit(2)

OPS = {v: getattr(ov, f"opset{v}", None) or getattr(ov.runtime, f"opset{v}") for v in (5, 9)}  # ov.runtime before 2024
print(f"openvino {ov.__version__}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
INPUTS = [  # boxes [y1, x1, y2, x2], iou_threshold; scores descending, so the documents keep every box
    ([[0, 0, 1, 1], [0, 0, 1, 2]], 0.5),  # IoU exactly 0.5 (1 / 2)
    ([[0, 0, 1, 1], [0, 2, 1, 3], [0, 4, 1, 5]], 0.0),  # disjoint: IoU 0
    ([[0, 0, 1, 1], [0, 0, 1, 1]], 1.0),  # identical: IoU 1
]


def onnx_model(n, iou):  # ONNX NonMaxSuppression-11, cap 10, read by the ONNX frontend
    text = f"""<ir_version: 6, opset_import: ["" : 11]> nms (float[1,{n},4] b, float[1,1,{n}] s) => (int64[N,3] sel)
        <int64[1] cap = {{10}}, float[1] iou = {{{iou}}}> {{sel = NonMaxSuppression(b, s, cap, iou)}}"""
    return ov.Core().read_model(onnx.parser.parse_model(text).SerializeToString())


def native_model(ops, n, iou):  # OpenVINO's own NonMaxSuppression-5 / -9, sort_result_descending false
    b, s = ops.parameter([1, n, 4], np.float32), ops.parameter([1, 1, n], np.float32)
    nms = ops.non_max_suppression(b, s, ops.constant(np.int64(10)), ops.constant(np.float32(iou)),
                                  sort_result_descending=False)
    return ov.Model([nms.output(0)], [b, s])


wrong = False
for boxes, iou in INPUTS:
    n = len(boxes)
    x = [np.array([boxes], np.float32), np.array([[np.linspace(0.9, 0.5, n)]], np.float32)]
    for name, model in [("ONNX NonMaxSuppression-11", onnx_model(n, iou)),
                        *[(f"NonMaxSuppression-{v}", native_model(OPS[v], n, iou)) for v in (5, 9)]]:
        kept = sorted(int(row[2]) for row in np.asarray(ov.Core().compile_model(model, "CPU")(x)[0]))
        wrong = wrong or kept != list(range(n))
        print(f"{name}, boxes {boxes}, iou_threshold {iou}: documents keep {list(range(n))}; "
              f"OpenVINO keeps {kept}{'  <- wrong' * (kept != list(range(n)))}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
