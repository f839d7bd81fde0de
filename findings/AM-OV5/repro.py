"""OpenVINO's CPU plugin answers ONNX ArgMax and ArgMin on float32 with NaN under opposite NaN placements in two
rows of one tensor: ArgMax of [[0, NaN], [NaN, 0]] over axis 1 gives [0, 0], NaN below every number in row 0 and
above in row 1 (ArgMin gives [1, 1] likewise). Each row alone fits one placement. ONNX ArgMax/ArgMin say nothing
on NaN; the answers accepted below are those of one consistent placement (every NaN above every number, or every
NaN below). Needs openvino, onnx (to build the model) and numpy. Prints the versions, then per input the answers
accepted and OpenVINO's, then each row alone for comparison; the last line is REPRODUCED (exit 0), NOT REPRODUCED
(exit 1) or CANNOT RUN: why (exit 2)."""
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
core, nan = ov.Core(), float("nan")


def arg(op, x, axis):
    """ONNX ArgMax-13 or ArgMin-13 (keepdims=0) of float32 x on OpenVINO's CPU plugin."""
    graph = helper.make_graph([helper.make_node(op, ["X"], ["I"], axis=axis, keepdims=0)], "arg",
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)
    try:
        compiled = core.compile_model(core.read_model(model.SerializeToString()), "CPU")
    except Exception as error:  # this release cannot load the model
        print(f"CANNOT RUN: OpenVINO cannot load ONNX {op}-13: {str(error).splitlines()[0][:200]}")
        sys.exit(2)
    return np.asarray(compiled([x])[0]).tolist()


INPUTS = [  # input, axis, ArgMax (NaN above, NaN below), ArgMin (NaN above, NaN below)
    ([[0, nan], [nan, 0]], 1, ([1, 0], [0, 1]), ([0, 1], [1, 0])),
    ([[0, 0, 0, nan], [0, 0, nan, 0]], 0, ([0, 0, 1, 0], [0, 0, 0, 1]), ([0, 0, 0, 1], [0, 0, 1, 0])),
]
wrong = False
for row, axis, *answers in INPUTS:
    for op, (above, below) in zip(("ArgMax", "ArgMin"), answers):
        got = arg(op, np.array(row, np.float32), axis)
        wrong = wrong or got not in (above, below)
        print(f"{op}-13 float32 {row}, axis {axis}: expected {above} (NaN above every number) or {below} (NaN below); "
              f"OpenVINO {got}{'  <- neither' * (got not in (above, below))}")
for x in (np.array([0, nan], np.float32), np.array([nan, 0], np.float32)):
    print(f"  each row alone: {x.tolist()}: ArgMax {arg('ArgMax', x, 0)}, ArgMin {arg('ArgMin', x, 0)}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
