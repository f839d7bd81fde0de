"""tinygrad's ONNX ArgMin is ArgMax of the negated input, which is wrong for integers: negation
wraps, so a 0 stays the lowest unsigned value and the signed minimum (-128 for int8) stays itself,
and neither is found; for uint8 and uint16 the generated C also compares the negation after C's
promotion to int, so no element matches the maximum and the index is the axis length, outside
the input. ONNX's ArgMin of the rows [0, 5, 3] and [7, 2, 9] is [[0], [1]]; tinygrad gives [[3], [3]]
(uint8, uint16) or [[2], [1]] (uint32, uint64); of int8 [5, 127, -128, 0] it is 2, tinygrad gives 3.

Needs tinygrad (its CPU device: clang on PATH), onnx (only to build the model) and numpy. The last
line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import os
import platform
import sys
from importlib.metadata import version

os.environ.setdefault("DEV", "CPU")  # tinygrad's clang-compiled C backend; read as tinygrad loads
try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper
    from tinygrad.tensor import Tensor
    try:
        from tinygrad.nn.onnx import OnnxRunner
    except ImportError:  # tinygrad 0.11
        from tinygrad.frontend.onnx import OnnxRunner
except Exception as error:  # a module missing, or a release without an ONNX runner
    print(f"CANNOT RUN: {type(error).__name__}: {error}")
    sys.exit(2)

print(f"tinygrad {version('tinygrad')}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
wrong = 0
unsigned = [[0, 5, 3], [7, 2, 9]]
for name, data in (("uint8", unsigned), ("uint16", unsigned), ("uint32", unsigned), ("uint64", unsigned),
                   ("int8", [[5, 127, -128, 0]])):
    x = np.array(data, name)
    graph = helper.make_graph(
        [helper.make_node("ArgMin", ["X"], ["Y"], axis=1, keepdims=1)], "argmin13",
        [helper.make_tensor_value_info("X", getattr(TensorProto, name.upper()), list(x.shape))],
        [helper.make_tensor_value_info("Y", TensorProto.INT64, [len(data), 1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)
    y = OnnxRunner(Tensor(model.SerializeToString()))({"X": Tensor(x)})["Y"].numpy()
    answer = np.argmin(x, axis=1, keepdims=True)  # numpy, as ONNX: the index of the first minimum
    print(f"ArgMin-13 of {name} {data}, axis 1, keepdims 1: ONNX defines {answer.tolist()}, tinygrad gives {y.tolist()}")
    wrong += not np.array_equal(y, answer)
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
