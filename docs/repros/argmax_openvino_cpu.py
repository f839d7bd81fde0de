"""ONNX ArgMax/ArgMin through OpenVINO's ONNX frontend and CPU plugin, without the suite (openvino,
onnx, numpy, ml_dtypes). openvino 2026.4.1. The frontend lowers ArgMax/ArgMin to TopK-11 k=1
(stable=true; select_last_index: Reverse, TopK, n-1-index). Each line prints OpenVINO's index
beside the one the ONNX documents require (opset 13: the first extreme, the last with
select_last_index; for NaN, which ONNX leaves open, the indices some consistent placement allows)."""
import ml_dtypes
import numpy as np
import openvino as ov
import openvino.opset11 as op
from onnx import TensorProto, helper

core = ov.Core()
ONNX = {"float32": TensorProto.FLOAT, "float64": TensorProto.DOUBLE, "int64": TensorProto.INT64,
        "uint32": TensorProto.UINT32, "uint64": TensorProto.UINT64, "bfloat16": TensorProto.BFLOAT16}


def arg(name, x, last=0, axis=0):
    node = helper.make_node(name, ["X"], ["I"], axis=axis, keepdims=0, select_last_index=last)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", ONNX[x.dtype.name], list(x.shape))],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    feed = ov.Tensor(x.view(np.uint16), list(x.shape), ov.Type.bf16) if x.dtype.name == "bfloat16" else x
    return core.compile_model(core.read_model(model.SerializeToString()), "CPU")([feed])[0].tolist()


def show(name, x, last, want, note=""):
    print(f"{name:6s} {x.dtype.name:8s} {x.tolist()!s:48s} last={last}: OpenVINO {arg(name, x, last)}, "
          f"documents {want} {note}")


# int64, uint32, uint64 computed in i32 (TopK finding 3 through the lowering).
show("ArgMax", np.array([2147483647, 2147483648, 2147483647], np.int64), 0, 1)
show("ArgMax", np.array([2**32 - 1, 2**32 - 2, 0, 1, 0], np.uint32), 0, 0)
show("ArgMin", np.array([2**64 - 1, 2**64 - 2, 0, 1, 0], np.uint64), 0, 2)
# float64 computed in float32 (TopK finding 4): the two largest finite values, two subnormals tie.
show("ArgMax", np.array([1.7976931348623155e308, 1.7976931348623157e308], np.float64), 0, 1)
show("ArgMin", np.array([0.0, 5e-324, -5e-324], np.float64), 0, 2)
# bfloat16 subnormals: on AVX512_BF16 CPUs the last of equal subnormals (new; stable=false is right).
b = np.array([0x0000, 0x0001, 0x8001, 0x0001], np.uint16).view(ml_dtypes.bfloat16)
show("ArgMax", b, 0, 1, "(bits 0x0000 0x0001 0x8001 0x0001)")
show("ArgMax", b, 1, 3)
# NaN and ArgMin: a NaN replaces the running minimum and the next number replaces the NaN.
n = np.nan
show("ArgMin", np.array([n, n, n], np.float32), 0, 0, "(all NaN tie)")
show("ArgMin", np.array([n, n, n], np.float32), 1, 2, "(all NaN tie)")
show("ArgMin", np.array([2, n, 2, 1], np.float32), 1, "3 (NaN high) or 1 (NaN low)", "")
# The same in native TopK-11 mode=min k=1 stable=true (no ONNX involved): [1, 2, NaN, 2] -> index 3, a 2.
d = op.parameter([4], ov.Type.f32)
t = op.topk(d, op.constant(np.int64(1)), axis=0, mode="min", sort="value", index_element_type="i64", stable=True)
print("native TopK-11 min k=1 of [1, 2, nan, 2]:", core.compile_model(ov.Model([t.output(1)], [d]), "CPU")(
    [np.array([1, 2, n, 2], np.float32)])[0].tolist(), "documents: [0] (NaN high) or [2] (NaN low)")
# An empty reduced axis: k=1 > 0, uninitialized memory comes back (TopK finding 9) where ArgMax-11 says
# the input "must not be empty" (ONNX Runtime and the reference evaluator raise).
print("ArgMax float32 [2, 0] axis 1:", arg("ArgMax", np.zeros((2, 0), np.float32), 0, axis=1), "documents: an error")
# NaN row by row (found by the fuzzer): ArgMax lets NaN win only where it comes first, ArgMin where the
# min scan ends on it, so two rows of one tensor, [0, NaN] and [NaN, 0], are answered under opposite
# placements: ArgMax gives [0, 0] (NaN below, then above), ArgMin [1, 1] (NaN below, then above).
rows = np.array([[0, n], [n, 0]], np.float32)
for name in ("ArgMax", "ArgMin"):
    print(f"{name} float32 [[0, NaN], [NaN, 0]] axis 1:", arg(name, rows, 0, axis=1),
          "documents: [1, 0] (NaN high) or [0, 1] (NaN low)" if name == "ArgMax" else
          "documents: [0, 1] (NaN high) or [1, 0] (NaN low)")
