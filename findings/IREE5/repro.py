"""IREE's ArgMax (and ArgMin) compiled to SPIR-V for Vulkan return wrong indices when the reduced
axis is not the innermost one: ArgMax over axis 0 of [[1, 2, 3], [3, 0, 4], [2, 5, 2]] gives
[[0, 0, 0]] where ONNX (and IREE's own llvm-cpu target) gives [[1, 2, 1]]. Seen on both CPU
Vulkan drivers (Mesa's lavapipe, Google's SwiftShader), so the shader IREE generates, not the
driver, looks at fault.

Needs iree-base-compiler, iree-base-runtime, onnx, numpy and a Vulkan driver (VK_ICD_FILENAMES
picks one: /usr/share/vulkan/icd.d/lvp_icd.x86_64.json for lavapipe); IREE's own ONNX importer,
the `vulkan-spirv` target, the `vulkan` driver, default flags. The last line is REPRODUCED
(exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import platform
import sys
from importlib.metadata import version

try:
    import iree.compiler as compiler
    import iree.runtime as runtime
    import numpy as np
    import onnx
    from iree.compiler import ir
    from iree.compiler.extras import onnx_importer
    from onnx import TensorProto, helper
    device = runtime.get_driver("vulkan").query_available_devices()[0]["name"]  # IndexError: none
except Exception as error:  # a module missing or unable to load, or no Vulkan driver or device
    print(f"CANNOT RUN: a module or a Vulkan device is missing ({type(error).__name__}: {error})")
    sys.exit(2)

print(", ".join(f"{name} {version(name)}" for name in ["iree-base-compiler", "iree-base-runtime", "onnx", "numpy"])
      + f"; Python {platform.python_version()}, {platform.platform()}; Vulkan device: {device}")
graph = helper.make_graph([helper.make_node("ArgMax", ["X"], ["Y"], axis=0, keepdims=1)], "argmax",
                          [helper.make_tensor_value_info("X", TensorProto.FLOAT, [3, 3])],
                          [helper.make_tensor_value_info("Y", TensorProto.INT64, [1, 3])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
info = onnx_importer.ModelInfo(onnx.shape_inference.infer_shapes(model))
module = info.create_module(context=ir.Context()).operation
onnx_importer.NodeImporter.define_function(info.main_graph, module).import_all()
argmax = runtime.load_vm_flatbuffer(compiler.compile_str(str(module), target_backends=["vulkan-spirv"]),
                                    driver="vulkan").argmax
x = np.array([[1, 2, 3], [3, 0, 4], [2, 5, 2]], np.float32)
result = argmax(x)
# Read back through a host buffer of our own: to_host() imports numpy memory into Vulkan,
# which the CPU drivers refuse (minImportedHostPointerAlignment 4096).
gpu = result._device
host = gpu.allocator.allocate_buffer(
    memory_type=int(runtime.MemoryType.HOST_LOCAL | runtime.MemoryType.DEVICE_VISIBLE),
    allowed_usage=int(runtime.BufferUsage.TRANSFER_TARGET | runtime.BufferUsage.MAPPING_SCOPED), allocation_size=24)
copied = runtime.HalFence.create_at(gpu.create_semaphore(0), 1)
gpu.queue_copy(result._buffer_view.get_buffer(), host, wait_semaphores=runtime.HalFence(1), signal_semaphores=copied)
copied.wait()
y = host.map().asarray((1, 3), np.dtype(np.int64)).copy()
print(f"input X {x.tolist()} float32, ArgMax-13, axis 0, keepdims 1")
print(f"ONNX defines: [[1, 2, 1]] (the row of each column's maximum); IREE gives: {y.tolist()}")
print("REPRODUCED" if y.tolist() != [[1, 2, 1]] else "NOT REPRODUCED")
sys.exit(0 if y.tolist() != [[1, 2, 1]] else 1)
