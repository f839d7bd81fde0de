"""AM-OV2: OpenVINO CPU, ONNX ArgMax/ArgMin on float64 compare the values in float32.

OpenVINO's ONNX frontend lowers ArgMax/ArgMin to TopK-11 with k = 1, and the CPU plugin computes
float64 TopK in float32: the two largest finite float64 values both become inf and tie, float64
subnormals become 0 and tie, so the first of them is chosen. Standalone: openvino, onnx (only to
build the model), numpy.

ONNX ArgMax-13 / ArgMin-13: "Computes the indices of the max elements of the input tensor's element
along the provided axis"; T includes tensor(double); "the index of the first occurrence is selected"
when select_last_index is 0 (the index of the last occurrence when it is 1).
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


INPUTS = [  # op, input, select_last_index, the documents' answer
    ("ArgMax", np.array([1.7976931348623155e308, 1.7976931348623157e308], np.float64), 0, 1),
    ("ArgMin", np.array([0.0, 5e-324, -5e-324], np.float64), 0, 2),
    ("ArgMax", np.array([0.0, 5e-324, -5e-324, 5e-324], np.float64), 0, 1),
    ("ArgMin", np.array([0.0, 5e-324, -5e-324, 5e-324], np.float64), 1, 2),
]
wrong = 0
for op, x, last, want in INPUTS:
    got = arg(op, x, last)
    wrong += got != want
    print(f"{op} float64 {[repr(float(v)) for v in x]} axis 0 select_last_index={last}: OpenVINO {got}, "
          f"documents {want}{'  <- wrong' if got != want else ''}")
# The fuzzer's minimal input: ArgMin over axis 0 of [[0, 0, inf, 0], [0, 0, 1.7976931348623157e308, 0]].
x = np.array([[0.0, 0.0, np.inf, 0.0], [0.0, 0.0, 1.7976931348623157e308, 0.0]], np.float64)
got, want = arg("ArgMin", x), [0, 0, 1, 0]
wrong += got != want
print(f"ArgMin float64 {x.tolist()} axis 0: OpenVINO {got}, documents {want}{'  <- wrong' if got != want else ''}")
if wrong:
    print("REPRODUCED")
    sys.exit(0)
print("NOT REPRODUCED")
sys.exit(1)
