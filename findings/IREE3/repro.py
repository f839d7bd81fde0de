"""IREE computes ONNX's Hardmax-1 and Hardmax-11 as Hardmax-13. Before opset 13, Hardmax views its
input as a 2-D matrix (the dimensions before `axis` as rows, the rest as one row) and puts a
single 1 per row; IREE puts one 1 per slice along `axis` alone, as Hardmax-13 does.

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
    [helper.make_node("Hardmax", ["X"], ["Y"], axis=1)], "hardmax",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 2, 2])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 2, 2])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
onnx.checker.check_model(model, full_check=True)
info = onnx_importer.ModelInfo(onnx.shape_inference.infer_shapes(model))
module = info.create_module(context=ir.Context()).operation
onnx_importer.NodeImporter.define_function(info.main_graph, module).import_all()
hardmax = runtime.load_vm_flatbuffer(compiler.compile_str(str(module), target_backends=["llvm-cpu"]),
                                     driver="local-task").hardmax
x = np.array([[[1, 4], [3, 2]]], np.float32)
y = hardmax(x).to_host()
print(f"input X {x.tolist()} float32, Hardmax-11, axis 1 (coerced to the 1 x 4 matrix [[1, 4, 3, 2]])")
print("ONNX defines: [[[0, 1], [0, 0]]] (one 1 in the coerced row, at the 4)")
print(f"IREE gives:   {y.tolist()}")
print("REPRODUCED" if y.sum() != 1 else "NOT REPRODUCED")
sys.exit(0 if y.sum() != 1 else 1)
