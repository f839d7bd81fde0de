"""ONNX ArgMax/ArgMin on ONNX Runtime's CPU provider and the ONNX reference evaluator, without the
suite (onnx, onnxruntime, numpy, ml_dtypes). onnx 1.23.2, onnxruntime 1.31.1. Each line prints what
each returns beside what the ONNX documents require (opset 13: the first extreme, the last with
select_last_index; NaN is left open: the indices some consistent placement allows)."""
import ml_dtypes
import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

ort.set_default_logger_severity(3)  # no warnings between the lines

ONNX = {"float16": TensorProto.FLOAT16, "float32": TensorProto.FLOAT, "int16": TensorProto.INT16,
        "int32": TensorProto.INT32, "uint16": TensorProto.UINT16, "uint32": TensorProto.UINT32,
        "uint64": TensorProto.UINT64, "bfloat16": TensorProto.BFLOAT16}


def model(name, x, last=0, opset=13, axis=0):
    attrs = {"select_last_index": last} if opset >= 12 else {}
    node = helper.make_node(name, ["X"], ["I"], axis=axis, keepdims=0, **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", ONNX[x.dtype.name], list(x.shape))],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def run_ort(m, x):
    try:
        session = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        return session.run(None, {"X": x})[0].tolist()
    except Exception as error:
        return f"{type(error).__name__}: {str(error).splitlines()[0][:110]}"


def run_ref(m, x):
    try:
        return ReferenceEvaluator(m).run(None, {"X": x})[0].tolist()
    except Exception as error:
        return f"{type(error).__name__}: {error}"


def show(name, x, last, want, opset=13, axis=0):
    m = model(name, x, last, opset, axis)
    print(f"{name}-{opset} {x.dtype.name} {x.tolist()} last={last}: ORT {run_ort(m, x)}; "
          f"reference {run_ref(m, x)}; documents {want}")


# ORT: no CPU kernel for int16, uint16, uint32, uint64, bfloat16 (the schema lists them all).
for dtype in (np.int16, np.uint16, np.uint32, np.uint64, ml_dtypes.bfloat16):
    show("ArgMax", np.array([1, 3, 2], dtype), 0, 1)
# ORT: float16 at opset 1 is an invalid model (an inserted Cast), as for TopK.
show("ArgMax", np.array([1, 3, 2], np.float16), 0, 1, opset=1)
# ORT with select_last_index: NaN never wins, so an all-NaN row gives 0 where the tie rule wants the last.
n = np.nan
show("ArgMax", np.array([n, n, n], np.float32), 1, 2)
show("ArgMin", np.array([n, n, n], np.float32), 1, 2)
# NaN placement: the first NaN wins both operators (ORT without select_last_index, the reference
# evaluator always, as np.argmax/np.argmin): for ArgMin that is NaN below every number.
show("ArgMin", np.array([2, n, 2, 1], np.float32), 0, "3 (NaN high) or 1 (NaN low); DirectML's answer 3")
show("ArgMax", np.array([2, n, 2, 1], np.float32), 1, "1 (NaN high) or 2 (NaN low); DirectML's answer 1")
# An empty reduced axis: ORT raises with an empty message, the reference evaluator numpy's ValueError
# (ArgMax-11: "must not be empty"; 1, 12 and 13 say nothing).
show("ArgMax", np.zeros((2, 0), np.float32), 0, "an error (opset 11), unspecified (13)", axis=1)
# NaN by rank (found by the fuzzer): a rank-1 input gives the first NaN, as above; from rank 2, even a
# single row, NaN never wins unless it comes first. Two rows of one tensor, [0, NaN] and [NaN, 0], then
# give [0, 0] for either operator: NaN below in one row and above in the other, under no one placement.
show("ArgMax", np.array([0, n], np.float32), 0, "[1] (NaN high) or [0] (NaN low)")
show("ArgMax", np.array([[0, n]], np.float32), 0, "[1] (NaN high) or [0] (NaN low)", axis=1)
show("ArgMax", np.array([[0, n], [n, 0]], np.float32), 0, "[1, 0] (NaN high) or [0, 1] (NaN low)", axis=1)
show("ArgMin", np.array([[0, n], [n, 0]], np.float32), 0, "[0, 1] (NaN high) or [1, 0] (NaN low)", axis=1)


def shape_ort(name, x, axis):
    try:
        session = ort.InferenceSession(model(name, x, 0, 13, axis).SerializeToString(),
                                       providers=["CPUExecutionProvider"])
        return f"shape {list(session.run(None, {'X': x})[0].shape)}"
    except Exception as error:
        return f"{type(error).__name__}: {str(error).splitlines()[0][:80]}"


# A negative axis over an input with a zero-sized dimension (found by the fuzzer): ORT returns an output
# of the input's own shape, not reduced, where the same axis counted from the front raises (keepdims=0).
for shape, axes, want in (((0,), (0, -1), "[] or an error"), ((2, 0), (1, -1), "[2] or an error"),
                          ((0, 3), (1, -1), "[0]")):
    x = np.zeros(shape, np.int32)
    print(f"ArgMax-13 int32 of shape {list(shape)}:",
          "; ".join(f"axis {axis}: {shape_ort('ArgMax', x, axis)}" for axis in axes), f"(documents: {want})")
