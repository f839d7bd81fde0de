"""OpenVINO's CPU plugin returns float16 and bfloat16 signalling NaNs quieted: TopK of float16
bits [0x7c01, 0x3c00] (a signalling NaN and 1.0), K = 2, returns the NaN as 0x7e01, and bfloat16
[0x7f81, 0x3f80] returns 0x7fc1; float32 (shown for comparison) keeps the NaN's bits. OpenVINO
TopK-11: output 1 is "Output tensor of type T with k values from the input tensor along a
specified axis", so the input's bits. An opset11.topk, mode=max, stable=true, K a constant.
Needs openvino, numpy. Prints the versions, then per type the input's bits and OpenVINO's;
the last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import platform
import sys

try:
    import numpy as np
    import openvino as ov
    op = getattr(ov, "opset11", None) or ov.runtime.opset11  # before 2025.0: openvino.runtime.opset11
except Exception as error:  # a module missing, or a build that cannot load here
    print(f"CANNOT RUN: a module is missing or cannot load ({type(error).__name__}: {error})")
    sys.exit(2)

print(f"openvino {ov.get_version()}, numpy {np.__version__}; Python {platform.python_version()}, {platform.platform()}")
quieted = {}
for name, element, bits in [("float16", ov.Type.f16, np.array([0x7C01, 0x3C00], np.uint16)),
                            ("bfloat16", ov.Type.bf16, np.array([0x7F81, 0x3F80], np.uint16)),
                            ("float32 (for comparison)", ov.Type.f32, np.array([0x7F800001, 0x3F800000], np.uint32))]:
    try:
        data = op.parameter([2], element)
        node = op.topk(data, op.constant(np.int64(2)), 0, "max", "value", "i32", stable=True)
        request = ov.Core().compile_model(ov.Model(node.outputs(), [data]), "CPU").create_infer_request()
        request.infer([ov.Tensor(bits, [2], element)])  # the tensor reads the bits as they are
        got = np.array(request.get_output_tensor(0).data).view(bits.dtype)
    except Exception as error:
        print(f"{name}: not run here ({type(error).__name__}: {error})")
        continue
    print(f"{name} X bits {[hex(b) for b in bits]} (a signalling NaN, 1.0), K = 2, mode=max")
    print(f"  expected the same bits (the NaN first or last); OpenVINO gives {[hex(b) for b in got]}")
    quieted[name] = sorted(got.tolist()) != sorted(bits.tolist())
if "float16" not in quieted and "bfloat16" not in quieted:
    print("CANNOT RUN: this openvino can build or run neither float16 nor bfloat16 TopK-11")
    sys.exit(2)
hit = quieted.get("float16") or quieted.get("bfloat16")
print("REPRODUCED" if hit else "NOT REPRODUCED")
sys.exit(0 if hit else 1)
