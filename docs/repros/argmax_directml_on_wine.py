"""ArgMax / ArgMin on DirectML under Wine, without the suite: DirectML's own DML_OPERATOR_ARGMAX,
ARGMIN and REDUCE (ARGMAX / ARGMIN), and ONNX ArgMax / ArgMin through ONNX Runtime's DirectML
provider, driven through the suite's bridge.exe directly (framing in backends/wine/bridge/bridge.h;
no suite imports: numpy, onnx.helper, struct, subprocess). Needs `topk-conformance setup directml`.
DirectML.dll 1.15.4 and onnxruntime-directml 1.24.4 under Wine 8.0 on Mesa lavapipe (a software
Vulkan adapter): what shows here may lie in DirectML's shaders or in their translation, and says
nothing about any GPU's driver. Each line prints what the runtime returns beside what the documents
require (the first extreme, or the last with AxisDirection DECREASING / select_last_index; NaN is
left open by every document: the indices some consistent placement allows)."""
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
ELEM = {np.float32: 1, np.uint8: 2, np.int8: 3, np.uint16: 4, np.int16: 5, np.int32: 6, np.int64: 7,
        np.float16: 10, np.float64: 11, np.uint32: 12, np.uint64: 13}  # ONNX TensorProto numbers
DTYPE = {code: np.dtype(t) for t, code in ELEM.items()}
BFLOAT16 = 16  # sent as its bits in a uint16 array
ARGMIN, ARGMAX, REDUCE = 137, 138, 55  # DML_OPERATOR_TYPE
SENTINEL = 0xA5A5A5A5A5A5A5A5  # the bridge fills a preallocated output with 0xA5 bytes before the run
nan = np.nan


def ask(op, body):
    bridge.stdin.write(struct.pack("<IIQ", MAGIC, op, len(body)) + body)
    bridge.stdin.flush()
    magic, status, _, _, n = struct.unpack("<IIIIQ", bridge.stdout.read(24))
    assert magic == MAGIC, hex(magic)
    out = bridge.stdout.read(n)
    return (None, out.decode()) if status else (out, "")


def tensor(x, elem=None):
    return struct.pack(f"<II{x.ndim}qQ", elem or ELEM[x.dtype.type], x.ndim, *x.shape, x.nbytes) + x.tobytes()


def spec(elem, shape):
    return struct.pack(f"<II{len(shape)}qQ", elem, len(shape), *shape, 0)


def text(s):
    return struct.pack("<I", len(s)) + s.encode()


def read_tensor(out, at):
    elem, rank = struct.unpack_from("<II", out, at)
    shape = struct.unpack_from(f"<{rank}q", out, at + 8)
    size = struct.unpack_from("<Q", out, at + 8 + 8 * rank)[0]
    start = at + 16 + 8 * rank
    return np.frombuffer(out[start:start + size], DTYPE[elem]).reshape(shape), start + size


def dml(op_type, x, axes, direction=None, index_elem=12):
    """DML_ARGMAX/ARGMIN_OPERATOR_DESC (InputTensor, OutputTensor, AxisCount + Axes, AxisDirection)
    or DML_REDUCE_OPERATOR_DESC (Function, InputTensor, OutputTensor, AxisCount + Axes), members
    in declaration order; the output keeps the reduced axes as size 1; indices UINT32 unless asked."""
    shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    members = [struct.pack("<I", 1) + text("InputTensor") + tensor(x),
               struct.pack("<I", 2) + text("OutputTensor") + text("indices") + spec(index_elem, shape),
               struct.pack("<I", 6) + text("Axes") + struct.pack(f"<I{len(axes)}I", len(axes), *axes)]
    if op_type == REDUCE:
        members.insert(0, struct.pack("<I", 3) + text("Function") + struct.pack("<I", direction))
    else:
        members.append(struct.pack("<I", 3) + text("AxisDirection") + struct.pack("<I", direction))
    out, refused = ask(4, struct.pack("<II", op_type, len(members)) + b"".join(members))
    if refused:
        return refused
    n = struct.unpack_from("<I", out, 4)[0]  # reply: u32 count, then (str name, tensor) each
    return read_tensor(out, 8 + n)[0].tolist()


def both(op, x, direction, axes=(0,)):
    """The dedicated operator with AxisDirection, and (for INCREASING) REDUCE with its function."""
    own = dml(ARGMAX if op == "argmax" else ARGMIN, x, axes, direction)
    if direction == 1:
        return f"{op.upper()} DECREASING {own}"
    return f"{op.upper()} {own}, REDUCE {dml(REDUCE, x, axes, 0 if op == 'argmax' else 1)}"


def ort_dml(op, x, opset=13, last=0, axis=0, elem=None, key="", dims=None):
    """One ONNX ArgMax/ArgMin node through ONNX Runtime's DirectML provider (CPU fall-back
    disabled in the bridge), keepdims=1; its output preallocated and filled with the sentinel.
    Returns the indices and ONNX Runtime's own record of where the node was placed. A session
    `key` keeps the session for the next call with that key; `dims` gives X symbolic dimensions."""
    elem = elem or ELEM[x.dtype.type]
    shape = [1 if i == axis else d for i, d in enumerate(x.shape)]
    attrs = {"select_last_index": last} if opset >= 12 else {}
    node = helper.make_node(op, ["X"], ["I"], name=op.lower(), axis=axis, keepdims=1, **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", elem, dims or list(x.shape))],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = helper.find_min_ir_version_for(list(model.opset_import))
    model = model.SerializeToString()
    body = text(key) + struct.pack("<Q", len(model)) + model
    body += struct.pack("<I", 1) + text("X") + tensor(x, elem)
    body += struct.pack("<I", 1) + text("I") + struct.pack("<I", 1) + spec(TensorProto.INT64, shape)
    out, refused = ask(2, body)
    if refused:
        return refused.splitlines()[0][:230]
    indices, at = read_tensor(out, 4)
    placement = out[at + 4:].decode()
    return [("sentinel" if int(v) & (2**64 - 1) == SENTINEL else int(v)) for v in indices.ravel()], placement


info, _ = ask(3, b"")
info = dict(line.split("=", 1) for line in info.decode().splitlines() if "=" in line)
print("DirectML", info.get("directml_dll"), "on", info.get("adapter"), "feature level", info.get("dml_feature_level"))
print("  the device's DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT:",
      " ".join(f"{k[6:]}={v}" for k, v in info.items() if k.startswith("dtype.")))

print("\nDirectML's own operators (AxisDirection INCREASING = the first extreme, DECREASING = the last)")
print("1. INT64 where the values share their high 32 bits (documents: index 1):")
print("   argmax int64 [2147483647, 2147483648, 2147483647]:",
      both("argmax", np.array([2147483647, 2147483648, 2147483647], np.int64), 0))
print("   argmin int64 [2147483648, 2147483647, 2147483648]:",
      both("argmin", np.array([2147483648, 2147483647, 2147483648], np.int64), 0))
print("   argmax int64 [5, 4294967295]:", both("argmax", np.array([5, 4294967295], np.int64), 0),
      "(documents: 1)")
print("   uint64, same bits [2147483647, 2147483648, 2147483647]:",
      both("argmax", np.array([2147483647, 2147483648, 2147483647], np.uint64), 0), "(documents: 1)")
print("   int64 without a shared high word [-1, 4294967296, 7]:",
      both("argmax", np.array([-1, 4294967296, 7], np.int64), 0), "(documents: 1)")
print("2. An all-NaN row with DECREASING (the last of equal values; the DirectML answer 2):")
for op in ("argmax", "argmin"):
    print(f"   {op} [NaN, NaN, NaN]:", both(op, np.array([nan, nan, nan], np.float32), 1),
          "| INCREASING:", both(op, np.array([nan, nan, nan], np.float32), 0), "(0)")
print("3. NaN elsewhere: it never wins a comparison unless it comes first")
print("   argmax [1, 2, 2, NaN]:", both("argmax", np.array([1, 2, 2, nan], np.float32), 0),
      "|", both("argmax", np.array([1, 2, 2, nan], np.float32), 1),
      "(NaN above the numbers: 3; below: 1, the last 2)")
print("   argmax [2, NaN, 2, 1]:", both("argmax", np.array([2, nan, 2, 1], np.float32), 0),
      "|", both("argmax", np.array([2, nan, 2, 1], np.float32), 1), "(above: 1; below: 0, the last 2)")
print("   argmin [NaN, 1, 2, 2]:", both("argmin", np.array([nan, 1, 2, 2], np.float32), 0),
      "|", both("argmin", np.array([nan, 1, 2, 2], np.float32), 1), "(above: 1; below: 0)")
rows = np.array([[0, nan], [nan, 0]], np.float32)  # found by the fuzzer: two rows, opposite placements
print("   argmax [[0, NaN], [NaN, 0]] over axis 1:", both("argmax", rows, 0, (1,)),
      "(NaN above: [1, 0]; below: [0, 1])")
print("   argmin [[0, NaN], [NaN, 0]] over axis 1:", both("argmin", rows, 0, (1,)),
      "(NaN above: [0, 1]; below: [1, 0])")
print("4. Refused at CreateOperator:")
print("   FLOAT64 [1, 3, 2] (not in the tables):", both("argmax", np.array([1, 3, 2], np.float64), 0))
print("   FLOAT64 rank 4:", dml(ARGMAX, np.ones((1, 1, 1, 2), np.float64), (3,), 0))
for shape, axis in (((0,), 0), ((2, 0), 1), ((0, 3), 1)):
    print(f"   float32 of shape {list(shape)} over axis {axis} (not excluded by the documents):",
          both("argmax", np.zeros(shape, np.float32), 0, (axis,)))
print("5. Accepted and right:")
x = np.array([1, 3, 2, 3], np.float32)
for name, code in (("INT32", 6), ("INT64", 7), ("UINT32", 12), ("UINT64", 13)):
    print(f"   {name} indices, argmax [1, 3, 2, 3]:", dml(ARGMAX, x, (0,), 0, code), "| DECREASING:",
          dml(ARGMAX, x, (0,), 1, code), "(1 | 3)")
for dtype in (np.int8, np.uint8, np.int32, np.uint32):
    print(f"   {dtype.__name__} argmax [1, 3, 2, 3]:", both("argmax", x.astype(dtype), 0), "(1)")
x8 = np.zeros((1, 1, 1, 1, 1, 1, 2, 3), np.float32)
x8[0, 0, 0, 0, 0, 0, 1, 2] = 1
print("   8-D [1,1,1,1,1,1,2,3] over axis 7 (REDUCE's level-1.0 table says 4-D):",
      both("argmax", x8, 0, (7,)), "([[0], [2]] under the leading 1s)")
print("6. Several axes: the index counts in the tensor's dimension order, whatever the order of Axes.")
x3 = np.zeros((2, 1, 3), np.float32)
x3[1, 0, 0] = 5  # axis 0 at 1, axis 2 at 0: dimension order gives 1 * 3 + 0 = 3; the order {2, 0}, 0 * 2 + 1 = 1
print("   float32 [2, 1, 3], the 5 at [1, 0, 0]: Axes {0, 2}:", dml(ARGMAX, x3, (0, 2), 0),
      "Axes {2, 0}:", dml(ARGMAX, x3, (2, 0), 0), "(3: axis 0 outer; 1 would be {2, 0} in the order given)")

print("\nONNX Runtime's DirectML provider (ONNX ArgMax/ArgMin, keepdims=1; opset 13 unless said)")
print("1. The node is placed on DirectML; INT64 as DirectML's own (documents: [1]):")
print("   ArgMax int64 [2147483647, 2147483648, 2147483647]:",
      ort_dml("ArgMax", np.array([2147483647, 2147483648, 2147483647], np.int64)))
print("   ArgMin int64 [2147483648, 2147483647, 2147483648], opset 1:",
      ort_dml("ArgMin", np.array([2147483648, 2147483647, 2147483648], np.int64), opset=1))
print("2. select_last_index=1 on an all-NaN row (the tie rule wants [2]):")
for op in ("ArgMax", "ArgMin"):
    print(f"   {op} [NaN, NaN, NaN]:", ort_dml(op, np.array([nan, nan, nan], np.float32), last=1))
print("3. NaN never wins unless it comes first:")
print("   ArgMax [1, 2, 2, NaN]:", ort_dml("ArgMax", np.array([1, 2, 2, nan], np.float32))[0],
      "select_last_index:", ort_dml("ArgMax", np.array([1, 2, 2, nan], np.float32), last=1)[0],
      "(NaN above: 3; below: 1, 2)")
print("   ArgMin [NaN, 1, 2, 2]:", ort_dml("ArgMin", np.array([nan, 1, 2, 2], np.float32))[0],
      "(NaN above: 1; below: 0)")
rows = np.array([[0, nan], [nan, 0]], np.float32)
print("   ArgMax and ArgMin [[0, NaN], [NaN, 0]] axis 1:", ort_dml("ArgMax", rows, axis=1)[0],
      ort_dml("ArgMin", rows, axis=1)[0], "(ArgMax: [1, 0] NaN above, [0, 1] below; ArgMin: [0, 1], [1, 0])")
print("4. An empty reduced axis (ArgMax-11: the input 'must not be empty'; 1, 12, 13 silent): an output, no error")


def bits(result):
    return [hex(v) if isinstance(v, int) else v for v in result[0]] if isinstance(result, tuple) else result


for opset in (11, 13):
    print(f"   ArgMax-{opset} float32 [0] axis 0, a new session:",
          bits(ort_dml("ArgMax", np.zeros(0, np.float32), opset)))
    print(f"   ArgMin-{opset} float32 [2, 0] axis 1, a new session:",
          bits(ort_dml("ArgMin", np.zeros((2, 0), np.float32), opset, axis=1)))
# The same after a non-empty input through one session (X with a symbolic last dimension): the bits
# of each output element, as float32 pairs (0x3f800000 is 1.0, 0x40000000 2.0, 0x41100000 9.0).
for opset, op, x, axis, dims in ((11, "ArgMax", [1, 2, 9], 0, ["n"]),
                                 (13, "ArgMin", [[1, 2, 9], [4, 3, 1]], 1, [2, "n"])):
    x = np.array(x, np.float32)
    empty = np.zeros((*x.shape[:-1], 0), np.float32)
    first = ort_dml(op, x, opset, axis=axis, key=f"{op}{opset}", dims=dims)[0]
    then = bits(ort_dml(op, empty, opset, axis=axis, key=f"{op}{opset}", dims=dims))
    print(f"   {op}-{opset}, X of shape {dims} axis {axis}, one session: {x.tolist()} gives {first}, then shape "
          f"{list(empty.shape)} gives {then}")
print("5. Declined (the session refuses: CPU fall-back is disabled):")
print("   float64 ArgMax [1, 3, 2]:", ort_dml("ArgMax", np.array([1, 3, 2], np.float64)))
print("   float16 ArgMax [1, 3, 2]:", ort_dml("ArgMax", np.array([1, 3, 2], np.float16)))
print("   float16 ArgMax-1 [1, 3, 2]:", ort_dml("ArgMax", np.array([1, 3, 2], np.float16), opset=1))
print("6. int16, uint16, bfloat16: not a fall-back refusal but an internal exception:")
print("   int16 ArgMax [1, 3, 2]:", ort_dml("ArgMax", np.array([1, 3, 2], np.int16)))
print("   uint16 ArgMin-11 [1, 3, 2]:", ort_dml("ArgMin", np.array([1, 3, 2], np.uint16), opset=11))
print("   bfloat16 ArgMax [1, 3, 2]:",
      ort_dml("ArgMax", np.array([0x3F80, 0x4040, 0x4000], np.uint16), elem=BFLOAT16))
bridge.stdin.close()
bridge.wait()
