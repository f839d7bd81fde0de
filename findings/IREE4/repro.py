"""IREE's CPU code compares subnormal floats as zero (flushed): ArgMax over [0, 1e-45, 3e-45] chooses
index 0, the first of three "equal" values, where ONNX's answer is 2 (the largest, 3e-45, is a
float32 like any other). TopK orders such values as ties likewise.

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
    [helper.make_node("ArgMax", ["X"], ["Y"], axis=1, keepdims=1)], "argmax",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 3])],
    [helper.make_tensor_value_info("Y", TensorProto.INT64, [1, 1])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model, full_check=True)
info = onnx_importer.ModelInfo(onnx.shape_inference.infer_shapes(model))
module = info.create_module(context=ir.Context()).operation
onnx_importer.NodeImporter.define_function(info.main_graph, module).import_all()
argmax = runtime.load_vm_flatbuffer(compiler.compile_str(str(module), target_backends=["llvm-cpu"]),
                                    driver="local-task").argmax
x = np.array([[0.0, 1e-45, 3e-45]], np.float32)
y = argmax(x).to_host()
print(f"input X {x.tolist()} float32 (two subnormals), ArgMax-13, axis 1")
print("ONNX defines: [[2]] (3e-45 is the largest)")
print(f"IREE gives:   {y.tolist()}")
print("REPRODUCED" if y[0, 0] != 2 else "NOT REPRODUCED")
sys.exit(0 if y[0, 0] != 2 else 1)
