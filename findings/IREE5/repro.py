"""IREE5: IREE's ArgMax (and ArgMin) compiled to SPIR-V for Vulkan return wrong indices when the
reduced axis is not the innermost one: ArgMax over axis 0 of [[1, 2, 3], [3, 0, 4], [2, 5, 2]]
gives [0, 0, 0] where ONNX (and IREE's own llvm-cpu target) gives [1, 2, 1]. Seen on both CPU
Vulkan drivers (Mesa's lavapipe, Google's SwiftShader), so the shader IREE generates, not the
driver. Standalone: iree-base-compiler, iree-base-runtime, onnx, numpy, and a Vulkan driver
(VK_ICD_FILENAMES picks one: /usr/share/vulkan/icd.d/lvp_icd.x86_64.json for lavapipe). The last
line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
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
    [helper.make_node("ArgMax", ["X"], ["Y"], axis=0, keepdims=1)], "argmax",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [3, 3])],
    [helper.make_tensor_value_info("Y", TensorProto.INT64, [1, 3])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model, full_check=True)
info = onnx_importer.ModelInfo(onnx.shape_inference.infer_shapes(model))
module = info.create_module(context=ir.Context()).operation
onnx_importer.NodeImporter.define_function(info.main_graph, module).import_all()
try:
    device = runtime.get_driver("vulkan").query_available_devices()[0]["name"]
    config = runtime.Config("vulkan")
except Exception as error:  # no Vulkan loader or driver here
    print(f"CANNOT RUN: no Vulkan device ({type(error).__name__}: {error})")
    sys.exit(2)
print(f"Vulkan device: {device}")
flatbuffer = compiler.compile_str(str(module), target_backends=["vulkan-spirv"])
context = runtime.SystemContext(config=config)
context.add_vm_module(runtime.VmModule.copy_buffer(context.instance, flatbuffer))
x = np.array([[1, 2, 3], [3, 0, 4], [2, 5, 2]], np.float32)
staged = runtime.asdevicearray(config.device, x)
view = context.modules.module.argmax(staged)._buffer_view
# Read back through a host buffer of our own: to_host() imports numpy memory into Vulkan,
# which the CPU drivers refuse (minImportedHostPointerAlignment 4096).
host = config.device.allocator.allocate_buffer(
    memory_type=int(runtime.MemoryType.HOST_LOCAL | runtime.MemoryType.DEVICE_VISIBLE),
    allowed_usage=int(runtime.BufferUsage.TRANSFER_TARGET | runtime.BufferUsage.MAPPING_SCOPED),
    allocation_size=view.get_buffer().byte_length())
done = config.device.create_semaphore(0)
config.device.queue_copy(view.get_buffer(), host, wait_semaphores=runtime.HalFence.create_at(done, 0),
                         signal_semaphores=runtime.HalFence.create_at(done, 1))
runtime.HalFence.create_at(done, 1).wait()
y = host.map().asarray(tuple(view.shape), np.dtype(np.int64)).copy()
print(f"input X {x.tolist()} float32, ArgMax-13, axis 0, keepdims 1")
print("ONNX defines: [[1, 2, 1]] (the row of each column's maximum)")
print(f"IREE gives:   {y.tolist()}")
print("REPRODUCED" if y.tolist() != [[1, 2, 1]] else "NOT REPRODUCED")
sys.exit(0 if y.tolist() != [[1, 2, 1]] else 1)
