"""OpenVINO's CPU plugin drops a box whose score equals the score threshold, in its own NonMaxSuppression-5 and -9
and in ONNX NonMaxSuppression read by its ONNX frontend. OpenVINO: "If the score s is greater or equal than
score_threshold then add b to D"; ONNX: "Bounding boxes with score less than score_threshold are removed". With the
score threshold left out, OpenVINO's default of 0 then drops scores of exactly 0 and -0.0 too. The boxes do not
overlap, so only the score threshold can remove one. Needs openvino, onnx (to build the ONNX model) and numpy.
Prints the versions, then per input and graph the boxes both documents keep and the boxes OpenVINO keeps; the last
line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
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
BOXES = np.array([[[0, 0, 1, 1], [0, 2, 1, 3], [0, 4, 1, 5]]], np.float32)  # disjoint: IoU 0
INPUTS = [([0.9, 0.5, 0.5], 0.5), ([0.9, 0.0, -0.0], None)]  # scores, score_threshold (None: left out)


def onnx_model(threshold):  # ONNX NonMaxSuppression-11, cap 10, IoU threshold 0.5, read by the ONNX frontend
    text = f"""<ir_version: 6, opset_import: ["" : 11]> nms (float[1,3,4] b, float[1,1,3] s) => (int64[N,3] sel)
        <int64[1] cap = {{10}}, float[1] iou = {{0.5}}, float[1] score = {{{threshold}}}>
        {{sel = NonMaxSuppression(b, s, cap, iou, score)}}"""
    return ov.Core().read_model(onnx.parser.parse_model(text).SerializeToString())


def native_model(ops, threshold):  # OpenVINO's own NonMaxSuppression-5 / -9, sort_result_descending false
    b, s = ops.parameter([1, 3, 4], np.float32), ops.parameter([1, 1, 3], np.float32)
    optional = [ops.constant(np.int64(10)), ops.constant(np.float32(0.5))]
    optional += [] if threshold is None else [ops.constant(np.float32(threshold))]
    nms = ops.non_max_suppression(b, s, *optional, sort_result_descending=False)
    return ov.Model([nms.output(0)], [b, s])


wrong = False
for scores, threshold in INPUTS:
    graphs = [("ONNX NonMaxSuppression-11", onnx_model(threshold))] if threshold is not None else []
    for name, model in graphs + [(f"NonMaxSuppression-{v}", native_model(OPS[v], threshold)) for v in (5, 9)]:
        out = ov.Core().compile_model(model, "CPU")([BOXES, np.array([[scores]], np.float32)])[0]
        kept = sorted(int(row[2]) for row in np.asarray(out))
        wrong = wrong or kept != [0, 1, 2]
        print(f"{name}, three disjoint boxes, scores {scores}, score_threshold "
              f"{'left out (OpenVINO: 0)' if threshold is None else threshold}: documents keep [0, 1, 2]; "
              f"OpenVINO keeps {kept}{'  <- wrong' * (kept != [0, 1, 2])}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
