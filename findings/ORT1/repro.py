"""ONNX Runtime's CPU execution provider has no TopK kernel for uint16, uint32 or uint64 (TopK-11) or
bfloat16 (TopK-24): the session is refused with NOT_IMPLEMENTED, though ONNX TopK takes every numeric
type. Needs onnxruntime, onnx (only to build the models) and numpy. Each model casts a float32 input
to the type under test, so numpy needs no bfloat16. Prints the versions, then per type the input,
the answer ONNX defines and ONNX Runtime's. The last line is REPRODUCED (exit 0), NOT REPRODUCED
(exit 1) or CANNOT RUN: why (exit 2)."""
import platform
import sys

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper
except Exception as error:  # missing, or built against another numpy
    print(f"CANNOT RUN: {type(error).__name__}: {error}")
    sys.exit(2)

print(f"onnxruntime {ort.__version__}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
ort.set_default_logger_severity(3)  # no warnings between the lines
no_kernel = ran = 0
for name, opset in (("uint16", 11), ("uint32", 11), ("uint64", 11), ("bfloat16", 24)):
    elem = getattr(TensorProto, name.upper())
    nodes = [helper.make_node("Cast", ["X"], ["Xt"], to=elem),
             helper.make_node("TopK", ["Xt", "K"], ["Vt", "I"], axis=0, largest=1),
             helper.make_node("Cast", ["Vt"], ["V"], to=TensorProto.FLOAT)]
    graph = helper.make_graph(nodes, "topk", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [3])],
                              [helper.make_tensor_value_info("V", TensorProto.FLOAT, None),
                               helper.make_tensor_value_info("I", TensorProto.INT64, None)],
                              [helper.make_tensor("K", TensorProto.INT64, [1], [2])])
    # the lowest IR version each opset allows, so that older releases load the model
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version={11: 6, 24: 12}[opset])
    try:
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        values, indices = session.run(None, {"X": np.array([1, 3, 2], np.float32)})
        got, ran = f"values {values.tolist()}, indices {indices.tolist()}", ran + 1
    except Exception as error:
        got = str(error).strip().splitlines()[0][:300]
        no_kernel += "NOT_IMPLEMENTED" in got and "TopK" in got
    print(f"TopK-{opset} {name} [1, 3, 2], K = 2, largest\n  ONNX defines: values [3, 2], indices [1, 2]\n"
          f"  ONNX Runtime: {got}")
print("REPRODUCED" if no_kernel else "NOT REPRODUCED" if ran else "CANNOT RUN: this release loads none of the models")
sys.exit(0 if no_kernel else 1 if ran else 2)
