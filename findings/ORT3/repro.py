"""ONNX Runtime's CPU execution provider puts NaN in the middle of TopK's output, neither above nor
below every number. ONNX says nothing about where NaN goes; ranking NaN above every number (as the
ONNX reference implementation and OpenVINO do on [NaN, 0, 0]) or below every number (as DirectML
does) each gives one consistent answer, and this one fits neither. Needs onnxruntime, onnx (only to
build the model) and numpy. Prints the versions, then per input ONNX Runtime's answer and the
answers of both placements. The last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or
CANNOT RUN: why (exit 2)."""
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
unexplained = 0
for data in ([np.nan, 0.0, 0.0], [0.0, 0.0, 0.0, np.nan]):
    x, k = np.array(data, np.float32), len(data)  # K = every element
    graph = helper.make_graph([helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=0, largest=1, sorted=1)], "topk",
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT, [k])],
                              [helper.make_tensor_value_info("V", TensorProto.FLOAT, None),
                               helper.make_tensor_value_info("I", TensorProto.INT64, None)],
                              [helper.make_tensor("K", TensorProto.INT64, [1], [k])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], ir_version=6)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    values, indices = session.run(None, {"X": x})
    # numbers largest first, equal values by index (ONNX's tie rule); NaN all before or all after them
    numbers = sorted((i for i in range(k) if not np.isnan(x[i])), key=lambda i: (-x[i], i))
    nans = [i for i in range(k) if np.isnan(x[i])]
    print(f"TopK-11 float32 {x.tolist()}, K = {k}, largest\n  ONNX Runtime: values {values.tolist()}, "
          f"indices {indices.tolist()}\n  NaN above every number: values {x[nans + numbers].tolist()}, indices "
          f"{nans + numbers}\n  NaN below every number: values {x[numbers + nans].tolist()}, indices {numbers + nans}")
    unexplained += indices.tolist() not in (nans + numbers, numbers + nans)
print("REPRODUCED" if unexplained else "NOT REPRODUCED")
sys.exit(0 if unexplained else 1)
