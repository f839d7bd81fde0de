"""tinygrad's ONNX TopK returns -0.0 and +0.0 with the wrong sign: TopK-11 of float32 [-0.0, 0.0],
K = 2 gives indices [0, 1] (the tie broken by index, as ONNX says) but values [-0.0, -0.0], where
the element at index 1 is +0.0; [0.0, -0.0] gives values [0.0, 0.0]. TopK is Tensor.topk, a bitonic
sort whose compare-exchange is maximum/minimum (in C, `(a<b)?b:a`, minimum as -max(-a, -b)): for
two zeros, which compare equal, both slots get the first one; the indices are found afterwards by
matching values, for which -0.0 equals +0.0.

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
graph = helper.make_graph(
    [helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=0)], "topk11",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2])],
    [helper.make_tensor_value_info("V", TensorProto.FLOAT, [2]), helper.make_tensor_value_info("I", TensorProto.INT64, [2])],
    [helper.make_tensor("K", TensorProto.INT64, [1], [2])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], ir_version=6)
wrong = 0
for data in ([-0.0, 0.0], [0.0, -0.0]):
    x = np.array(data, np.float32)
    out = OnnxRunner(Tensor(model.SerializeToString()))({"X": Tensor(x)})
    values, indices = out["V"].numpy(), out["I"].numpy()
    print(f"input X {x.tolist()} float32, TopK-11, K = 2, largest (the two zeros tie: the lower index first)")
    print(f"  ONNX defines: indices [0, 1], values {x.tolist()} (the elements at those indices)")
    print(f"  tinygrad gives: indices {indices.tolist()}, values {values.tolist()}")
    wrong += not np.array_equal(np.signbit(values), np.signbit(x[indices]))
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
