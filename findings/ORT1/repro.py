"""ORT1: ONNX Runtime's CPU provider has no TopK kernel for uint16, uint32, uint64 (TopK-11) or
bfloat16 (TopK-24), though the ONNX schema lists them. Standalone: onnxruntime, onnx (only to build
the models), numpy."""
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

X = [1, 3, 2]  # K = 2, largest: the documents' answer is values [3, 2], indices [1, 2]


def topk_model(elem, opset):
    """TopK over axis 0 with K = 2 as an initializer. bfloat16 goes through Cast nodes, so that
    the input and output stay float32 (no bfloat16 numpy type needed)."""
    k = helper.make_tensor("K", TensorProto.INT64, [1], [2])
    if elem == TensorProto.BFLOAT16:
        nodes = [helper.make_node("Cast", ["X"], ["Xb"], to=TensorProto.BFLOAT16),
                 helper.make_node("TopK", ["Xb", "K"], ["Vb", "I"], axis=0, largest=1, sorted=1),
                 helper.make_node("Cast", ["Vb"], ["V"], to=TensorProto.FLOAT)]
        io = TensorProto.FLOAT
    else:
        nodes = [helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=0, largest=1, sorted=1)]
        io = elem
    graph = helper.make_graph(nodes, "topk", [helper.make_tensor_value_info("X", io, [3])],
                              [helper.make_tensor_value_info("V", io, None),
                               helper.make_tensor_value_info("I", TensorProto.INT64, None)], [k])
    # the lowest IR version each opset allows: 6 for opset 11, 12 for opset 24
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                             ir_version={11: 6, 24: 12}[opset])


no_kernel = ran = 0
for name, elem, dtype, opset in (("uint16", TensorProto.UINT16, np.uint16, 11),
                                 ("uint32", TensorProto.UINT32, np.uint32, 11),
                                 ("uint64", TensorProto.UINT64, np.uint64, 11),
                                 ("bfloat16", TensorProto.BFLOAT16, np.float32, 24)):
    x = np.array(X, dtype)
    try:
        values, indices = session(topk_model(elem, opset)).run(None, {"X": x})
        ran += 1
        got = f"values {values.tolist()}, indices {indices.tolist()}"
    except Exception as error:
        message = first_line(error)
        if "NOT_IMPLEMENTED" in message and "TopK" in message:
            no_kernel += 1
            got = message
        else:
            got = f"(this release cannot load the model: {message})"
    print(f"TopK-{opset} {name} {X} K=2 largest: {got}")
    print("  documents: values [3, 2], indices [1, 2] (ONNX TopK-11: T is every numeric type;"
          " TopK-24 adds bfloat16)")

if no_kernel:
    print("REPRODUCED")
    sys.exit(0)
if ran:
    print("NOT REPRODUCED")
    sys.exit(1)
print("CANNOT RUN: this release loads none of the models")
sys.exit(2)
