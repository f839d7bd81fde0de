"""OpenVINO's CPU plugin, on CPUs with AVX512_BF16, answers ONNX ArgMax on bfloat16 with the last of equal
subnormal maxima instead of the first (and the first with select_last_index=1). The ONNX frontend lowers ArgMax to
TopK-11 with k = 1 and stable=true (for select_last_index: Reverse, TopK, n - 1 - index); on such CPUs the CPU
plugin's stable TopK picks the last of equal bfloat16 subnormals. ONNX ArgMax-13 (T includes bfloat16) selects
the first occurrence of the max, or the last when select_last_index is 1. With oneDNN capped below AVX512_BF16
(ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI, shown in a child process) the answer is right. Needs openvino, onnx (to
build the model) and numpy, and a CPU with AVX512_BF16. Prints the versions, the CPU and whether it has AVX512_BF16,
then per input the documents' answer and OpenVINO's; the last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1)
or CANNOT RUN: why (exit 2)."""
import os
import platform
import subprocess
import sys

try:
    import numpy as np
    import onnx
    import openvino as ov
except ImportError as error:
    print(f"CANNOT RUN: {error}")
    sys.exit(2)

bits = np.array([0x0000, 0x0001, 0x8001, 0x0001], np.uint16)  # 0, 9.2e-41 (a subnormal), -9.2e-41, 9.2e-41
ops = [onnx.helper.make_node("ArgMax", ["X"], [f"I{i}"], axis=0, keepdims=0, select_last_index=i) for i in (0, 1)]
graph = onnx.helper.make_graph(ops, "g", [onnx.helper.make_tensor_value_info("X", onnx.TensorProto.BFLOAT16, [4])], [
    onnx.helper.make_tensor_value_info(f"I{i}", onnx.TensorProto.INT64, []) for i in (0, 1)])
model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 13)], ir_version=7)
try:
    compiled = ov.Core().compile_model(ov.Core().read_model(model.SerializeToString()), "CPU")
except Exception as error:  # this release cannot load the model
    print(f"CANNOT RUN: OpenVINO cannot load ONNX ArgMax-13 on bfloat16: {str(error).splitlines()[0][:200]}")
    sys.exit(2)
answers = [int(np.asarray(v).reshape(-1)[0]) for v in compiled([ov.Tensor(bits, [4], ov.Type.bf16)]).values()]
if sys.argv[1:] == ["capped"]:  # the child process: oneDNN capped below AVX512_BF16
    print(*answers)
    sys.exit(0)
cpu = open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else ""  # noqa: SIM115
cpu_name = next((line.split(":", 1)[1].strip() for line in cpu.splitlines() if line.startswith("model name")), "")
print(f"openvino {ov.__version__}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}; "
      f"CPU {cpu_name}, AVX512_BF16: {'yes' if ' avx512_bf16' in cpu else 'no'}")
capped = subprocess.run([sys.executable, __file__, "capped"], capture_output=True, text=True,
                        env=dict(os.environ, ONEDNN_MAX_CPU_ISA="AVX512_CORE_VNNI")).stdout.split()
for last, want, got, got_capped in zip((0, 1), (1, 3), answers, capped):
    print(f"ArgMax-13 bfloat16 bits {' '.join(f'0x{b:04x}' for b in bits)}, axis 0, select_last_index={last}: "
          f"documents {want}; OpenVINO {got}{'  <- wrong' * (got != want)} (oneDNN capped: {got_capped})")
if answers == [1, 3] and cpu and " avx512_bf16" not in cpu:
    print("CANNOT RUN: this CPU has no AVX512_BF16, the condition under which OpenVINO shows it")
    sys.exit(2)
print("REPRODUCED" if answers != [1, 3] else "NOT REPRODUCED")
sys.exit(0 if answers != [1, 3] else 1)
