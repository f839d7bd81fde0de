"""AM-ORT6: NaN in ArgMax/ArgMin on ONNX Runtime's CPU provider depends on the input's rank: a rank-1
input gives the first NaN; from rank 2 (even a single row) NaN wins only where it comes first. Two
rows of one tensor, [0, NaN] and [NaN, 0], then both give index 0: NaN below the numbers in one row
and above in the other, which no one placement of NaN explains (ONNX says nothing about NaN).
Standalone: onnxruntime, onnx (only to build the models), numpy."""
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


def answer(x, op, axis, last, nan_high):
    """The documents' indices (keepdims = 0) under one placement of NaN: every NaN above every
    number, or below; equal values (NaN with NaN) broken by the tie rule (first, or last with
    select_last_index)."""
    def key(v):
        if np.isnan(v):
            return (1, 0.0) if nan_high else (-1, 0.0)
        return (0, float(v))

    def pick(row):
        keys = [key(v) for v in row]
        best = max(keys) if op == "ArgMax" else min(keys)
        hits = [i for i, k in enumerate(keys) if k == best]
        return hits[-1] if last else hits[0]

    moved = np.moveaxis(x, axis, -1)
    return np.array([pick(row) for row in moved.reshape(-1, moved.shape[-1])]).reshape(moved.shape[:-1]).tolist()


def placements(x, op, axis, last):
    return {"NaN above": answer(x, op, axis, last, True), "NaN below": answer(x, op, axis, last, False)}


n = np.nan
unexplained = 0
for op, data, axis, opset in (("ArgMax", [0, n], 0, 13),
                              ("ArgMax", [[0, n]], 1, 13),
                              ("ArgMax", [[0, n], [n, 0]], 1, 13),
                              ("ArgMin", [[0, n], [n, 0]], 1, 13),
                              ("ArgMax", [[0, 0, 0, n], [0, 0, n, 0]], 0, 1),
                              ("ArgMin", [[0, 0, 0, n], [0, 0, n, 0]], 0, 1)):
    x = np.array(data, np.float32)
    model = arg_model(op, TensorProto.FLOAT, x.shape, opset, axis=axis, keepdims=0)
    got = session(model).run(None, {"X": x})[0].tolist()
    want = placements(x, op, axis, 0)
    fits = [name for name, w in want.items() if w == got] or ["neither"]
    print(f"{op}-{opset} float32 {x.tolist()} axis {axis} keepdims 0: {got}; documents: "
          + ", ".join(f"{w} ({name} the numbers)" for name, w in want.items()) + f"; fits: {', '.join(fits)}")
    unexplained += fits == ["neither"]
print("REPRODUCED" if unexplained else "NOT REPRODUCED")
sys.exit(0 if unexplained else 1)
