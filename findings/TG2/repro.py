"""tinygrad computes ONNX's Hardmax-1 and Hardmax-11 as Hardmax-13. Before opset 13, Hardmax views
its input as a 2-D matrix (the dimensions before `axis` as rows, the rest flattened into one row)
and puts a single 1 per row; tinygrad's ONNX runner has one Hardmax for every opset, argmax along
`axis` alone and a one-hot, so it puts one 1 per slice along `axis` (and its default axis is -1,
where Hardmax-1 and -11 default to 1).

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
x = np.array([[[1, 4], [3, 2]]], np.float32)
wrong = 0
for opset, ir in ((11, 6), (1, 3)):  # the lowest IR version each opset allows
    graph = helper.make_graph(
        [helper.make_node("Hardmax", ["X"], ["Y"], axis=1)], "hardmax",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 2, 2])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 2, 2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir)
    try:
        y = OnnxRunner(Tensor(model.SerializeToString()))({"X": Tensor(x)})["Y"].numpy()
    except NotImplementedError as error:  # a release without Hardmax
        print(f"CANNOT RUN: {error}")
        sys.exit(2)
    print(f"input X {x.tolist()} float32, Hardmax-{opset}, axis 1 (coerced to the 1 x 4 matrix [[1, 4, 3, 2]])")
    print("  ONNX defines: [[[0, 1], [0, 0]]] (one 1 in the coerced row, at the 4)")
    print(f"  tinygrad gives: {y.tolist()}")
    wrong += float(y.sum()) != 1.0
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
