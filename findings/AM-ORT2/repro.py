"""AM-ORT2: float16 ArgMax-1 and ArgMin-1 models are rejected as invalid by ONNX Runtime's CPU
provider: it inserts a Cast node (InsertedPrecisionFreeCast_X) whose 'to' attribute has the wrong
type for opset 1. Standalone: onnxruntime, onnx (only to build the models), numpy."""
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

IR = {1: 3, 11: 6, 12: 7, 13: 7}  # the lowest IR version each opset allows


def arg_model(op, elem, shape, opset, axis=0, keepdims=None, last=None):
    attrs = {"axis": axis}
    if keepdims is not None:
        attrs["keepdims"] = keepdims
    if last is not None:
        attrs["select_last_index"] = last
    node = helper.make_node(op, ["X"], ["I"], **attrs)
    graph = helper.make_graph([node], "arg", [helper.make_tensor_value_info("X", elem, list(shape))],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=IR[opset])

x = np.array([1, 3, 2], np.float16)
reproduced = 0
for op, want in (("ArgMax", 1), ("ArgMin", 0)):
    try:
        got = session(arg_model(op, TensorProto.FLOAT16, [3], 1, keepdims=0)).run(None, {"X": x})[0].tolist()
    except Exception as error:
        got = first_line(error)
        reproduced += "InsertedPrecisionFreeCast" in str(error) or "Mismatched attribute type" in str(error)
    print(f"{op}-1 float16 {x.tolist()} axis 0 keepdims 0: {got}")
    print(f"  documents: {want} (ONNX {op}-1: T is every numeric type, float16 among them)")
print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
