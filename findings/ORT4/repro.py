"""ONNX Runtime's CPU execution provider returns a float16 NaN from TopK as the default NaN of its
sign (payload 0x7e01 and signalling 0x7c01 become 0x7e00, 0xfe01 becomes 0xfe00), so the values
output no longer holds the input's elements. Needs onnxruntime, onnx (only to build the model) and
numpy. Prints the versions, then per input its bits, the expected answer and ONNX Runtime's.
The last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
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
graph = helper.make_graph([helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=0, largest=1, sorted=1)], "topk",
                          [helper.make_tensor_value_info("X", TensorProto.FLOAT16, [1])],
                          [helper.make_tensor_value_info("V", TensorProto.FLOAT16, None),
                           helper.make_tensor_value_info("I", TensorProto.INT64, None)],
                          [helper.make_tensor("K", TensorProto.INT64, [1], [1])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], ir_version=6)
try:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
except Exception as error:
    print(f"CANNOT RUN: this release does not load a float16 TopK-11 model: {str(error).strip()[:300]}")
    sys.exit(2)
changed = 0
for bits in (0x7E01, 0x7C01, 0xFE01):
    values, indices = session.run(None, {"X": np.array([bits], np.uint16).view(np.float16)})
    got = int(np.ascontiguousarray(values).view(np.uint16)[0])
    print(f"TopK-11 float16 [bits 0x{bits:04x}], K = 1\n  expected: values [bits 0x{bits:04x}] (the top element "
          f"itself), indices [0]\n  ONNX Runtime: values [bits 0x{got:04x}], indices {indices.tolist()}")
    changed += got != bits
print("REPRODUCED" if changed else "NOT REPRODUCED")
sys.exit(0 if changed else 1)
