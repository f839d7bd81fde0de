"""OpenVINO's CPU plugin answers differently on CPUs of different instruction sets (openvino
and numpy only; openvino 2026.4.1). It prints the CPU's kernel-selecting features beside each
answer. Run it on machines of different tiers, or on this one under QEMU's emulated AVX2 CPU
(`qemu-x86_64 -cpu max python docs/repros/openvino_cpu_isa.py`; TCG has no AVX-512)."""
import numpy as np
import openvino as ov
import openvino.opset11 as op

try:
    from numpy._core._multiarray_umath import __cpu_features__ as features
except ImportError:  # numpy 1.x
    from numpy.core._multiarray_umath import __cpu_features__ as features

core = ov.Core()
kernel_features = ("AVX2", "AVX512F", "AVX512BW", "AVX512VL", "AVX512VNNI", "AVX512BF16", "AVX512FP16")
print("CPU:", core.get_property("CPU", "FULL_DEVICE_NAME"))
print("features:", " ".join(f for f in kernel_features if features.get(f)) or "none of AVX2 and AVX-512")
print("OpenVINO CPU capabilities:", " ".join(core.get_property("CPU", "OPTIMIZATION_CAPABILITIES")))


def topk(x, k, stable, element=None):
    """TopK-11 on the last axis, max, sort=value, K a constant."""
    element = element or ov.Type(x.dtype)
    data = op.parameter(list(x.shape), element)
    node = op.topk(data, op.constant(np.int64(k)), axis=-1, mode="max", sort="value",
                   index_element_type="i32", stable=stable)
    compiled = core.compile_model(ov.Model([node.output(0), node.output(1)], [data]), "CPU",
                                  {"INFERENCE_PRECISION_HINT": "f32"})
    feed = ov.Tensor(x, list(x.shape), ov.Type.bf16) if element == ov.Type.bf16 else x
    out = compiled([feed])
    return out[0], out[1]


# K = 1 of a row whose largest value is tied, K constant, stable=false (what OpenVINO's ONNX
# frontend builds from every ONNX TopK): AVX-512 machines pick the first of the tied maxima,
# as ONNX's "lower index first" wants (index 1); AVX2 machines another one (index 4).
x = np.array([[3, 9, 1, 9, 9, 0, 2, 9]], np.float32)
print("float32", x.tolist()[0], "K=1 stable=false: index", topk(x, 1, stable=False)[1].tolist()[0],
      "| stable=true:", topk(x, 1, stable=True)[1].tolist()[0])

# bfloat16 subnormals: flushed to zero on CPUs with AVX512_BF16 (0x0001 comes back as 0x0000),
# kept on CPUs without.
s = np.array([0x0001, 0x8001, 0x0000, 0x0040], np.uint16)
values, indices = topk(s, 4, stable=True, element=ov.Type.bf16)
print("bfloat16 bits", [f"0x{v:04x}" for v in s], "K=4: values",
      [f"0x{int(v):04x}" for v in np.ascontiguousarray(values).view(np.uint16)], "indices", indices.tolist())
# want values 0x0040, 0x0001, 0x0000, 0x8001 (indices 3, 0, 2, 1)
