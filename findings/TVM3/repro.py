"""Apache TVM's TopK with K = 0 returns every element instead of none (TOPI's topk "returns all
elements if k < 1", by design since apache/tvm#3256); ONNX's TopK with K = 0 has an empty output
along the axis.

Needs apache-tvm, onnx, numpy. The last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or
CANNOT RUN: why (exit 2)."""
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
graph = helper.make_graph(
    [helper.make_node("TopK", ["X", "K"], ["values", "indices"], axis=-1)], "topk11",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 4])],
    [helper.make_tensor_value_info("values", TensorProto.FLOAT, [1, 0]),
     helper.make_tensor_value_info("indices", TensorProto.INT64, [1, 0])],
    initializer=[numpy_helper.from_array(np.array([0], np.int64), "K")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
onnx.checker.check_model(model, full_check=True)

module = relax.transform.LegalizeOps()(from_onnx(model, keep_params_in_input=False))
machine = relax.VirtualMachine(tvm.compile(module, target="llvm"), tvm.cpu())
values, indices = (out.numpy() for out in machine["main"](tvm.runtime.tensor(x)))
print(f"input X {x.tolist()}, K = 0 (an initializer), TopK-11, axis -1, largest")
print("ONNX defines: values and indices of shape [1, 0] (no element)")
print(f"TVM gives:    values {values.tolist()}, indices {indices.tolist()} (shape {list(values.shape)})")
print("REPRODUCED" if values.shape[-1] != 0 else "NOT REPRODUCED")
sys.exit(0 if values.shape[-1] != 0 else 1)
