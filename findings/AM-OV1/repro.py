"""AM-OV1: OpenVINO CPU, ONNX ArgMax/ArgMin on int64, uint32 and uint64 compare the values in 32 bits.

OpenVINO's ONNX frontend lowers ArgMax/ArgMin to TopK-11 with k = 1, and the CPU plugin computes
TopK on int64, uint32 and uint64 in i32 (the low 32 bits): 2147483648 becomes -2**31, 2**32-1 and
2**64-1 become -1. Standalone: openvino, onnx (only to build the model), numpy.

ONNX ArgMax-13 / ArgMin-13: "Computes the indices of the max elements of the input tensor's element
along the provided axis"; T includes tensor(int64), tensor(uint32), tensor(uint64); "the index of the
first occurrence is selected" when select_last_index is 0.
"""
import os
import platform
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
    return f"{name}; isa flags: {' '.join(flags) or 'unknown'}"


try:
    import numpy as np
    import onnx
    import openvino as ov
    from onnx import TensorProto, helper
except ImportError as error:
    print(f"CANNOT RUN: {error}")
    sys.exit(2)

print("openvino", getattr(ov, "__version__", None) or ov.get_version(), "| onnx", onnx.__version__,
      "| numpy", np.__version__)
print("python", sys.version.split()[0], "|", platform.platform(), "|", cpu_line())

ONNX = {"int64": TensorProto.INT64, "uint32": TensorProto.UINT32, "uint64": TensorProto.UINT64}
core = ov.Core()


def arg(op, x, last=0):
    """ONNX op (opset 13, ir_version 7) over axis 0 of x, keepdims=0, on OpenVINO's CPU plugin."""
    node = helper.make_node(op, ["X"], ["I"], axis=0, keepdims=0, select_last_index=last)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", ONNX[x.dtype.name], list(x.shape))],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.onnx")
        with open(path, "wb") as f:
            f.write(model.SerializeToString())
        try:
            compiled = core.compile_model(core.read_model(path), "CPU")
        except Exception as error:  # this release cannot load the model (type or op unknown)
            print(f"CANNOT RUN: OpenVINO cannot load ONNX {op}-13 on {x.dtype.name}: {str(error).splitlines()[0][:200]}")
            sys.exit(2)
    request = compiled.create_infer_request()
    request.infer([x])
    return int(np.asarray(request.get_output_tensor(0).data).reshape(-1)[0])


INPUTS = [  # op, input, the documents' answer
    ("ArgMax", np.array([2147483647, 2147483648, 2147483647], np.int64), 1),
    ("ArgMin", np.array([2147483648, 2147483647, 2147483648], np.int64), 1),
    ("ArgMax", np.array([2**32 - 1, 2**32 - 2, 0, 1, 0], np.uint32), 0),
    ("ArgMin", np.array([2**64 - 1, 2**64 - 2, 0, 1, 0], np.uint64), 2),
]
wrong = 0
for op, x, want in INPUTS:
    got = arg(op, x)
    wrong += got != want
    print(f"{op} {x.dtype.name} {x.tolist()} axis 0: OpenVINO {got}, documents {want}"
          f"{'  <- wrong' if got != want else ''}")
if wrong:
    print("REPRODUCED")
    sys.exit(0)
print("NOT REPRODUCED")
sys.exit(1)
