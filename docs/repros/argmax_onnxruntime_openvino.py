"""ONNX ArgMax/ArgMin on ONNX Runtime's OpenVINO execution provider, without the suite (onnx,
onnxruntime from the onnxruntime-openvino wheel, numpy). onnxruntime-openvino 1.24.1, which bundles
OpenVINO 2025.4.1; run it in a virtual environment of its own (the wheel and plain onnxruntime both
install the module `onnxruntime`). Every session has CPU fall-back disabled, and each line prints
ONNX Runtime's own record of the provider the node was given to beside what the provider returns
and what the ONNX documents require (opset 13: the first extreme, the last with select_last_index;
NaN is left open: the indices some consistent placement allows)."""
import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper

ort.set_default_logger_severity(4)  # no log lines between the lines: refusals are printed as results
PROVIDER = "OpenVINOExecutionProvider"
ONNX = {"float16": TensorProto.FLOAT16, "float32": TensorProto.FLOAT, "float64": TensorProto.DOUBLE,
        "int64": TensorProto.INT64, "uint32": TensorProto.UINT32, "uint64": TensorProto.UINT64,
        "uint16": TensorProto.BFLOAT16}  # bfloat16: its bits in a uint16 array
nan = np.nan


def model(name, x, last=0, opset=13, axis=0, identity=False):
    attrs = {"select_last_index": last} if opset >= 12 else {}
    nodes = [helper.make_node(name, ["Y" if identity else "X"], ["I"], name=name.lower(), axis=axis, keepdims=1,
                              **attrs)]
    if identity:  # the same node behind an Identity, as the suite offers a declined one-node graph again
        nodes.insert(0, helper.make_node("Identity", ["X"], ["Y"], name="identity"))
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("X", ONNX[x.dtype.name], list(x.shape))],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def run(name, x, last=0, opset=13, axis=0, identity=False):
    options = ort.SessionOptions()
    options.log_severity_level = 4
    options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    options.add_session_config_entry("session.record_ep_graph_assignment_info", "1")
    try:
        session = ort.InferenceSession(model(name, x, last, opset, axis, identity).SerializeToString(), options,
                                       providers=[(PROVIDER, {"device_type": "CPU", "precision": "FP32"})],
                                       disabled_optimizers=["EliminateIdentity"] if identity else None)
    except Exception as error:
        return f"{type(error).__name__}: {str(error).splitlines()[0].split(' : ')[-1].split(', but')[0][:110]}"
    placed = {sub.ep_name for sub in session.get_provider_graph_assignment_info() for node in sub.get_nodes()
              if node.op_type == name}
    return f"{session.run(None, {'X': x})[0].ravel().tolist()} on {sorted(placed)}"


def show(name, x, want, last=0, opset=13, axis=0):
    print(f"{name}-{opset} {x.dtype.name} {x.tolist()} last={last}: {run(name, x, last, opset, axis)}; "
          f"documents {want}")


print("onnxruntime", ort.__version__, ort.get_available_providers())
print("1. int64 and uint32 are compared in 32 bits (as OpenVINO's CPU plugin, its finding 1):")
show("ArgMax", np.array([2147483647, 2147483648, 2147483647], np.int64), [1])
show("ArgMin", np.array([2147483648, 2147483647, 2147483648], np.int64), [1], opset=1)
show("ArgMax", np.array([2**63 - 1, 2**63 - 2, -2**63, -2**63 + 1, 0], np.int64), [0])
show("ArgMin", np.array([2**63 - 1, 2**63 - 2, -2**63, -2**63 + 1, 0], np.int64), [2], opset=11)
show("ArgMax", np.array([2**32 - 1, 2**32 - 2, 0, 1, 0], np.uint32), [0])
show("ArgMin", np.array([2**32 - 1, 2**32 - 2, 0, 1, 0], np.uint32), [2], opset=12)
# Not a float conversion: int64 values above 2**53 that differ in their low word are told apart.
show("ArgMax", np.array([9007199254740992, 9007199254740993, 9007199254740992], np.int64), [1])
print("2. ArgMin with NaN: the NaN replaces the running minimum, the next number replaces the NaN:")
show("ArgMin", np.array([nan, nan, nan], np.float32), "[0] (the first of equal values)")
show("ArgMin", np.array([nan, nan, nan], np.float32), "[2] (the last)", last=1)
show("ArgMin", np.array([nan, nan, nan], np.float16), "[0]", opset=12)
show("ArgMin", np.array([2, nan, 2, 1], np.float32), "[3] (NaN above) or [1] (NaN below)", last=1)
show("ArgMin", np.array([1, 2, 2, nan], np.float32), "[0] (NaN above) or [3] (NaN below)")
print("3. NaN: ArgMax answers each row as if NaN were below every number, unless the NaN comes first;"
      " two rows of one tensor are then answered under opposite placements:")
show("ArgMax", np.array([1, 2, 2, nan], np.float32), "[3] (NaN above) or [1] (NaN below)")
show("ArgMax", np.array([nan, 1, 2, 2], np.float32), "[0] (NaN above) or [3] (NaN below)", last=1)
rows = np.array([[0, nan], [nan, 0]], np.float32)  # two rows of one tensor: opposite placements
show("ArgMax", rows, "[1, 0] (NaN above) or [0, 1] (NaN below)", axis=1)
show("ArgMin", rows, "[0, 1] (NaN above) or [1, 0] (NaN below)", axis=1)
print("4. Declined, alone and behind an Identity (the session refuses: CPU fall-back is disabled):")
for x, opset in ((np.array([1, 3, 2], np.float64), 13), (np.array([1, 3, 2], np.uint64), 11),
                 (np.array([0x3F80, 0x4040, 0x4000], np.uint16), 13)):
    label = "bfloat16" if x.dtype == np.uint16 else x.dtype.name
    print(f"   ArgMax-{opset} {label} [1, 3, 2]: {run('ArgMax', x, opset=opset)} | behind an Identity: "
          f"{run('ArgMax', x, opset=opset, identity=True)}")
for shape, axis in (((0,), 0), ((2, 0), 1), ((0, 3), 1)):
    x = np.zeros(shape, np.float32)
    print(f"   ArgMax-13 float32 of shape {list(shape)} axis {axis}: {run('ArgMax', x, axis=axis)} | behind an "
          f"Identity: {run('ArgMax', x, axis=axis, identity=True)}")
print("5. Right, one-node graphs on the provider:")
show("ArgMax", np.array([1, 3, 2, 3], np.float16), [1])
show("ArgMax", np.array([1, 3, 2, 3], np.float16), [3], last=1)
show("ArgMin", np.array([2, 1, 3, 1], np.int64), [3], last=1)
show("ArgMax", np.array([3e38, 3.4028235e38, 3.4028235e38], np.float32), [2], last=1)
