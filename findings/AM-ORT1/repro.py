"""ONNX Runtime's CPU execution provider has no ArgMax or ArgMin kernel for int16, uint16, uint32 or
uint64 (opsets 1 and 13 shown) or bfloat16 (opset 13): the session is refused with NOT_IMPLEMENTED,
though ONNX ArgMax and ArgMin take every numeric type. Needs onnxruntime, onnx (only to build the
models) and numpy; bfloat16 is fed as float32 through a Cast (numpy has no bfloat16). Prints the
versions, then per model the input, the answer ONNX defines and ONNX Runtime's. The last line is
REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
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
IR = {1: 3, 13: 7}  # the lowest IR version each opset allows, so that older releases load the models
tests = [(name, opset) for name in ("int16", "uint16", "uint32", "uint64") for opset in (1, 13)] + [("bfloat16", 13)]
no_kernel = ran = 0
for name, opset in tests:
    for op, want in (("ArgMax", 1), ("ArgMin", 0)):
        cast = name == "bfloat16"
        nodes = [helper.make_node("Cast", ["X"], ["Xb"], to=TensorProto.BFLOAT16)] if cast else []
        nodes.append(helper.make_node(op, ["Xb" if cast else "X"], ["I"], axis=0, keepdims=0))
        graph = helper.make_graph(nodes, "arg", [helper.make_tensor_value_info(
            "X", TensorProto.FLOAT if cast else getattr(TensorProto, name.upper()), [3])],
            [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=IR[opset])
        try:
            session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
            got, ran = session.run(None, {"X": np.array([1, 3, 2], np.float32 if cast else name)})[0].tolist(), ran + 1
        except Exception as error:
            got = str(error).strip().splitlines()[0][:300]
            no_kernel += "NOT_IMPLEMENTED" in got and op in got
        print(f"{op}-{opset} {name} [1, 3, 2], axis 0, keepdims 0\n  ONNX defines: {want}\n  ONNX Runtime: {got}")
print("REPRODUCED" if no_kernel else "NOT REPRODUCED" if ran else "CANNOT RUN: this release loads none of the models")
sys.exit(0 if no_kernel else 1 if ran else 2)
