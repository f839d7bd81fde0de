"""OpenVINO's CPU plugin reads max_output_boxes_per_class in 32 bits when the graph takes it as an input (a
Parameter, or an ONNX graph input), in its own NonMaxSuppression-5 and -9 and in ONNX NonMaxSuppression: 2^32
selects nothing, 2^32 + 2 selects 2 boxes, and 2^31 and 2^63 - 1 (which torchvision exports) fail with "Cannot get
dims for non static shape" on a fresh infer request; on a request that ran before, 2^31 answers as that earlier
run allowed. The same caps as constants give the right answer. OpenVINO takes a cap of "integer type", ONNX an
int64 one ("Integer representing the maximum number of boxes to be selected per batch per class"). Three disjoint
boxes, IoU threshold 0.5: every cap above 2 selects all three. Needs openvino, onnx (to build the ONNX model) and
numpy. Prints the versions, then per graph and cap the boxes expected and OpenVINO's; the last line is REPRODUCED
(exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
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
X = [np.array([[[0, 0, 1, 1], [0, 2, 1, 3], [0, 4, 1, 5]]], np.float32), np.array([[[0.9, 0.8, 0.7]]], np.float32)]
ONNX = ov.Core().read_model(onnx.parser.parse_model("""<ir_version: 6, opset_import: ["" : 11]> nms (float[1,3,4] b,
    float[1,1,3] s, int64[1] cap) => (int64[N,3] sel) <float[1] iou = {0.5}> {sel = NonMaxSuppression(b, s, cap,
    iou)}""").SerializeToString())  # ONNX NonMaxSuppression-11, the cap a graph input, read by the ONNX frontend


def native(ops, cap):  # OpenVINO's own NonMaxSuppression, the cap a Parameter (cap None) or a constant
    b, s, c = ops.parameter([1, 3, 4], np.float32), ops.parameter([1, 1, 3], np.float32), ops.parameter([1], np.int64)
    nms = ops.non_max_suppression(b, s, c if cap is None else ops.constant(np.int64(cap)), ops.constant(np.float32(.5)))
    return ov.Model([nms.output(0)], [b, s] if cap is not None else [b, s, c])


def kept(request, cap, feed=True):  # the indices of the boxes selected
    request.infer(X + [np.array([cap], np.int64)] * feed)
    return sorted(int(row[2]) for row in request.get_output_tensor(0).data)


wrong = False
for cap in [2**31, 2**32, 2**32 + 2, 2**63 - 1]:
    for name, model, feed in [("ONNX NonMaxSuppression-11, max_output_boxes_per_class a graph input", ONNX, 1),
                              ("NonMaxSuppression-5, max_output_boxes_per_class a Parameter", native(OPS[5], None), 1),
                              ("NonMaxSuppression-9, max_output_boxes_per_class a Parameter", native(OPS[9], None), 1),
                              ("NonMaxSuppression-9, max_output_boxes_per_class a constant", native(OPS[9], cap), 0)]:
        try:  # a fresh infer request each time
            got = kept(ov.Core().compile_model(model, "CPU").create_infer_request(), cap, feed)
        except RuntimeError as error:
            got = f"error: {str(error).strip().splitlines()[-1][:80]}"
        wrong = wrong or got != [0, 1, 2]
        print(f"{name} = {cap}: expected [0, 1, 2]; OpenVINO {got}{'  <- wrong' * (got != [0, 1, 2])}")
request = ov.Core().compile_model(native(OPS[9], None), "CPU").create_infer_request()
for cap in [10, 2**31, 0, 2**31]:  # one infer request: 2**31 answers as the run before it allowed
    print(f"NonMaxSuppression-9, one infer request, max_output_boxes_per_class = {cap}: OpenVINO {kept(request, cap)}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
