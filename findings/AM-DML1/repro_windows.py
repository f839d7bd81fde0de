"""DirectML ArgMax/ArgMin, INT64 values sharing their high 32 bits, through ONNX Runtime's DirectML
provider (the node runs on DirectML's own operator): ArgMax-13 int64 [2147483647, 2147483648,
2147483647] gives [0], the documents [1].
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

reproduced = False
for op, data, opset in (("ArgMax", [2147483647, 2147483648, 2147483647], 13),
                        ("ArgMin", [2147483648, 2147483647, 2147483648], 1),
                        ("ArgMax", [5, 4294967295], 13)):
    x = np.array(data, np.int64)
    out = run([helper.make_node(op, ["X"], ["I"], axis=0, keepdims=1)],
              [helper.make_tensor_value_info("X", TensorProto.INT64, [len(data)])],
              [helper.make_tensor_value_info("I", TensorProto.INT64, [1])], {"X": x}, opset)
    want = int(np.argmax(x) if op == "ArgMax" else np.argmin(x))
    print(f"{op}-{opset} int64 {data}: output {out if isinstance(out, str) else out[0].tolist()}, documents [{want}]")
    reproduced |= not isinstance(out, str) and out[0].tolist() != [want]

print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
