"""tinygrad's ONNX TopK, given a row that holds a NaN, returns the same index more than once and
values that are not the row's elements: float32 [3, NaN, 1, NaN, 2, 5], K = 3 gives indices
[5, 0, 0] and values [5, 3, 3] (largest), indices [4, 0, 0] and values [2, 3, 3] (smallest).
ONNX does not say where NaN ranks, but under any placement the K indices are distinct elements of
the row. TopK is Tensor.topk, a bitonic sort whose compare-exchange is maximum/minimum (in C,
`(a<b)?b:a`): with a NaN in the pair both slots get the same operand, so the NaN is lost or copied
and a number is copied; each value's index is then found by matching values, which NaN never does.

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
x = np.array([3, np.nan, 1, np.nan, 2, 5], np.float32)
answers = {1: "[NaN, NaN, 5] at [1, 3, 5] (NaN above every number) or [5, 3, 2] at [5, 0, 4] (NaN below)",
           0: "[1, 2, 3] at [2, 4, 0] (NaN above every number) or [NaN, NaN, 1] at [1, 3, 2] (NaN below)"}
repeated = 0
for largest in (1, 0):
    graph = helper.make_graph(
        [helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=0, largest=largest)], "topk11",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [6])],
        [helper.make_tensor_value_info("V", TensorProto.FLOAT, [3]), helper.make_tensor_value_info("I", TensorProto.INT64, [3])],
        [helper.make_tensor("K", TensorProto.INT64, [1], [3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], ir_version=6)
    out = OnnxRunner(Tensor(model.SerializeToString()))({"X": Tensor(x)})
    values, indices = out["V"].numpy(), out["I"].numpy()
    print(f"input X {x.tolist()} float32, TopK-11, K = 3, axis 0, largest = {largest}")
    print(f"  ONNX does not rank NaN; under either placement: values {answers[largest]}")
    print(f"  tinygrad gives: values {values.tolist()}, indices {indices.tolist()}")
    repeated += len(set(indices.tolist())) < len(indices)
print("REPRODUCED" if repeated else "NOT REPRODUCED")
sys.exit(0 if repeated else 1)
