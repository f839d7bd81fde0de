"""AM-ORT4: NaN in ArgMax/ArgMin on ONNX Runtime's CPU provider, rank-1 rows: without
select_last_index the first NaN wins both operators (for ArgMin that is NaN below every number); with
it NaN is skipped unless it comes first. Each answer is valid under one placement of NaN (ONNX says
nothing about NaN), but the placement differs between the operators and the attribute.
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
below_only = above_only = 0
for op, data, last in (("ArgMax", [2, n, 2, 1], 0), ("ArgMin", [2, n, 2, 1], 0),
                       ("ArgMax", [2, n, 2, 1], 1), ("ArgMin", [2, n, 2, 1], 1),
                       ("ArgMax", [n, 2, 1], 1), ("ArgMin", [n, 2, 1], 1)):
    x = np.array(data, np.float32)
    got = session(arg_model(op, TensorProto.FLOAT, [len(data)], 13, keepdims=0, last=last)).run(None, {"X": x})[0].tolist()
    want = placements(x, op, 0, last)
    fits = [name for name, w in want.items() if w == got] or ["neither"]
    print(f"{op}-13 float32 {x.tolist()} select_last_index={last}: {got}; documents: "
          + ", ".join(f"{w} ({name} the numbers)" for name, w in want.items()) + f"; fits: {', '.join(fits)}")
    below_only += fits == ["NaN below"]
    above_only += fits == ["NaN above"]
# Reproduced: some answers are valid only with NaN below the numbers, others only with NaN above.
reproduced = below_only and above_only
print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
