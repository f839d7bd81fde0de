"""HM-ORT2: ONNX Runtime's CPU provider has no float64 (double) and no bfloat16 Hardmax kernel:
the session is refused with NOT_IMPLEMENTED, though ONNX's Hardmax takes tensor(double) at every
version and tensor(bfloat16) from Hardmax-13.
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

IR = {1: 3, 11: 6, 13: 7}  # the lowest ir_version each opset allows


def first_line(error):
    return str(error).strip().splitlines()[0][:320] if str(error).strip() else type(error).__name__


def model(opset, elem_type):
    node = helper.make_node("Hardmax", ["X"], ["Y"], axis=0)
    graph = helper.make_graph([node], "hardmax", [helper.make_tensor_value_info("X", elem_type, [3])],
                              [helper.make_tensor_value_info("Y", elem_type, [3])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=IR[opset])


x = np.array([1, 3, 2], np.float64)
refused = 0
for type_name, elem_type, opset in (("float64", TensorProto.DOUBLE, 13), ("float64", TensorProto.DOUBLE, 11),
                                    ("float64", TensorProto.DOUBLE, 1), ("bfloat16", TensorProto.BFLOAT16, 13)):
    label = f"Hardmax-{opset} {type_name} [1, 3, 2] axis=0"
    try:
        s = ort.InferenceSession(model(opset, elem_type).SerializeToString(), providers=["CPUExecutionProvider"])
    except Exception as error:
        message = str(error)
        print(f"{label}: {first_line(error)}")
        if "NOT_IMPLEMENTED" in message or "Could not find an implementation" in message:
            refused += 1
    else:
        if type_name == "float64":
            (y,) = s.run(None, {"X": x})
            got = y.tolist()
        else:  # the session exists: a bfloat16 kernel was found (numpy has no bfloat16 to feed it)
            got = "session created (a bfloat16 kernel exists)"
        print(f"{label}: {got}")
    print(f"  documents: [0, 1, 0] (ONNX Hardmax-{opset}: T includes tensor({'double' if type_name == 'float64' else 'bfloat16'}))")

print("REPRODUCED" if refused else "NOT REPRODUCED")
sys.exit(0 if refused else 1)
