"""OpenVINO's CPU plugin flushes bfloat16 subnormals to zero in TopK's output values on CPUs
with AVX512_BF16, while the order is computed on the true values: bfloat16 [0.0,
9.183549615799121e-41] (bits 0x0000, 0x0001), K = 2, mode=max, gives values [0.0, 0.0] with
indices [1, 0]. CPUs with AVX2 and no AVX512_BF16 keep the bits. OpenVINO TopK-11: output 1 is
"Output tensor of type T with k values from the input tensor along a specified axis"; T is "any
numeric type". Runs an opset11.topk (stable=false, K a constant) and an ONNX TopK-24 model
through the ONNX frontend; prints the CPU and whether it has AVX512_BF16. Needs openvino, onnx
(only to build the ONNX model), numpy. The last line is REPRODUCED (exit 0), NOT REPRODUCED
(exit 1) or CANNOT RUN: why (exit 2)."""
import platform
import sys
from pathlib import Path

try:
    import numpy as np
    import onnx
    import openvino as ov
    op = getattr(ov, "opset11", None) or ov.runtime.opset11  # before 2025.0: openvino.runtime.opset11
except Exception as error:  # a module missing, or a build that cannot load here
    print(f"CANNOT RUN: a module is missing or cannot load ({type(error).__name__}: {error})")
    sys.exit(2)


def topk_model(through_onnx):
    """bfloat16 X of 2, K = 2 (a constant), mode max: ONNX TopK-24 read by the ONNX frontend, or
    OpenVINO's own TopK-11 (stable=false)."""
    if through_onnx:  # at the lowest IR version for opset 24
        return ov.Core().read_model(onnx.parser.parse_model("""<ir_version: 12, opset_import: ["" : 24]>
            topk (bfloat16[2] X) => (bfloat16[2] V, int64[2] I) <int64[1] K = {2}> { V, I = TopK (X, K) }
            """).SerializeToString())
    data = op.parameter([2], ov.Type.bf16)
    return ov.Model(op.topk(data, op.constant(np.int64(2)), 0, "max", "value", "i32", stable=False).outputs(), [data])


cpu = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""  # Linux: the CPU's name and flags
name = cpu.partition("model name")[2].partition(":")[2].splitlines()[0].strip() if cpu else platform.processor()
print(f"openvino {ov.get_version()}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
print(f"CPU: {name}; AVX512_BF16: {'avx512_bf16' in cpu.split() if cpu else 'unknown'}")
x, flushed = np.array([0x0000, 0x0001], np.uint16), []  # bfloat16 0.0 and 9.183549615799121e-41 as bits
for label in ("opset11.topk", "ONNX TopK-24 through the ONNX frontend"):
    try:
        request = ov.Core().compile_model(topk_model(label.startswith("ONNX")), "CPU").create_infer_request()
        request.infer([ov.Tensor(x, [2], ov.Type.bf16)])
    except Exception as error:
        print(f"CANNOT RUN: this openvino cannot build or run the {label} ({type(error).__name__}: {error})")
        sys.exit(2)
    values, indices = np.array(request.get_output_tensor(0).data).view(np.uint16), request.get_output_tensor(1).data
    print(f"{label}: bfloat16 X bits ['0x0', '0x1'], K = 2, max")
    print(f"  expected value bits ['0x1', '0x0'], indices [1, 0]; OpenVINO gives {[hex(b) for b in values]}, "
          f"{indices.tolist()}")
    flushed.append(values.tolist() != [1, 0])
print("REPRODUCED" if any(flushed) else "NOT REPRODUCED")
sys.exit(0 if any(flushed) else 1)
