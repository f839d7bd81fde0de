"""HM-REF1: onnx's reference evaluator computes Hardmax-1 and Hardmax-11 along `axis` alone,
ignoring the 2-D coercion those versions specify (a row is every dimension from `axis` on,
flattened), so a row gets several 1s; with `axis` left out it uses the last axis (Hardmax-13's
default -1) instead of 1. Hardmax-13 (one axis) is right.
Standalone: onnx (the reference evaluator, and onnx.helper to build the model), numpy."""
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
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator
except Exception as error:  # missing (onnx.reference is onnx >= 1.13), or built against another numpy
    print(f"CANNOT RUN: {type(error).__name__}: {error}")
    sys.exit(2)

print(f"onnx {onnx.__version__}, numpy {np.__version__}")
print(f"Python {platform.python_version()}; {platform.platform()}; CPU: {cpu_name()}")

IR = {1: 3, 11: 6, 13: 7}  # the lowest ir_version each opset allows


def hardmax_model(opset, shape, axis):
    attributes = {} if axis is None else {"axis": axis}
    node = helper.make_node("Hardmax", ["X"], ["Y"], **attributes)
    graph = helper.make_graph([node], "hardmax", [helper.make_tensor_value_info("X", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, shape)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=IR[opset])


def documents(x, opset, axis):
    """Hardmax-1/-11: coerce to 2-D [a_0*...*a_{k-1}, a_k*...*a_{n-1}] (k = axis, default 1), one 1
    at the first maximum of each row. Hardmax-13: one 1 at the first maximum along axis (default -1)."""
    if opset < 13:
        k = 1 if axis is None else axis % x.ndim
        rows = x.reshape(int(np.prod(x.shape[:k], dtype=np.int64)), -1)
        y = np.zeros_like(rows)
        y[np.arange(rows.shape[0]), rows.argmax(axis=1)] = 1
        return y.reshape(x.shape)
    a = -1 if axis is None else axis
    y = np.zeros_like(x)
    np.put_along_axis(y, np.expand_dims(x.argmax(axis=a), a), 1, axis=a)
    return y


x2 = np.array([[0, 2, 0], [1, 2, 2]], np.float32)
x3 = np.array([[[12, 0], [-101, 11]], [[3, 234], [0, -101]]], np.float32)
wrong = 0
for opset, x, axis in ((11, x2, 0), (1, x2, 0), (11, x3, None), (13, x2, 0)):
    label = f"Hardmax-{opset} {'axis left out' if axis is None else f'axis={axis}'}"
    try:
        (got,) = ReferenceEvaluator(hardmax_model(opset, list(x.shape), axis)).run(None, {"X": x})
    except Exception as error:
        print(f"CANNOT RUN: {label}: {type(error).__name__}: {str(error).splitlines()[0][:300] if str(error) else ''}")
        sys.exit(2)
    want = documents(x, opset, axis)
    print(f"{label}, float32 {list(x.shape)} {x.tolist()}:")
    print(f"  reference evaluator: {np.asarray(got).tolist()}")
    print(f"  documents:           {want.tolist()}" + ("  (Hardmax-13, for contrast)" if opset == 13 else ""))
    if opset < 13 and not np.array_equal(np.asarray(got), want):
        wrong += 1
        print("  -> differs: one 1 per slice along " + ("axis alone" if axis is not None else
              "the last axis (Hardmax-13's default axis -1, not 1)") + ", not one per coerced row")

print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
