"""AM-REF1: onnx's reference evaluator, ArgMax/ArgMin with NaN: the first NaN wins both operators.

The reference evaluator's ArgMax/ArgMin are numpy's argmax/argmin, where the first NaN wins (with
select_last_index the axis is flipped, so the last NaN wins): for ArgMin that is NaN below every
number, for ArgMax NaN above. Valid under a NaN placement; ONNX says nothing on NaN; DirectML's answer
(NaN never chosen over a number by ArgMin) differs. Standalone: onnx (onnx.reference.ReferenceEvaluator,
from onnx 1.13), numpy.

ONNX ArgMin-13: "If select_last_index is True (default False), the index of the last occurrence of the
min is selected if the min appears more than once in the input. Otherwise the index of the first
occurrence is selected." No version says where NaN goes.
"""
import platform
import sys


def cpu_name():
    name = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return name or "unknown"


try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator
except ImportError as error:
    print(f"CANNOT RUN: {error}")
    sys.exit(2)

print("onnx", onnx.__version__, "| numpy", np.__version__)
print("python", sys.version.split()[0], "|", platform.platform(), "|", cpu_name())


def arg(op, x, last=0):
    """ONNX ArgMax/ArgMin-13 (axis 0, keepdims=0, ir_version 7) on the reference evaluator."""
    node = helper.make_node(op, ["X"], ["I"], axis=0, keepdims=0, select_last_index=last)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)
    return np.asarray(ReferenceEvaluator(model).run(None, {"X": x})[0]).tolist()


n = np.nan
INPUTS = [  # op, row, select_last_index, the first (last) NaN's index, NaN-high answer, NaN-low answer
    ("ArgMin", [2, n, 2, 1], 0, 1, 3, 1),
    ("ArgMin", [n, 1, n], 1, 2, 1, 2),
    ("ArgMax", [2, n, 2, 1], 0, 1, 1, 0),
    ("ArgMax", [n, 1, n], 1, 2, 2, 1),
]
seen = 0
for op, row, last, nan_index, high, low in INPUTS:
    got = arg(op, np.array(row, np.float32), last)
    seen += got == nan_index
    print(f"{op} float32 {row} axis 0 select_last_index={last}: reference {got}"
          f"{' (the ' + ('last' if last else 'first') + ' NaN)' if got == nan_index else ''}; "
          f"documents {high} (NaN above every number) or {low} (NaN below)")
# What the finding is: the NaN wins in each of these (for ArgMin, NaN below every number).
if seen == len(INPUTS):
    print("REPRODUCED")
    sys.exit(0)
print("NOT REPRODUCED")
sys.exit(1)
