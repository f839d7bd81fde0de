"""ONNX Runtime's CPU execution provider gives index 0 for an all-NaN row of ArgMax or ArgMin with
select_last_index = 1, where the tie rule selects the last occurrence (2 here, whichever way NaN is
ranked: every element ties). A row of equal numbers, [1, 1, 1], gives 2 as it should. Needs
onnxruntime, onnx (only to build the models) and numpy. Prints the versions, then per model the
input, the expected answer and ONNX Runtime's. The last line is REPRODUCED (exit 0), NOT
REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
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
ELEM = {"float16": TensorProto.FLOAT16, "float32": TensorProto.FLOAT, "float64": TensorProto.DOUBLE}
wrong = 0
for op in ("ArgMax", "ArgMin"):
    for opset in (12, 13):
        for name, elem in ELEM.items():
            node = helper.make_node(op, ["X"], ["I"], axis=0, keepdims=0, select_last_index=1)
            graph = helper.make_graph([node], "arg", [helper.make_tensor_value_info("X", elem, [3])],
                                      [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=7)
            session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
            for data in ([1.0, 1.0, 1.0], [np.nan, np.nan, np.nan]):
                got = session.run(None, {"X": np.array(data, name)})[0].tolist()
                print(f"{op}-{opset} {name} {data}, axis 0, select_last_index 1: expected 2, ONNX Runtime {got}")
                wrong += bool(np.isnan(data[0])) and got == 0
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
