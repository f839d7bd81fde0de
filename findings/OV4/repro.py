"""OpenVINO's CPU plugin computes float64 TopK in float32, which changes the values it returns
and the order it finds: inf comes back as 3.4028234663852886e+38, the smallest normal float64
2.2250738585072014e-308 as 0.0 (then tied with 0.0), -1.7976931348623157e+308 as -3.4e+38 (so
mode=min picks it over -inf), and a NaN's payload is dropped. OpenVINO TopK-11: "T: any numeric
type", and output 1 is "Output tensor of type T with k values from the input tensor along a
specified axis". An opset11.topk, stable=false, K a constant. Needs openvino, numpy. Prints the
versions, then per input the specification's answer and OpenVINO's; the last line is
REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
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
nan_payload = np.array([0x7FF8000000000001], np.uint64).view(np.float64)[0]  # a quiet NaN with payload 1
wrong = False
for row, k, mode, want in [([np.inf], 1, "max", [0]), ([-np.inf], 1, "max", [0]), ([1e300, np.inf], 2, "max", [1, 0]),
                           ([0.0, 2.2250738585072014e-308], 2, "max", [1, 0]),
                           ([-1.7976931348623157e+308, -np.inf], 1, "min", [1]),
                           ([1.0, nan_payload], 2, "max", None)]:  # None: NaN's place is free, its bits are not
    x = np.array(row, np.float64)
    try:
        data = op.parameter([len(row)], ov.Type.f64)
        node = op.topk(data, op.constant(np.int64(k)), 0, mode, "value", "i32", stable=False)
        values, indices = ov.Core().compile_model(ov.Model(node.outputs(), [data]), "CPU")([x]).values()
    except Exception as error:
        print(f"CANNOT RUN: this openvino cannot build or run float64 TopK-11 ({type(error).__name__}: {error})")
        sys.exit(2)
    bits, in_bits = ([hex(b) for b in a.view(np.uint64)] for a in (values, x))
    print(f"float64 X {x.tolist()}, K = {k}, mode={mode}")
    if want is None:
        print(f"  expected the bits of X {in_bits} (the NaN first or last); OpenVINO gives bits {bits}")
    else:
        print(f"  expected values {x[want].tolist()}, indices {want}; "
              f"OpenVINO gives {values.tolist()}, {indices.tolist()}")
    wrong |= bits != [hex(b) for b in x[indices].view(np.uint64)] or want not in (None, indices.tolist())
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
