"""DirectML TopK, INT64 values sharing their high 32 bits, through ONNX Runtime's DirectML provider
(TopK-11 runs on DirectML's own DML_OPERATOR_TOP_K1): int64 [0, 2147483648], K = 1, largest, gives 0.
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
for data, largest in (([0, 2147483648], 1), ([5, 4294967295], 0), ([5, 4294967295], 1)):
    x = np.array(data, np.int64)
    out = run([helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=0, largest=largest)],
              [helper.make_tensor_value_info("X", TensorProto.INT64, [len(data)])],
              [helper.make_tensor_value_info("V", TensorProto.INT64, [1]),
               helper.make_tensor_value_info("I", TensorProto.INT64, [1])],
              {"X": x}, 11, [helper.make_tensor("K", TensorProto.INT64, [1], [1])])
    want = int(np.argmax(x) if largest else np.argmin(x))
    print(f"TopK-11 int64 {data}, K = 1, {'largest' if largest else 'smallest'}:")
    print("  output:", out if isinstance(out, str) else f"values {out[0].tolist()} indices {out[1].tolist()}")
    print(f"  documents: values [{data[want]}] indices [{want}]")
    reproduced |= not isinstance(out, str) and out[1].tolist() != [want]

print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
