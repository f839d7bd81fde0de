"""OpenVINO places NaN in TopK neither consistently within one tensor nor the same way across
models. Float32 rows [NaN, 1, 2], [1, 2, NaN], [2, NaN, 1], K = 1, mode max: an opset11.topk
(stable=true, K a constant) answers indices [[0], [1], [0]], NaN winning only where it comes
first, which no single placement of NaN (above every number, or below) explains; with K given as
a graph input, an opset11.topk (stable=false) and an ONNX TopK-11 read by the ONNX frontend
answer [[2], [2], [2]], where the last row picks 1 over 2. No document says where NaN goes, so
this is an inconsistency rather than a broken promise. Needs openvino, onnx (only to build the
ONNX model), numpy. The last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN:
why (exit 2)."""
import platform
import sys

try:
    import numpy as np
    import onnx
    import openvino as ov
    op = getattr(ov, "opset11", None) or ov.runtime.opset11  # before 2025.0: openvino.runtime.opset11
except Exception as error:  # a module missing, or a build that cannot load here
    print(f"CANNOT RUN: a module is missing or cannot load ({type(error).__name__}: {error})")
    sys.exit(2)


def native(stable, k_input):
    """OpenVINO's own TopK-11 of a float32 [3, 3], last axis, mode max, K = 1 a constant or a graph input."""
    x, k = op.parameter([3, 3], np.float32), op.parameter([], np.int64) if k_input else op.constant(np.int64(1))
    return ov.Model(op.topk(x, k, -1, "max", "value", "i32", stable).outputs(), [x, k] if k_input else [x])


x = np.array([[np.nan, 1, 2], [1, 2, np.nan], [2, np.nan, 1]], np.float32)
above, below = [[0], [2], [1]], [[2], [1], [0]]  # the indices if NaN is above every number, or below
print(f"openvino {ov.get_version()}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
print(f"float32 X rows {x.tolist()}, K = 1, mode max, last axis\n  expected one NaN placement for the whole tensor: "
      f"indices {above} (NaN above every number) or {below} (NaN below)")
onnx_model = onnx.parser.parse_model("""<ir_version: 6, opset_import: ["" : 11]>
    topk (float[3,3] X, int64[1] K) => (float[3,k] V, int64[3,k] I) { V, I = TopK (X, K) }""")  # lowest IR for opset 11
answers = []
for label, model, feeds in [
        ("opset11.topk stable=true, K a constant", lambda: native(True, False), [x]),
        ("opset11.topk stable=false, K a graph input", lambda: native(False, True), [x, np.array(1, np.int64)]),
        ("ONNX TopK-11 through the ONNX frontend, K a graph input",
         lambda: ov.Core().read_model(onnx_model.SerializeToString()), [x, np.array([1], np.int64)])]:
    try:
        answers.append(ov.Core().compile_model(model(), "CPU")(feeds)[1].tolist())
    except Exception as error:
        if label.startswith("ONNX"):
            print(f"{label}: not run here ({type(error).__name__}: {error})")
            continue
        print(f"CANNOT RUN: this openvino cannot build or run TopK-11 ({type(error).__name__}: {error})")
        sys.exit(2)
    placement = "NaN above" if answers[-1] == above else "NaN below" if answers[-1] == below else "neither"
    print(f"  {label}: OpenVINO gives indices {answers[-1]} ({placement})")
hit = any(answer not in (above, below) for answer in answers) or len({str(answer) for answer in answers}) > 1
print("REPRODUCED" if hit else "NOT REPRODUCED")
sys.exit(0 if hit else 1)
