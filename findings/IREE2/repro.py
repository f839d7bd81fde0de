"""IREE's ONNX TopK on unsigned integers returns its values as the signed type of the same width
(uint8 in, int8 out; likewise uint16, uint32, uint64), so 200 reads as -56.

Needs iree-base-compiler, iree-base-runtime, onnx, numpy; IREE's own ONNX importer, `llvm-cpu`,
the `local-task` driver, default flags. The last line is REPRODUCED (exit 0), NOT REPRODUCED
(exit 1) or CANNOT RUN: why (exit 2)."""
import platform
import sys

try:
    import iree.compiler as compiler
    import iree.runtime as runtime
    import numpy as np
    import onnx
    from iree.compiler import ir
    from iree.compiler import version as compiler_version
    from iree.compiler.extras import onnx_importer
    from iree.runtime import version as runtime_version
    from onnx import TensorProto, helper
except Exception as error:  # a module missing, or a build that cannot load here
    print(f"CANNOT RUN: a module is missing or cannot load ({type(error).__name__}: {error})")
    sys.exit(2)

print(f"iree-base-compiler {compiler_version.VERSION}, iree-base-runtime {runtime_version.VERSION}, "
      f"onnx {onnx.__version__}, numpy {np.__version__}; Python {platform.python_version()}, {platform.platform()}")
graph = helper.make_graph(
    [helper.make_node("TopK", ["X", "K"], ["values", "indices"], axis=-1)], "topk",
    [helper.make_tensor_value_info("X", TensorProto.UINT8, [1, 3]),
     helper.make_tensor_value_info("K", TensorProto.INT64, [1])],
    [helper.make_tensor_value_info("values", TensorProto.UINT8, [1, 2]),
     helper.make_tensor_value_info("indices", TensorProto.INT64, [1, 2])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
onnx.checker.check_model(model, full_check=True)
info = onnx_importer.ModelInfo(onnx.shape_inference.infer_shapes(model))
module = info.create_module(context=ir.Context()).operation
onnx_importer.NodeImporter.define_function(info.main_graph, module).import_all()
topk = runtime.load_vm_flatbuffer(compiler.compile_str(str(module), target_backends=["llvm-cpu"]),
                                  driver="local-task").topk
x = np.array([[3, 1, 200]], np.uint8)
values, indices = (out.to_host() for out in topk(x, np.array([2], np.int64)))
print(f"input X {x.tolist()} uint8, K = 2, TopK-11, axis -1, largest")
print("ONNX defines: values [[200, 3]] uint8 (the output type is the input's), indices [[2, 0]]")
print(f"IREE gives:   values {values.tolist()} {values.dtype}, indices {indices.tolist()}")
print("REPRODUCED" if values.dtype != np.uint8 else "NOT REPRODUCED")
sys.exit(0 if values.dtype != np.uint8 else 1)
