"""AM-OV3: OpenVINO CPU, ONNX ArgMax on bfloat16: of equal subnormals the last is chosen (AVX512_BF16 CPUs).

OpenVINO's ONNX frontend lowers ArgMax to TopK-11 k = 1 with stable=true (select_last_index: Reverse,
TopK, n - 1 - index). On CPUs with AVX512_BF16 the CPU plugin's TopK stable=true picks the last of
equal bfloat16 subnormals, so ArgMax gives the last occurrence of the maximum (the first with
select_last_index). With ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI, and on CPUs without AVX512_BF16, the
answer is right. Standalone: openvino, onnx (only to build the model), numpy.

ONNX ArgMax-13: "If select_last_index is True (default False), the index of the last occurrence of the
max is selected if the max appears more than once in the input. Otherwise the index of the first
occurrence is selected." T includes tensor(bfloat16).
"""
import os
import platform
import subprocess
import sys
import tempfile


def cpu_line():
    name, flags = platform.processor() or "unknown", []
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and name in ("unknown", "x86_64", ""):
                    name = line.split(":", 1)[1].strip()
                if line.startswith("flags"):
                    have = line.split(":", 1)[1].split()
                    flags = [f for f in ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_bf16") if f in have]
                    break
    except OSError:
        pass
    return name, flags


try:
    import numpy as np
    import onnx
    import openvino as ov
    from onnx import TensorProto, helper
except ImportError as error:
    print(f"CANNOT RUN: {error}")
    sys.exit(2)

CPU, FLAGS = cpu_line()
print("openvino", getattr(ov, "__version__", None) or ov.get_version(), "| onnx", onnx.__version__,
      "| numpy", np.__version__)
print("python", sys.version.split()[0], "|", platform.platform(), "|", CPU, "| isa flags:", " ".join(FLAGS) or "unknown")

ONNX = {"float16": TensorProto.FLOAT16, "float32": TensorProto.FLOAT, "float64": TensorProto.DOUBLE,
        "int32": TensorProto.INT32, "int64": TensorProto.INT64, "uint32": TensorProto.UINT32,
        "uint64": TensorProto.UINT64, "bfloat16": TensorProto.BFLOAT16}
core = ov.Core()


def compile_arg(op, dtype, shape, last=0, axis=0, opset=13):
    """ONNX ArgMax/ArgMin (keepdims=0) compiled by OpenVINO's CPU plugin; ir_version the lowest the opset allows."""
    attrs = {"axis": axis, "keepdims": 0}
    if opset >= 12:
        attrs["select_last_index"] = last
    node = helper.make_node(op, ["X"], ["I"], **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", ONNX[dtype], list(shape))],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    ir = {1: 3, 11: 6, 12: 7, 13: 7}[opset]
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.onnx")
        with open(path, "wb") as f:
            f.write(model.SerializeToString())
        try:
            return core.compile_model(core.read_model(path), "CPU")
        except Exception as error:  # this release cannot load the model (type or op unknown)
            print(f"CANNOT RUN: OpenVINO cannot load ONNX {op}-{opset} on {dtype}: {str(error).splitlines()[0][:200]}")
            sys.exit(2)


def arg(op, x, last=0, axis=0, opset=13):
    """The indices OpenVINO returns, as a list (an int for a 1-D input)."""
    compiled = compile_arg(op, x.dtype.name, x.shape, last, axis, opset)
    request = compiled.create_infer_request()
    request.infer([x])
    return np.array(request.get_output_tensor(0).data, copy=True).tolist()

CHILD = r"""
import os, sys, tempfile
import numpy as np, openvino as ov
from onnx import TensorProto, helper
last, bits = int(sys.argv[1]), [int(b, 16) for b in sys.argv[2:]]
node = helper.make_node("ArgMax", ["X"], ["I"], axis=0, keepdims=0, select_last_index=last)
graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", TensorProto.BFLOAT16, [len(bits)])],
                          [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)
core = ov.Core()
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "model.onnx")
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    try:
        compiled = core.compile_model(core.read_model(path), "CPU")
    except Exception as error:
        print("LOAD-ERROR", str(error).splitlines()[0][:200])
        sys.exit(3)
request = compiled.create_infer_request()
request.infer([ov.Tensor(np.array(bits, np.uint16), [len(bits)], ov.Type.bf16)])
print(int(np.asarray(request.get_output_tensor(0).data).reshape(-1)[0]))
"""


def argmax_bf16(bits, last, env=None):
    """ArgMax-13 of a bfloat16 row given by its bit patterns, in a child process (env: extra variables)."""
    run = subprocess.run([sys.executable, "-c", CHILD, str(last)] + [f"{b:04x}" for b in bits],
                         capture_output=True, text=True, timeout=50, env=dict(os.environ, **(env or {})))
    out = run.stdout.strip().splitlines()
    if run.returncode == 3:
        print(f"CANNOT RUN: OpenVINO cannot load ONNX ArgMax-13 on bfloat16: {out[-1][11:] if out else run.stderr[-200:]}")
        sys.exit(2)
    if run.returncode != 0 or not out:
        return f"child died (status {run.returncode}): {run.stderr.strip()[-200:]}"
    return int(out[-1])


BITS = [0x0000, 0x0001, 0x8001, 0x0001]  # 0.0, the smallest subnormal, its negative, the smallest subnormal
wrong = 0
for last, want in ((0, 1), (1, 3)):
    got = argmax_bf16(BITS, last)
    wrong += got != want
    print(f"ArgMax bfloat16 bits {' '.join(f'0x{b:04x}' for b in BITS)} (0, 9.2e-41, -9.2e-41, 9.2e-41) axis 0 "
          f"select_last_index={last}: OpenVINO {got}, documents {want}{'  <- wrong' if got != want else ''}")
# The same graph with oneDNN capped below AVX512_BF16 (what the CPU condition says: right there).
for last, want in ((0, 1), (1, 3)):
    print(f"  same, ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI, select_last_index={last}: OpenVINO "
          f"{argmax_bf16(BITS, last, {'ONEDNN_MAX_CPU_ISA': 'AVX512_CORE_VNNI'})}, documents {want}")
if wrong:
    print("REPRODUCED")
    sys.exit(0)
if FLAGS and "avx512_bf16" not in FLAGS:
    print("CANNOT RUN: this CPU has no AVX512_BF16, the condition under which OpenVINO shows it")
    sys.exit(2)
print("NOT REPRODUCED")
sys.exit(1)
