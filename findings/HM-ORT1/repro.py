"""ONNX Runtime's CPU execution provider gives a Hardmax row that starts with NaN, or is all NaN, no 1
at all. Its kernel takes the row's maximum (NaN when the row starts with NaN) and sets a 1 where an
element == that maximum, which no element is. ONNX says nothing about NaN, but ranking NaN above
every number or below every number each gives exactly one 1. float32 at every opset, and float16
(which runs on the float kernel behind inserted Casts). Needs onnxruntime, onnx (only to build the
model) and numpy. Prints the versions, then per row the input, ONNX Runtime's answer and the answer
of each placement. The last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why
(exit 2)."""
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
IR = {1: 3, 11: 6, 13: 7}  # the lowest IR version each opset allows, so that older releases load the model
no_one = ran = 0
for name, opset in (("float32", 13), ("float32", 11), ("float32", 1), ("float16", 13), ("float16", 11)):
    elem = TensorProto.FLOAT if name == "float32" else TensorProto.FLOAT16
    graph = helper.make_graph([helper.make_node("Hardmax", ["X"], ["Y"], axis=0)], "hardmax",
                              [helper.make_tensor_value_info("X", elem, [3])],
                              [helper.make_tensor_value_info("Y", elem, [3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=IR[opset])
    try:
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    except Exception as error:  # an older release without this opset
        print(f"Hardmax-{opset} {name}: {str(error).strip().splitlines()[0][:300]}")
        continue
    for data in ([np.nan, 1, 2], [np.nan, np.nan, np.nan], [1, np.nan, 2]):
        x = np.array(data, name)
        (y,), ran = session.run(None, {"X": x}), ran + 1
        # NaN as +inf (above every number) or -inf (below); the first maximum gets the 1, as Hardmax says
        above, below = (np.eye(3)[np.argmax(np.where(np.isnan(x), v, x))].tolist() for v in (np.inf, -np.inf))
        print(f"Hardmax-{opset} {name} {x.tolist()}, axis 0: ONNX Runtime {y.tolist()}; NaN above every number "
              f"gives {above}, below gives {below}")
        no_one += float(np.sum(y)) == 0.0
if not ran:
    print("CANNOT RUN: this release could build no session of the model")
    sys.exit(2)
print("REPRODUCED" if no_one else "NOT REPRODUCED")
sys.exit(0 if no_one else 1)
