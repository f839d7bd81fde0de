"""ONNX Runtime's CPU provider and the ONNX reference evaluator on the edge cases of issue 11,
without the suite (onnx, onnxruntime, numpy, ml_dtypes). onnx 1.23.2, onnxruntime 1.31.1."""
import ml_dtypes
import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

TYPES = {np.float16: TensorProto.FLOAT16, np.float32: TensorProto.FLOAT, ml_dtypes.bfloat16: TensorProto.BFLOAT16}


def model(x, k, largest=1, opset=11):
    node = helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=-1, largest=largest)
    elem = TYPES[x.dtype.type]
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("X", elem, list(x.shape))],
        [helper.make_tensor_value_info("V", elem, None), helper.make_tensor_value_info("I", TensorProto.INT64, None)],
        [helper.make_tensor("K", TensorProto.INT64, [1], [k])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = helper.find_min_ir_version_for(list(m.opset_import))
    return m


def ort_topk(x, k, largest=1):
    session = ort.InferenceSession(model(x, k, largest).SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"X": x})


def bits(values):
    return [f"0x{int(b):04x}" for b in np.ascontiguousarray(values).view(np.uint16).ravel()]


# ONNX Runtime, float16: every NaN comes back as the default NaN of its sign (payload 0x7e01 ->
# 0x7e00, signalling 0x7c01 -> 0x7e00, 0xfe01 -> 0xfe00): the values are no longer the input's
# elements. float32 and float64 keep every NaN's bits.
for pattern in (0x7E01, 0x7C01, 0xFE01):
    x = np.array([pattern, 0x3C00], np.uint16).view(np.float16)  # the NaN, 1.0
    values, indices = ort_topk(x, 1)
    print(f"ORT float16 [0x{pattern:04x}, 1.0] K=1:", bits(values), indices.tolist())

# ONNX Runtime: NaN lands in the middle of the output (neither above nor below every number).
x = np.array([0.0, 0.0, 0.0, np.nan], np.float32)
print("ORT float32", x.tolist(), "K=4:", [v.tolist() for v in ort_topk(x, 4)])  # NaN first or last, ties by index

# The reference evaluator, bfloat16 (TopK-24): with NaN in the row, K=1 largest returns -inf,
# which is the largest under no placement of NaN (NaN high: NaN; NaN low: +inf).
x = np.array([-np.inf, np.nan, np.inf], ml_dtypes.bfloat16)
values, indices = ReferenceEvaluator(model(x, 1, opset=24)).run(None, {"X": x})
print("reference bfloat16", x.tolist(), "K=1 largest:", values.tolist(), indices.tolist())  # want nan [1] or inf [2]
print("reference float32 on the same row:", [v.tolist() for v in ReferenceEvaluator(model(x.astype(np.float32), 1))
                                            .run(None, {"X": x.astype(np.float32)})])

# The reference evaluator: K > n on an empty input (shape [0, 1], K = 2 on the axis of length 1)
# returns empty outputs instead of an error.
x = np.zeros((0, 1), np.float32)
print("reference float32 [0, 1], K=2:", [v.shape for v in ReferenceEvaluator(model(x, 2)).run(None, {"X": x})])
