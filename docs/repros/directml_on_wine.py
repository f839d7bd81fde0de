"""What DirectML does under Wine, without the suite: DirectML's own TOP_K1 and ONNX
Runtime's DirectML provider, driven through the suite's bridge.exe directly (framing in
backends/wine/bridge/bridge.h; no suite imports). Needs `topk-conformance setup directml`.
DirectML.dll 1.15.4 and onnxruntime-directml 1.24.4 under Wine 8.0 on Mesa lavapipe (a
software Vulkan adapter): what shows here may lie in DirectML's shaders or in their
translation, and says nothing about any GPU's driver."""
import atexit
import os
import struct
import subprocess

import numpy as np
from onnx import TensorProto, helper

root = os.path.expanduser("~/.cache/topk-conformance/directml")
read_end, write_end = os.pipe()  # Xvfb picks a free display and writes its number here
xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write_end), "-nolisten", "tcp"], pass_fds=[write_end],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(write_end)
display = ":" + os.read(read_end, 16).decode().strip()
atexit.register(xvfb.terminate)
env = dict(os.environ, WINEPREFIX=f"{root}/prefix", WINEDEBUG="-all", DISPLAY=display,
           WINEDLLOVERRIDES="mscoree,mshtml=;wined3d=n",  # the patched wined3d.dll beside bridge.exe
           VK_ICD_FILENAMES="/usr/share/vulkan/icd.d/lvp_icd.x86_64.json")
bridge = subprocess.Popen(["wine", f"{root}/bin/bridge.exe"], env=env, cwd=f"{root}/bin",
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
MAGIC = 0x32424B54  # "TKB2" (bridge.h's BRIDGE_MAGIC)
ELEM = {np.float32: 1, np.uint8: 2, np.int8: 3, np.int16: 5, np.int32: 6, np.int64: 7, np.float64: 11,
        np.uint32: 12, np.uint64: 13}
DTYPE = {code: np.dtype(t) for t, code in ELEM.items()}


def ask(op, body):
    bridge.stdin.write(struct.pack("<IIQ", MAGIC, op, len(body)) + body)
    bridge.stdin.flush()
    magic, status, _, _, n = struct.unpack("<IIIIQ", bridge.stdout.read(24))
    assert magic == MAGIC, hex(magic)
    out = bridge.stdout.read(n)
    return (None, out.decode()) if status else (out, "")


def tensor(x):
    return struct.pack(f"<II{x.ndim}qQ", ELEM[x.dtype.type], x.ndim, *x.shape, x.nbytes) + x.tobytes()


def text(s):
    return struct.pack("<I", len(s)) + s.encode()


def dml_run(op_type, *members):  # OP_DML_RUN: the desc struct's members in declaration order
    out, refused = ask(4, struct.pack("<II", op_type, len(members)) + b"".join(members))
    if refused:
        return refused
    outputs, at = {}, 4  # reply: u32 count, then (str name, tensor) each
    for _ in range(struct.unpack_from("<I", out)[0]):
        n = struct.unpack_from("<I", out, at)[0]
        name = out[at + 4:at + 4 + n].decode()
        elem, rank = struct.unpack_from("<II", out, at + 4 + n)
        shape = struct.unpack_from(f"<{rank}q", out, at + 12 + n)
        size = struct.unpack_from("<Q", out, at + 12 + n + 8 * rank)[0]
        start = at + 20 + n + 8 * rank
        outputs[name] = np.frombuffer(out[start:start + size], DTYPE[elem]).reshape(shape)
        at = start + size
    return outputs


def input_tensor(name, x):
    return struct.pack("<I", 1) + text(name) + tensor(x)


def output_tensor(name, output, elem, shape):
    return struct.pack("<I", 2) + text(name) + text(output) + struct.pack(f"<II{len(shape)}qQ", elem, len(shape),
                                                                           *shape, 0)


def uint(name, value):
    return struct.pack("<I", 3) + text(name) + struct.pack("<I", value)


def top_k1(x, k, largest, index_type=12):  # DML_OPERATOR_TOP_K1 on axis 0; indices UINT32 (12)
    shape = (k, *x.shape[1:])
    out = dml_run(112, input_tensor("InputTensor", x), output_tensor("OutputValueTensor", "values", ELEM[x.dtype.type],
                                                                      shape),
                  output_tensor("OutputIndexTensor", "indices", index_type, shape), uint("Axis", 0), uint("K", k),
                  uint("AxisDirection", int(largest)))
    if isinstance(out, str):
        return out
    return out["values"].tolist(), out["indices"].tolist()


def ort_dml(x, k, opset):  # one TopK node, K an initializer, through the DirectML provider
    node = helper.make_node("TopK", ["X", "K"], ["V", "I"], name="topk", axis=0)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("X", ELEM[x.dtype.type], list(x.shape))],
        [helper.make_tensor_value_info("V", ELEM[x.dtype.type], [k]), helper.make_tensor_value_info("I", 7, [k])],
        [helper.make_tensor("K", TensorProto.INT64, [1], [k])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = helper.find_min_ir_version_for(list(model.opset_import))
    model = model.SerializeToString()
    body = struct.pack("<I", 0) + struct.pack("<Q", len(model)) + model
    body += struct.pack("<II", 1, 1) + b"X" + tensor(x) + struct.pack("<I", 2)  # input X; outputs:
    body += b"".join(struct.pack("<I", 1) + name + struct.pack("<IIIQ", 0, 0, 0, 0) for name in (b"V", b"I"))
    out, refused = ask(2, body)
    if refused:
        return refused[:300]
    values = np.frombuffer(out[28:28 + x.itemsize * k], x.dtype).tolist()
    return values, out[out.rfind(b"TopK:"):].decode()  # ONNX Runtime's own placement record


def ort_dml_k_input(x, k):  # TopK-11 with K a graph input: the first output's shape and values
    node = helper.make_node("TopK", ["X", "K"], ["V", "I"], name="topk", axis=0)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("X", ELEM[x.dtype.type], list(x.shape)),
                      helper.make_tensor_value_info("K", 7, [1])],
        [helper.make_tensor_value_info("V", ELEM[x.dtype.type], None), helper.make_tensor_value_info("I", 7, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
    model.ir_version = helper.find_min_ir_version_for(list(model.opset_import))
    model = model.SerializeToString()
    body = struct.pack("<I", 0) + struct.pack("<Q", len(model)) + model + struct.pack("<I", 2)  # inputs X, K:
    body += struct.pack("<I", 1) + b"X" + tensor(x) + struct.pack("<I", 1) + b"K" + tensor(np.array([k], np.int64))
    body += struct.pack("<I", 2) + b"".join(struct.pack("<I", 1) + name + struct.pack("<IIIQ", 0, 0, 0, 0)
                                            for name in (b"V", b"I"))
    out, refused = ask(2, body)
    if refused:
        return refused[:300]
    _, _, rank = struct.unpack("<III", out[:12])
    shape = struct.unpack(f"<{rank}q", out[12:12 + 8 * rank])
    size = struct.unpack("<Q", out[12 + 8 * rank:20 + 8 * rank])[0]
    return list(shape), np.frombuffer(out[20 + 8 * rank:20 + 8 * rank + size], x.dtype).tolist()


print("INT64, values sharing their high 32 bits (UINT64 for contrast):")
for dtype in (np.int64, np.uint64):
    x = np.array([5, 4294967295], dtype)
    print(" ", dtype.__name__, x.tolist(), "smallest:", top_k1(x, 1, False), "largest:", top_k1(x, 1, True))
x = np.array([[1, 2, 2, 3]], np.float32).T.copy().ravel()
print("K = n = 4 ('less than' the axis size, say the docs):", top_k1(x, 4, True))
print("K = 0 ('greater than 0'):", top_k1(x, 0, True))
print("INT32 indices (tables: UINT32, UINT64):", top_k1(x, 2, True, index_type=6))
print("FLOAT64 (not in the tables):", top_k1(x.astype(np.float64), 2, True))
print("An empty tensor [4, 0] (axis 0 of length 4, K = 2):", top_k1(np.zeros((4, 0), np.float32), 2, True))
nan = np.array([0, -0.0, np.nan, 1, -np.inf, np.inf, np.nan, -0.0], np.float32)
print("NaN, K=8, largest:", top_k1(nan, 8, True))
print("NaN, K=8, smallest:", top_k1(nan, 8, False))
print("[NaN, NaN], K=2, largest:", top_k1(np.array([np.nan, np.nan], np.float32), 2, True))
print("ONNX Runtime's DirectML provider, TopK-11 float32:", ort_dml(x, 2, 11))
print("  TopK-11 int64 [5, 4294967295], largest K=1:", ort_dml(np.array([5, 4294967295], np.int64), 1, 11))
print("  TopK-24 float32:", ort_dml(x, 2, 24))
print("  TopK-11 int16:", ort_dml(np.array([1, 2, 2, 3], np.int16), 2, 11))
print("  TopK-11 int64 [0, 2147483648], largest K=1:", ort_dml(np.array([0, 2**31], np.int64), 1, 11))
print("  TopK-11, K = 1 as an input, X empty (shape [0]; K > n must be refused):",
      ort_dml_k_input(np.zeros(0, np.float32), 1))
print("  the same, K = 3 as an input, X of 2 elements:", ort_dml_k_input(np.array([1, 2], np.float32), 3))
bridge.stdin.close()
bridge.wait()
