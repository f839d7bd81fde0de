"""DirectML ArgMax/ArgMin and NaN, through ONNX Runtime's DirectML provider: NaN never wins a comparison
unless it comes first, so [[0, NaN], [NaN, 0]] over axis 1 gives [0, 0]: NaN below the numbers in one
row and above in the other (ONNX and DirectML say nothing of NaN: an unpromised difference).
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

nan = float("nan")
reproduced = False
x = np.array([[0, nan], [nan, 0]], np.float32)
for op, above, below in (("ArgMax", [1, 0], [0, 1]), ("ArgMin", [0, 1], [1, 0])):
    out = run([helper.make_node(op, ["X"], ["I"], axis=1, keepdims=1)],
              [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 2])],
              [helper.make_tensor_value_info("I", TensorProto.INT64, [2, 1])], {"X": x}, 13)
    got = out if isinstance(out, str) else out[0].ravel().tolist()
    print(f"{op}-13 float32 [[0, NaN], [NaN, 0]], axis 1: output {got}, documents: NaN above {above}, "
          f"NaN below {below}")
    reproduced |= not isinstance(out, str) and got not in (above, below)
for op, data, above, below in (("ArgMax", [1, 2, 2, nan], 3, 1), ("ArgMin", [nan, 1, 2, 2], 1, 0)):
    out = run([helper.make_node(op, ["X"], ["I"], axis=0, keepdims=1)],
              [helper.make_tensor_value_info("X", TensorProto.FLOAT, [4])],
              [helper.make_tensor_value_info("I", TensorProto.INT64, [1])], {"X": np.array(data, np.float32)}, 13)
    print(f"{op}-13 float32 {data} (for information): output {out if isinstance(out, str) else out[0].tolist()}, "
          f"documents: NaN above [{above}], NaN below [{below}]")

print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
