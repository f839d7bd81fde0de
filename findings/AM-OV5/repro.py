"""AM-OV5: OpenVINO CPU, ONNX ArgMax/ArgMin with NaN: NaN wins only where it comes first (ArgMax) or
where the min scan ends on it (ArgMin), so two rows of one tensor are answered under opposite placements.

OpenVINO's ONNX frontend lowers ArgMax/ArgMin to TopK-11 k = 1. On each row alone the CPU plugin's
answer is one that a NaN placement explains (for ArgMax, NaN below every number, unless the NaN comes
first); but [0, NaN] and [NaN, 0] in one tensor get the answers of opposite placements, which no one
placement of NaN explains. Standalone: openvino, onnx (only to build the model), numpy.

No ONNX version of ArgMax/ArgMin says where NaN goes; ArgMax-13: "the index of the first occurrence is
selected" when select_last_index is 0. The answers below are those that one consistent placement
(every NaN above every number, or every NaN below) allows for the whole tensor.
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


n = np.nan
# input, axis, ArgMax answers (NaN high, NaN low), ArgMin answers (NaN high, NaN low)
INPUTS = [
    ([[0, n], [n, 0]], 1, ([1, 0], [0, 1]), ([0, 1], [1, 0])),
    # the fuzzer's minimal input (columns [0, 0], [0, 0], [0, NaN], [NaN, 0]) over axis 0
    ([[0, 0, 0, n], [0, 0, n, 0]], 0, ([0, 0, 1, 0], [0, 0, 0, 1]), ([0, 0, 0, 1], [0, 0, 1, 0])),
]
wrong = 0
for row, axis, want_max, want_min in INPUTS:
    x = np.array(row, np.float32)
    for op, (high, low) in (("ArgMax", want_max), ("ArgMin", want_min)):
        got = arg(op, x, axis=axis)
        bad = got not in (high, low)
        wrong += bad
        print(f"{op} float32 {x.tolist()} axis {axis}: OpenVINO {got}, documents {high} (NaN above every number) "
              f"or {low} (NaN below){'  <- no one placement' if bad else ''}")
# Each row alone (valid under one placement each; shown for comparison).
for row in ([0, n], [n, 0]):
    x = np.array(row, np.float32)
    print(f"  alone: ArgMax {x.tolist()}: OpenVINO {arg('ArgMax', x)}, ArgMin: OpenVINO {arg('ArgMin', x)}")
if wrong:
    print("REPRODUCED")
    sys.exit(0)
print("NOT REPRODUCED")
sys.exit(1)
