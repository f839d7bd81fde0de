"""OpenVINO's CPU plugin compares float64 values in float32 in ONNX ArgMax and ArgMin: the ONNX frontend lowers them
to TopK-11 with k = 1, and the CPU plugin computes float64 TopK in float32, so the two largest finite float64 values
both become inf and tie, and float64 subnormals become 0 and tie; the first (or with select_last_index=1 the last)
of the tied values is then chosen. ONNX ArgMax-13/ArgMin-13 (T includes double) return the index of the max (min).
Needs openvino, onnx (to build the model) and numpy. Prints the versions, then per input the documents' answer and
OpenVINO's; the last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import platform
import sys

try:
    import numpy as np
    import onnx
    import openvino as ov
    from onnx import TensorProto, helper
except ImportError as error:
    print(f"CANNOT RUN: {error}")
    sys.exit(2)

print(f"openvino {ov.__version__}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
INPUTS = [  # operator, input, select_last_index, the documents' answer
    ("ArgMax", [1.7976931348623155e308, 1.7976931348623157e308], 0, 1),
    ("ArgMin", [0.0, 5e-324, -5e-324], 0, 2),
    ("ArgMax", [0.0, 5e-324, -5e-324, 5e-324], 0, 1),
    ("ArgMin", [0.0, 5e-324, -5e-324, 5e-324], 1, 2),
    ("ArgMin", [[0.0, 0.0, np.inf, 0.0], [0.0, 0.0, 1.7976931348623157e308, 0.0]], 0, [0, 0, 1, 0]),
]
core, wrong = ov.Core(), False
for op, row, last, want in INPUTS:
    x = np.array(row, np.float64)
    graph = helper.make_graph([helper.make_node(op, ["X"], ["I"], axis=0, keepdims=0, select_last_index=last)], "arg",
                              [helper.make_tensor_value_info("X", TensorProto.DOUBLE, list(x.shape))],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)
    try:
        compiled = core.compile_model(core.read_model(model.SerializeToString()), "CPU")
    except Exception as error:  # this release cannot load the model
        print(f"CANNOT RUN: OpenVINO cannot load ONNX {op}-13 on float64: {str(error).splitlines()[0][:200]}")
        sys.exit(2)
    got = np.asarray(compiled([x])[0]).tolist()
    wrong = wrong or got != want
    print(f"{op}-13 float64 {x.tolist()}, axis 0, "
          f"select_last_index={last}: documents {want}; OpenVINO {got}{'  <- wrong' * (got != want)}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
