"""What OpenVINO's CPU plugin does with the edge cases of issue 11, without the suite (only
openvino and numpy). openvino 2026.4.1. Each line prints what came back; the comment says
what the TopK-11 specification and the other runtimes give."""
import subprocess
import sys
import time

import numpy as np
import openvino as ov
import openvino.opset11 as op

core = ov.Core()


def topk(x, k, mode="max", stable=True, k_input=False, element=None):
    """Native TopK-11 on the last axis, sort=value; X of OpenVINO type `element` (default: x's)."""
    element = element or ov.Type(x.dtype)
    data = op.parameter(list(x.shape), element)
    kk = op.parameter([], ov.Type.i64) if k_input else op.constant(np.int64(k))
    node = op.topk(data, kk, axis=-1, mode=mode, sort="value", index_element_type="i32", stable=stable)
    inputs = [data, kk] if k_input else [data]
    compiled = core.compile_model(ov.Model([node.output(0), node.output(1)], inputs), "CPU")
    feeds = [ov.Tensor(x.view(np.uint16), list(x.shape), ov.Type.bf16) if element == ov.Type.bf16 else x]
    out = compiled(feeds + ([np.array(k, np.int64)] if k_input else []))
    return out[0], out[1]


def bits(values, width):
    return [f"0x{int(b):0{width // 4}x}" for b in np.ascontiguousarray(values).view(f"u{width // 8}").ravel()]


# int64 and uint64 are computed in i32.
u = np.array([0, 2**64 - 1], np.uint64)
print("uint64", u.tolist(), "K=1 max:", [v.tolist() for v in topk(u, 1)])  # want [2**64-1], [1]
i = np.array([2**63 - 1], np.int64)
print("int64", i.tolist(), "K=1 max:", topk(i, 1)[0].tolist())  # want the input's value

# float64 is computed in float32: +-inf and 1e300 come back as +-3.4e38 (float32's largest,
# so 1e300 and inf tie), and NaN loses its payload.
x = np.array([-np.inf, 1.0, np.inf, 1e300], np.float64)
values, indices = topk(x, 4)
print("float64", x.tolist(), "K=4 max:", values.tolist(), indices.tolist())  # want [inf, 1e300, 1, -inf], [2, 3, 1, 0]
z = np.array([0.0, 2.2250738585072014e-308], np.float64)  # 0 and float64's smallest normal
print("float64", z.tolist(), "K=2 max:", [v.tolist() for v in topk(z, 2)])  # want [2.2e-308, 0.0], [1, 0]
y = np.array([1.0, 0.0], np.float64)
y.view(np.uint64)[1] = 0x7FF8000000000001  # a quiet NaN with payload 1
print("float64 NaN payload 0x7ff8000000000001 comes back as", bits(topk(y, 2)[0], 64))

# Signalling NaN is quieted (the quiet bit set) in float16 and bfloat16: the values are no
# longer the input's (the spec: the output holds the input's elements).
h = np.array([0x7C01, 0x3C00], np.uint16).view(np.float16)  # signalling NaN, 1.0
print("float16 sNaN 0x7c01 comes back as", bits(topk(h, 2)[0], 16))
b = np.array([0x7F81, 0x3F80], np.uint16)  # bfloat16 signalling NaN, 1.0
print("bfloat16 sNaN 0x7f81 comes back as", bits(topk(b, 2, element=ov.Type.bf16)[0], 16))

# bfloat16 subnormals are flushed to zero: 0x0001 (the smallest subnormal) comes back as 0.
s = np.array([0x0001, 0x8001, 0x0000, 0x0040], np.uint16)
values, indices = topk(s, 4, element=ov.Type.bf16)
print("bfloat16 subnormals", bits(s, 16), "K=4 max:", bits(values, 16), indices.tolist())
# want the input's bits in the order 0x0040, 0x0001, 0x0000, 0x8001 (indices 3, 0, 2, 1)

# ov::Tensor::copy_to kills the process (SIGSEGV) when the source is the empty output of a model
# whose output shape is dynamic (K a graph input), in every element type; with K constant it
# copies. (The suite reads bfloat16 outputs with copy_to: its empty bfloat16 case crashes.)
child = ("import numpy as np, openvino as ov, openvino.opset11 as op\n"
         "d = op.parameter([0, 1], ov.Type.f32); k = op.parameter([], ov.Type.i64)\n"
         "t = op.topk(d, k, axis=1, mode='max', sort='value', index_element_type='i32')\n"
         "r = ov.Core().compile_model(ov.Model([t.output(0), t.output(1)], [d, k]), 'CPU').create_infer_request()\n"
         "r.infer({0: np.zeros((0, 1), np.float32), 1: np.array(1, np.int64)})\n"
         "r.get_output_tensor(0).copy_to(ov.Tensor(np.empty((0, 1), np.float32))); print('copied')\n")
done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True)
print("empty float32 [0, 1], K input, output copy_to: exit status", done.returncode, done.stdout.strip())  # -11

# K above the axis on an empty input (K = 1, X of shape [0]), which the spec leaves undefined:
# with K constant the output has one element of uninitialized memory; with K an input, SIGSEGV.
child = ("import numpy as np, openvino as ov, openvino.opset11 as op, sys\n"
         "d = op.parameter([0], ov.Type.f32); k = op.parameter([], ov.Type.i64) if sys.argv[1] == 'input' "
         "else op.constant(np.int64(1))\n"
         "t = op.topk(d, k, axis=0, mode='max', sort='value', index_element_type='i32')\n"
         "inputs = [d, k] if sys.argv[1] == 'input' else [d]\n"
         "r = ov.Core().compile_model(ov.Model([t.output(0), t.output(1)], inputs), 'CPU').create_infer_request()\n"
         "r.infer([np.zeros(0, np.float32)] + ([np.array(1, np.int64)] if sys.argv[1] == 'input' else []))\n"
         "print(r.get_output_tensor(0).data.tolist())\n")
for how in ("constant", "input"):
    done = subprocess.run([sys.executable, "-c", child, how], capture_output=True, text=True)
    print(f"empty float32 [0], K = 1 {how}: exit status", done.returncode, done.stdout.strip())

# Not a conformance issue, but a cost: stable=true takes time proportional to n*K.
row = (np.arange(2**20) % 3).astype(np.float32)
for stable in (True, False):
    started = time.perf_counter()
    topk(row, 1000, stable=stable)
    print(f"2**20 float32, K=1000, stable={stable}: {time.perf_counter() - started:.2f} s (incl. compiling)")
