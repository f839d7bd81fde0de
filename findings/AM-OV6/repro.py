"""AM-OV6: OpenVINO CPU, ONNX ArgMax/ArgMin over an empty axis return uninitialized memory.

OpenVINO's ONNX frontend lowers ArgMax/ArgMin to TopK-11 with k = 1; over an axis of size 0 that k
is above the axis, and the CPU plugin returns indices it never wrote (uninitialized memory; -1 - that
with select_last_index): each is an index into an empty axis. ONNX Runtime and onnx's reference
evaluator raise an error on the same model. Each run is in a child process, in case one crashes.
Standalone: openvino, onnx (only to build the model), numpy.

ONNX ArgMax-11 / ArgMin-11: "The input tensor must not be empty." ArgMax-1, -12 and -13 say nothing on
an empty input; no version allows an index outside the axis. The documents' answer: an error.
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
op, opset, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
attrs = {"axis": 1, "keepdims": 0}
if opset >= 12:
    attrs["select_last_index"] = last
node = helper.make_node(op, ["X"], ["I"], **attrs)
graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 0])],
                          [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version={11: 6, 13: 7}[opset])
core = ov.Core()
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "model.onnx")
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    try:
        compiled = core.compile_model(core.read_model(path), "CPU")
        request = compiled.create_infer_request()
        request.infer([np.zeros((2, 0), np.float32)])
    except Exception as error:
        print("ERROR", type(error).__name__, str(error).splitlines()[0][:160])
        sys.exit(0)
print("OUTPUT", np.array(request.get_output_tensor(0).data, copy=True).tolist())
"""

wrong = 0
for op in ("ArgMax", "ArgMin"):
    for opset, last in ((11, 0), (13, 0), (13, 1)):
        run = subprocess.run([sys.executable, "-c", CHILD, op, str(opset), str(last)],
                             capture_output=True, text=True, timeout=50)
        out = run.stdout.strip().splitlines()
        if run.returncode != 0 or not out:
            got = f"the child process died (status {run.returncode}) {run.stderr.strip()[-160:]}"
        else:
            got = out[-1]
        wrong += got.startswith("OUTPUT")
        print(f"{op}-{opset} float32 of shape [2, 0] over axis 1{' select_last_index=1' if last else ''}: OpenVINO "
              f"{got.replace('OUTPUT ', 'indices ')}; documents: an error (no index exists in an empty axis)"
              f"{'  <- wrong' if got.startswith('OUTPUT') else ''}")
if wrong:
    print("REPRODUCED")
    sys.exit(0)
print("NOT REPRODUCED")
sys.exit(1)
