"""OpenVINO's CPU plugin computes int64, uint64 and uint32 TopK in 32 bits: uint64
[0, 18446744073709551615] with K = 1, largest, selects 0 (through the ONNX frontend and in an
opset11.topk alike); int64 [9223372036854775807] comes back as -1; uint32 [0, 4294967295] selects 0.
OpenVINO TopK-11: "T: any numeric type", and output 1 is "Output tensor of type T with k values
from the input tensor along a specified axis". Needs openvino, onnx (only to build the ONNX
model), numpy. Prints the versions, then per input the documents' answer and OpenVINO's; the
last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import platform
import sys

try:
    import numpy as np
    import onnx
    import openvino as ov
    op = getattr(ov, "opset11", None) or ov.runtime.opset11  # before 2025.0: openvino.runtime.opset11
except Exception as error:  # a module missing, or a build that cannot load here
    print(f"CANNOT RUN: a module is missing or cannot load ({type(error).__name__}: {error})")
    sys.exit(2)


def topk_model(x, through_onnx):
    """TopK of x's last axis, K = 1 (a constant), largest: an ONNX TopK-11 model read by OpenVINO's
    ONNX frontend, or OpenVINO's own TopK-11 (stable=true)."""
    if through_onnx:  # only uint64 goes this way; the lowest IR version for opset 11
        return ov.Core().read_model(onnx.parser.parse_model("""<ir_version: 6, opset_import: ["" : 11]>
            topk (uint64[2] X) => (uint64[1] V, int64[1] I) <int64[1] K = {1}> { V, I = TopK (X, K) }
            """).SerializeToString())
    data = op.parameter(list(x.shape), ov.Type(x.dtype))
    node = op.topk(data, op.constant(np.int64(1)), -1, "max", "value", "i64", stable=True)
    return ov.Model(node.outputs(), [data])


print(f"openvino {ov.get_version()}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
wrong = []
for x, through_onnx in [(np.array([0, 2**64 - 1], np.uint64), True), (np.array([0, 2**64 - 1], np.uint64), False),
                        (np.array([2**63 - 1], np.int64), False), (np.array([0, 2**32 - 1], np.uint32), False)]:
    try:
        values, indices = ov.Core().compile_model(topk_model(x, through_onnx), "CPU")([x]).values()
    except Exception as error:
        print(f"CANNOT RUN: this openvino cannot build or run {x.dtype} TopK ({type(error).__name__}: {error})")
        sys.exit(2)
    want = int(x.argmax())
    label = "ONNX TopK-11 through the ONNX frontend" if through_onnx else "opset11.topk"
    print(f"{label}: {x.dtype} X {x.tolist()}, K = 1, largest")
    print(f"  expected values [{x[want]}], indices [{want}]; OpenVINO gives {values.tolist()}, {indices.tolist()}")
    wrong.append(values.tolist() != [x[want]] or indices.tolist() != [want])
print("REPRODUCED" if any(wrong) else "NOT REPRODUCED")
sys.exit(0 if any(wrong) else 1)
