"""HM-ORT1: ONNX Runtime's CPU provider gives a Hardmax row that starts with NaN (and an all-NaN
row) no 1 at all: its kernel takes the row's maximum (NaN when the row starts with NaN) and sets a
1 where an element == that maximum, which no element is. float32 at every opset, and float16
(which runs on the float kernel behind inserted Casts).
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
TYPES = {"float32": (TensorProto.FLOAT, np.float32), "float16": (TensorProto.FLOAT16, np.float16)}


def first_line(error):
    return str(error).strip().splitlines()[0][:320] if str(error).strip() else type(error).__name__


def session(opset, elem_type, n):
    node = helper.make_node("Hardmax", ["X"], ["Y"], axis=0)
    graph = helper.make_graph([node], "hardmax", [helper.make_tensor_value_info("X", elem_type, [n])],
                              [helper.make_tensor_value_info("Y", elem_type, [n])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=IR[opset])
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def show(values):
    return "[" + ", ".join("NaN" if np.isnan(v) else repr(float(v)) for v in values) + "]"


def answers(x):
    """The one-hot answer with NaN above every number, and with NaN below (NaN equal to NaN, the
    first of equal maxima wins, as Hardmax says)."""
    out = {}
    for name, nan_high in (("NaN above the numbers", True), ("NaN below the numbers", False)):
        key = [(1, 0.0) if np.isnan(v) and nan_high else (-1, 0.0) if np.isnan(v) else (0, float(v)) for v in x]
        best = max(range(len(x)), key=lambda i: (key[i], -i))
        out[name] = [1.0 if i == best else 0.0 for i in range(len(x))]
    return out


no_one = 0
ran = 0
for type_name, opset in (("float32", 13), ("float32", 11), ("float32", 1), ("float16", 13), ("float16", 11)):
    elem_type, dtype = TYPES[type_name]
    for data in ([np.nan, 1, 2], [np.nan, np.nan, np.nan], [1, np.nan, 2]):
        x = np.array(data, dtype)
        label = f"Hardmax-{opset} {type_name} {show(x)} axis=0"
        try:
            (y,) = session(opset, elem_type, len(x)).run(None, {"X": x})
        except Exception as error:  # an older release without this opset
            print(f"{label}: {first_line(error)}")
            continue
        ran += 1
        print(f"{label}: {y.tolist()}")
        want = answers(x)
        print("  documents: " + "; ".join(f"{name}: {ans}" for name, ans in want.items()))
        if float(np.sum(y)) == 0.0:
            no_one += 1
            print("  -> no 1 in the row: neither placement of NaN explains it")

if not ran:
    print("CANNOT RUN: this release could build no session of the model")
    sys.exit(2)
print("REPRODUCED" if no_one else "NOT REPRODUCED")
sys.exit(0 if no_one else 1)
