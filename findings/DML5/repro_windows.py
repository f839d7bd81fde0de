"""DirectML TopK and NaN, through ONNX Runtime's DirectML provider (TopK-11 runs on DirectML's own
DML_OPERATOR_TOP_K1): [NaN, NaN], K = 2, gives indices [1, 0]; a mixed row is sorted under no
placement of NaN (ONNX and DirectML say nothing of NaN: an unpromised difference).
pip install onnxruntime-directml onnx numpy; python repro_windows.py (Windows, a DirectX 12 GPU)."""
import platform
import sys


def cannot(why):
    print(f"CANNOT RUN: {why}")
    sys.exit(2)


try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper
except ImportError as error:
    cannot(f"{error.name} is not installed (pip install onnxruntime-directml onnx numpy)")

print("Python", sys.version.split()[0], "|", platform.platform(), "| CPU:", platform.processor() or "unknown")
print("onnxruntime", ort.__version__, "| onnx", onnx.__version__, "| numpy", np.__version__)
if "DmlExecutionProvider" not in ort.get_available_providers():
    cannot("no DmlExecutionProvider in this onnxruntime (needs Windows and the onnxruntime-directml wheel)")
print()


def run(nodes, inputs, outputs, feeds, opset, initializers=()):
    """One graph on the DirectML provider only (CPU fall-back disabled, so a node DirectML
    declines makes the session refuse instead of running elsewhere)."""
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = {1: 3, 11: 6, 12: 7, 13: 7}[opset]  # the lowest the opset allows
    options = ort.SessionOptions()
    options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    try:
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["DmlExecutionProvider"])
        return session.run(None, feeds)
    except Exception as error:  # a refusal is an answer too
        return f"{type(error).__name__}: {str(error).splitlines()[0][:300]}"

nan, inf = float("nan"), float("inf")


def answer(row, k, nan_high):  # largest first, ties by ascending index, NaN above or below the numbers
    def key(i):
        v = row[i]
        grade = (1 if nan_high else -1) if v != v else 0
        return (-grade, -(0 if v != v else v)), i
    return sorted(range(len(row)), key=key)[:k]


reproduced = False
for data, k in (([nan, nan], 2), ([0.0, -0.0, nan, 1.0, -inf, inf, nan, -0.0], 8)):
    x = np.array(data, np.float32)
    out = run([helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=0)],
              [helper.make_tensor_value_info("X", TensorProto.FLOAT, [len(data)])],
              [helper.make_tensor_value_info("V", TensorProto.FLOAT, [k]),
               helper.make_tensor_value_info("I", TensorProto.INT64, [k])],
              {"X": x}, 11, [helper.make_tensor("K", TensorProto.INT64, [1], [k])])
    print(f"TopK-11 float32 {x.tolist()}, K = {k}, largest:")
    print("  output:", out if isinstance(out, str) else f"values {out[0].tolist()} indices {out[1].tolist()}")
    answers = [answer(data, k, high) for high in (True, False)]
    print(f"  documents, NaN above: indices {answers[0]}; NaN below: indices {answers[1]}")
    reproduced |= not isinstance(out, str) and out[1].tolist() not in answers

print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
