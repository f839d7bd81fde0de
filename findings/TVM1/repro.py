"""Apache TVM's Relax ONNX frontend runs ONNX TopK-10 as TopK-1: it reads K from the attribute `k`
(absent at opset 10, so 1) and ignores the K input, returning 1 element where the graph asks for
K.

Needs apache-tvm, onnx, numpy. Prints the versions, the input, the answer ONNX defines and TVM's;
the last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2). Do not
run it from a folder holding a `tvm` or `torch` folder."""
import platform
import sys

try:
    import numpy as np
    import onnx
    import tvm
    from onnx import TensorProto, helper, numpy_helper
    from tvm import relax
    from tvm.relax.frontend.onnx import from_onnx
except Exception as error:  # a module missing, or a build that cannot load here
    print(f"CANNOT RUN: a module is missing or cannot load ({type(error).__name__}: {error})")
    sys.exit(2)

print(f"apache-tvm {tvm.__version__}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
x = np.array([[1.0, 4.0, 2.0, 3.0]], np.float32)
k = 3
graph = helper.make_graph(
    [helper.make_node("TopK", ["X", "K"], ["values", "indices"], axis=-1)], "topk10",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 4])],
    [helper.make_tensor_value_info("values", TensorProto.FLOAT, [1, k]),
     helper.make_tensor_value_info("indices", TensorProto.INT64, [1, k])],
    initializer=[numpy_helper.from_array(np.array([k], np.int64), "K")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 10)])
onnx.checker.check_model(model, full_check=True)  # K is TopK-10's second input; no attribute k

module = relax.transform.LegalizeOps()(from_onnx(model, keep_params_in_input=False))
machine = relax.VirtualMachine(tvm.compile(module, target="llvm"), tvm.cpu())
values, indices = (out.numpy() for out in machine["main"](tvm.runtime.tensor(x)))
print(f"input X {x.tolist()}, K = {k} (an initializer), TopK-10, axis -1, largest")
print("ONNX defines: values [[4.0, 3.0, 2.0]], indices [[1, 3, 2]]")
print(f"TVM gives:    values {values.tolist()}, indices {indices.tolist()}")
print("REPRODUCED" if values.shape[-1] != k else "NOT REPRODUCED")
sys.exit(0 if values.shape[-1] != k else 1)
