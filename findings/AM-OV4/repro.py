"""AM-OV4: OpenVINO CPU, ONNX ArgMin with NaN: a NaN replaces the running minimum, the next number the NaN.

OpenVINO's ONNX frontend lowers ArgMin to TopK-11 mode=min k = 1 (select_last_index: Reverse, TopK,
n - 1 - index). The CPU plugin's scan lets every NaN replace the running minimum and the next number
replace the NaN, so the answer is the minimum under no placement of NaN. Standalone: openvino, onnx
(only to build the model), numpy.

ONNX ArgMin-13: "If select_last_index is True (default False), the index of the last occurrence of the
min is selected if the min appears more than once in the input. Otherwise the index of the first
occurrence is selected." No ONNX version says where NaN goes: the answers below are the indices that
some consistent placement (every NaN above every number, or every NaN below) allows.
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
INPUTS = [  # input, select_last_index, the indices the documents allow, why
    ([n, n, n], 0, [0], "a tie of NaNs: the first"),
    ([n, n, n], 1, [2], "a tie of NaNs: the last"),
    ([2, n, 2, 1], 1, [3, 1], "3 with NaN above every number, 1 with NaN below"),
]
wrong = 0
for dtype in ("float32", "float64", "float16"):
    for row, last, allowed, why in INPUTS:
        x = np.array(row, dtype)
        got = arg("ArgMin", x, last)
        wrong += got not in allowed
        print(f"ArgMin {dtype} {x.tolist()} axis 0 select_last_index={last}: OpenVINO {got}, documents {' or '.join(map(str, allowed))} ({why})"
              f"{'  <- wrong' if got not in allowed else ''}")
# The CPU plugin's own TopK-11 (no ONNX involved) mode=min k=1 stable=true on [1, 2, NaN, 2]: index 3, a 2.
try:
    try:
        import openvino.opset11 as op
    except ImportError:
        import openvino.runtime.opset11 as op
    d = op.parameter([4], ov.Type.f32)
    t = op.topk(d, op.constant(np.int64(1)), axis=0, mode="min", sort="value", index_element_type="i64", stable=True)
    request = core.compile_model(ov.Model([t.output(1)], [d]), "CPU").create_infer_request()
    request.infer([np.array([1, 2, n, 2], np.float32)])
    print("native TopK-11 mode=min k=1 stable=true of [1, 2, nan, 2]:",
          np.array(request.get_output_tensor(0).data).tolist(), "documents [0] (NaN high) or [2] (NaN low)")
except Exception as error:
    print("native TopK-11 not run:", str(error).splitlines()[0][:120])
if wrong:
    print("REPRODUCED")
    sys.exit(0)
print("NOT REPRODUCED")
sys.exit(1)
