"""ORT2: a float16 TopK-1 model is rejected as invalid by ONNX Runtime's CPU provider: it inserts a
Cast node (InsertedPrecisionFreeCast_X) whose 'to' attribute has the wrong type for opset 1.
Standalone: onnxruntime, onnx (only to build the model), numpy."""
import platform
import sys


def cpu_name():
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper
except Exception as error:  # missing, or built against another numpy
    print(f"CANNOT RUN: {type(error).__name__}: {error}")
    sys.exit(2)

print(f"onnxruntime {ort.__version__}, onnx {onnx.__version__}, numpy {np.__version__}")
print(f"Python {platform.python_version()}; {platform.platform()}; CPU: {cpu_name()}")
ort.set_default_logger_severity(3)  # no warnings between the lines


def session(model):
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def first_line(error):
    return str(error).strip().splitlines()[0][:320] if str(error).strip() else type(error).__name__

# TopK-1 takes K as the attribute k; its type constraint T is float16, float, double.
node = helper.make_node("TopK", ["X"], ["V", "I"], axis=0, k=2)
graph = helper.make_graph([node], "topk", [helper.make_tensor_value_info("X", TensorProto.FLOAT16, [3])],
                          [helper.make_tensor_value_info("V", TensorProto.FLOAT16, None),
                           helper.make_tensor_value_info("I", TensorProto.INT64, None)])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 1)], ir_version=3)

x = np.array([1, 3, 2], np.float16)
reproduced = False
try:
    values, indices = session(model).run(None, {"X": x})
    got = f"values {values.tolist()}, indices {indices.tolist()}"
except Exception as error:
    got = first_line(error)
    reproduced = "InsertedPrecisionFreeCast" in str(error) or "Mismatched attribute type" in str(error)
print(f"TopK-1 float16 {x.tolist()} k=2: {got}")
print("  documents: values [3.0, 2.0], indices [1, 2] (ONNX TopK-1: T is tensor(float16), tensor(float),"
      " tensor(double))")
print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
