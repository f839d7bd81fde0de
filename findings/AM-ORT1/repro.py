"""AM-ORT1: ONNX Runtime's CPU provider has no ArgMax/ArgMin kernel for int16, uint16, uint32, uint64
(every opset) or bfloat16 (opset 13), though the ONNX schemas list them. Standalone: onnxruntime,
onnx (only to build the models), numpy."""
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


def bf16_model(op):
    """bfloat16 through a Cast, so that the input stays float32 (no bfloat16 numpy type needed)."""
    nodes = [helper.make_node("Cast", ["X"], ["Xb"], to=TensorProto.BFLOAT16),
             helper.make_node(op, ["Xb"], ["I"], axis=0, keepdims=0)]
    graph = helper.make_graph(nodes, "arg", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [3])],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)


X = [1, 3, 2]
WANT = {"ArgMax": 1, "ArgMin": 0}
tests = [(op, name, dtype, opset, arg_model(op, elem, [3], opset, keepdims=0))
         for name, elem, dtype in (("int16", TensorProto.INT16, np.int16), ("uint16", TensorProto.UINT16, np.uint16),
                                   ("uint32", TensorProto.UINT32, np.uint32), ("uint64", TensorProto.UINT64, np.uint64))
         for opset in (1, 13) for op in ("ArgMax", "ArgMin")]
tests += [(op, "bfloat16", np.float32, 13, bf16_model(op)) for op in ("ArgMax", "ArgMin")]

no_kernel = ran = 0
for op, name, dtype, opset, model in tests:
    try:
        got = session(model).run(None, {"X": np.array(X, dtype)})[0].tolist()
        ran += 1
    except Exception as error:
        message = first_line(error)
        if "NOT_IMPLEMENTED" in message and op in message:
            no_kernel += 1
            got = message
        else:
            got = f"(this release cannot load the model: {message})"
    print(f"{op}-{opset} {name} {X} axis 0 keepdims 0: {got}; documents: {WANT[op]}")

if no_kernel:
    print("REPRODUCED")
    sys.exit(0)
if ran:
    print("NOT REPRODUCED")
    sys.exit(1)
print("CANNOT RUN: this release loads none of the models")
sys.exit(2)
