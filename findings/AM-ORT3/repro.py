"""AM-ORT3: with select_last_index = 1, ONNX Runtime's CPU provider gives index 0 for an all-NaN row
of ArgMax/ArgMin, where the tie rule wants the last index: NaN never wins a comparison, so the first
element stays. Standalone: onnxruntime, onnx (only to build the models), numpy."""
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

ELEM = {"float16": TensorProto.FLOAT16, "float32": TensorProto.FLOAT, "float64": TensorProto.DOUBLE}
wrong = 0
for op in ("ArgMax", "ArgMin"):
    for opset in (12, 13):
        for name, elem in ELEM.items():
            for data, nan_row in (([1.0, 1.0, 1.0], False), ([np.nan, np.nan, np.nan], True)):
                x = np.array(data, name)
                try:
                    got = session(arg_model(op, elem, [3], opset, keepdims=0, last=1)).run(None, {"X": x})[0].tolist()
                except Exception as error:
                    got = f"(this release cannot load the model: {first_line(error)})"
                print(f"{op}-{opset} {name} {x.tolist()} select_last_index=1: {got}; documents: 2"
                      + ("" if nan_row else " (control, no NaN)"))
                wrong += nan_row and got == 0
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
