"""Apache TVM's ArgMax returns index -1 for a slice whose every element is the type's lowest value (0
for unsigned integers, -128 for int8, -inf for floats), and ArgMin likewise for the highest: the
reduction starts from that value and an index of -1 and only moves on a greater (smaller) element,
or an equal one at a smaller index, which -1 always is. ONNX's ArgMax of [0, 0, 0] is 0, the first
maximum; Hardmax, made from ArgMax, puts no 1 in an all -inf row.

Needs apache-tvm, onnx, numpy. The last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or
CANNOT RUN: why (exit 2)."""
import platform
import sys

try:
    import numpy as np
    import onnx
    import tvm
    from onnx import TensorProto, helper
    from tvm import relax
    from tvm.relax.frontend.onnx import from_onnx
except Exception as error:  # a module missing, or a build that cannot load here
    print(f"CANNOT RUN: a module is missing or cannot load ({type(error).__name__}: {error})")
    sys.exit(2)

print(f"apache-tvm {tvm.__version__}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
graph = helper.make_graph(
    [helper.make_node("ArgMax", ["X"], ["Y"], axis=1, keepdims=1)], "argmax13",
    [helper.make_tensor_value_info("X", TensorProto.UINT8, [2, 3])],
    [helper.make_tensor_value_info("Y", TensorProto.INT64, [2, 1])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model, full_check=True)

module = relax.transform.LegalizeOps()(from_onnx(model, keep_params_in_input=False))
machine = relax.VirtualMachine(tvm.compile(module, target="llvm"), tvm.cpu())
x = np.array([[0, 0, 0], [0, 7, 0]], np.uint8)
y = machine["main"](tvm.runtime.tensor(x)).numpy()
print(f"input X {x.tolist()} uint8, ArgMax-13, axis 1, keepdims 1")
print("ONNX defines: [[0], [1]] (the index of the first maximum; row 0's maximum is 0, at index 0)")
print(f"TVM gives:    {y.tolist()}")
print("REPRODUCED" if y[0, 0] == -1 else "NOT REPRODUCED")
sys.exit(0 if y[0, 0] == -1 else 1)
