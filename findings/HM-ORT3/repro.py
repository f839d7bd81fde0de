"""HM-ORT3: a float16 Hardmax-1 model is rejected as invalid by ONNX Runtime's CPU provider: to run
float16 on its float kernel it inserts a Cast node (InsertedPrecisionFreeCast_X) whose 'to'
attribute is an INT, where the opset-1 Cast wants a STRING. Hardmax-11 and -13 run.
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
    return str(error).strip().splitlines()[0][:400] if str(error).strip() else type(error).__name__


def model(opset):
    node = helper.make_node("Hardmax", ["X"], ["Y"], axis=1)
    graph = helper.make_graph([node], "hardmax", [helper.make_tensor_value_info("X", TensorProto.FLOAT16, [1, 3])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT16, [1, 3])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=IR[opset])


x = np.array([[1, 3, 2]], np.float16)
reproduced = False
for opset in (1, 11):
    try:
        s = ort.InferenceSession(model(opset).SerializeToString(), providers=["CPUExecutionProvider"])
        (y,) = s.run(None, {"X": x})
        got = str(y.tolist())
    except Exception as error:
        got = first_line(error)
        if opset == 1:
            reproduced = "InsertedPrecisionFreeCast" in str(error) or "Mismatched attribute type" in str(error)
    print(f"Hardmax-{opset} float16 {x.tolist()} axis=1: {got}" + ("  (for contrast)" if opset != 1 else ""))
    print(f"  documents: [[0.0, 1.0, 0.0]] (ONNX Hardmax-{opset}: T is tensor(float16), tensor(float), tensor(double))")

print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
