"""OpenVINO's CPU plugin leaves the valid_outputs output of its NonMaxSuppression-5 and -9 unwritten when no box can
be selected and the output shapes are static: with max_output_boxes_per_class 0, with it left out (default 0), or
with no boxes at all. selected_indices then has 0 rows, and valid_outputs holds whatever was in memory (often 0,
often not: numbers such as 1065353216, the bits of the float 1.0). OpenVINO: valid_outputs is "1D tensor with 1
element of type output_type representing the total number of selected boxes", here 0. Each graph is compiled 4
times, since a fresh process starts out on zeroed memory. Needs openvino and numpy. Prints the versions, then per
graph the rows and the valid_outputs of each compilation; the last line is REPRODUCED (exit 0), NOT REPRODUCED
(exit 1) or CANNOT RUN: why (exit 2)."""
import platform
import sys

try:
    import numpy as np
    import openvino as ov
except Exception as error:  # not installed, or an install that does not import
    print(f"CANNOT RUN: {type(error).__name__}: {error}")
    sys.exit(2)

OPS = {v: getattr(ov, f"opset{v}", None) or getattr(ov.runtime, f"opset{v}") for v in (5, 9)}  # ov.runtime before 2024
print(f"openvino {ov.__version__}, numpy {np.__version__}; Python {platform.python_version()}, {platform.platform()}")
INPUTS = [("max_output_boxes_per_class 0", 3, 0), ("max_output_boxes_per_class left out", 3, None),
          ("no boxes (boxes [1, 0, 4], cap 10)", 0, 10)]  # what, number of boxes, cap (None: left out)
seen = {}
for _ in range(4):
    for what, n, cap in INPUTS:
        for version in (5, 9):
            for sort in (False, True):
                ops = OPS[version]
                b, s = ops.parameter([1, n, 4], np.float32), ops.parameter([1, 1, n], np.float32)
                optional = [] if cap is None else [ops.constant(np.int64(cap)), ops.constant(np.float32(0.5))]
                nms = ops.non_max_suppression(b, s, *optional, sort_result_descending=sort, output_type="i64")
                out = ov.Core().compile_model(ov.Model(nms.outputs(), [b, s]), "CPU")(
                    [np.ones([1, n, 4], np.float32), np.full([1, 1, n], 0.9, np.float32)])
                key = f"NonMaxSuppression-{version}, sort_result_descending {str(sort).lower()}, {what}"
                seen.setdefault(key, []).append((len(out[0]), int(np.asarray(out[2]).reshape(-1)[0])))
wrong = False
for key, runs in seen.items():
    bad = any(rows != valid for rows, valid in runs)
    wrong = wrong or bad
    print(f"{key}: rows {[rows for rows, _ in runs]}; valid_outputs {[valid for _, valid in runs]} "
          f"(documents: the number of rows){'  <- wrong' * bad}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
