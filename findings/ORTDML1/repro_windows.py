"""TopK-11 on int64 through the DirectML provider compares the low 32-bit words as signed.

For Windows: pip install onnxruntime-directml==1.24.4 onnx numpy, then python repro_windows.py.
Each session: providers ["DmlExecutionProvider"], session.disable_cpu_ep_fallback = 1 (a session that is
created runs every node on DirectML). Last line: REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or
CANNOT RUN: why (exit 2)."""
import platform
import subprocess
import sys


def cannot(why):
    print(f"CANNOT RUN: {why}")
    sys.exit(2)


try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper
except Exception as error:
    cannot(f"numpy and onnx are needed ({error.__class__.__name__}: {error})")
try:
    import onnxruntime
except Exception as error:
    cannot(f"onnxruntime-directml is needed: pip install onnxruntime-directml==1.24.4 ({error})")
onnxruntime.set_default_logger_severity(3)  # errors are printed by this script, not logged twice
if "DmlExecutionProvider" not in onnxruntime.get_available_providers():
    cannot("this onnxruntime has no DmlExecutionProvider (Windows with the onnxruntime-directml wheel needed; "
           f"providers: {onnxruntime.get_available_providers()})")

ELEM = {"float32": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6, "int64": 7, "float16": 10,
        "float64": 11, "uint32": 12, "uint64": 13, "bfloat16": 16}  # ONNX TensorProto numbers
NUMPY = {code: np.dtype(name if name != "bfloat16" else "uint16") for name, code in ELEM.items()}
SENTINEL = None  # outputs are allocated by ONNX Runtime here
IR = {1: 3, 10: 5, 11: 6, 12: 7, 13: 7, 24: 12}  # the lowest IR version each opset allows
SESSIONS = {}


def session(model, key=""):
    if key and key in SESSIONS:
        return SESSIONS[key]
    options = onnxruntime.SessionOptions()
    options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")  # refuse rather than use the CPU
    made = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["DmlExecutionProvider"])
    if key:
        SESSIONS[key] = made
    return made


def run(bridge, model, inputs, outputs, key="", preallocate=None):
    """One InferenceSession on ["DmlExecutionProvider"] with session.disable_cpu_ep_fallback=1 (so a
    session that is created runs every node on DirectML), kept under `key` when not empty. inputs:
    name -> (array, ONNX element type). Returns (outputs, placement) or the error text."""
    try:
        made = session(model, key)
        results = made.run(list(outputs), {name: x for name, (x, _) in inputs.items()})
    except Exception as error:
        return f"{error.__class__.__name__}: {error}".strip()
    return [np.asarray(r) for r in results], f"providers {made.get_providers()}, CPU fall-back disabled"


def adapter():
    try:
        done = subprocess.run(["powershell", "-NoProfile", "-Command",
                               "(Get-CimInstance Win32_VideoController | ForEach-Object { $_.Name + ' (driver ' + "
                               "$_.DriverVersion + ')' }) -join '; '"],
                              capture_output=True, text=True, timeout=30)
        return done.stdout.strip() or "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def main(body):
    """Runs body(None) -> True (reproduced) / False; prints the protocol's last line."""
    print("Python", sys.version.split()[0], "|", platform.platform(), "|", platform.processor())
    print("onnxruntime", onnxruntime.__version__, "(onnxruntime-directml), providers",
          onnxruntime.get_available_providers())
    print("numpy", np.__version__, "| onnx", onnx.__version__, "(only to build the model)")
    print("adapter(s):", adapter())
    print("(each session: providers ['DmlExecutionProvider'], session.disable_cpu_ep_fallback = 1)")
    reproduced = body(None)
    print("REPRODUCED" if reproduced else "NOT REPRODUCED")
    sys.exit(0 if reproduced else 1)


def topk_model(opset, elem, shape, k, largest=1, k_input=False, dims=None):
    """One TopK node on axis 0: K the attribute (opset 1), else an int64 initializer, or a graph
    input with k_input; `dims` gives X symbolic dimensions."""
    inputs = [helper.make_tensor_value_info("X", elem, dims or list(shape))]
    initializers, attrs = [], {"axis": 0}
    if opset == 1:
        attrs["k"] = k
    elif k_input:
        inputs.append(helper.make_tensor_value_info("K", TensorProto.INT64, [1]))
    else:
        initializers.append(helper.make_tensor("K", TensorProto.INT64, [1], [k]))
    if opset >= 11:
        attrs["largest"] = largest
    node = helper.make_node("TopK", ["X"] + ([] if opset == 1 else ["K"]), ["V", "I"], name="topk", **attrs)
    graph = helper.make_graph([node], "topk", inputs, [helper.make_tensor_value_info("V", elem, None),
                                                        helper.make_tensor_value_info("I", TensorProto.INT64, None)],
                              initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="repro")
    model.ir_version = IR[opset]
    return model


def arg_model(op, opset, elem, shape, axis=0, last=0, dims=None):
    """One ArgMax/ArgMin node, keepdims=1 (select_last_index from opset 12)."""
    attrs = {"axis": axis, "keepdims": 1}
    if opset >= 12:
        attrs["select_last_index"] = last
    node = helper.make_node(op, ["X"], ["I"], name=op.lower(), **attrs)
    graph = helper.make_graph([node], op.lower(), [helper.make_tensor_value_info("X", elem, dims or list(shape))],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="repro")
    model.ir_version = IR[opset]
    return model


def show(result):
    """Outputs as lists with ONNX Runtime's placement record, or the first line of the error."""
    if isinstance(result, str):
        return "error: " + result.splitlines()[0][:400]
    outputs, placement = result
    return " ".join(str(o.tolist()) for o in outputs) + f"  [{placement.strip()}]"


INPUTS = [  # (int64 input, largest, documents' values, documents' indices)
    ([0, 2147483648], 1, [2147483648], [1]),
    ([5, 4294967295], 1, [4294967295], [1]),
    ([5, 4294967295], 0, [5], [0]),
]


def body(bridge):
    reproduced = False
    print("\nONNX TopK-11, int64, K = 1 (an initializer), axis 0: values that share their high 32 bits")
    for data, largest, values, indices in INPUTS:
        x = np.array(data, np.int64)
        result = run(bridge, topk_model(11, ELEM["int64"], x.shape, 1, largest), {"X": (x, ELEM["int64"])},
                     ["V", "I"])
        print(f"  input {data}, K = 1, {'largest' if largest else 'smallest'}")
        print(f"    output:    {show(result)}")
        print(f"    documents: values {values}, indices {indices}")
        if not isinstance(result, str) and result[0][0].tolist() != values:
            reproduced = True
    return reproduced

if __name__ == "__main__":
    main(body)
