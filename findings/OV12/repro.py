"""OpenVINO's CPU plugin picks another element than the first of tied maxima for TopK with K = 1
on AVX2 CPUs: float32 [3, 9, 1, 9, 9, 0, 2, 9], K = 1 (a constant), mode max, gives index 4 on
an AVX2 CPU and index 1 on an AVX-512 CPU. This breaks ONNX TopK's "Given two equivalent values,
this operator uses the indices along the axis as a tiebreaker. That is, the element with the
lower index will appear first" for an ONNX TopK-11 model read by the ONNX frontend (which builds
a TopK with stable=false); an opset11.topk with stable=false, which leaves the order of ties
free, answers the same, and stable=true (a control) answers index 1. It prints the CPU and the
instruction sets this process sees. On an AVX-512 machine the AVX2 answer shows under QEMU's
emulated CPU: `qemu-x86_64 -cpu max python repro.py`. Needs openvino, onnx (only to build the
ONNX model), numpy. The last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or
CANNOT RUN: why (exit 2)."""
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


def native(stable):
    """OpenVINO's own TopK-11 of a float32 [1, 8], K = 1 (a constant), mode max."""
    data = op.parameter([1, 8], np.float32)
    return ov.Model(op.topk(data, op.constant(np.int64(1)), -1, "max", "value", "i32", stable).outputs(), [data])


cpu = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""  # Linux (under QEMU: the host's)
seen = (getattr(np, "_core", None) or np.core)._multiarray_umath.__cpu_features__  # what CPUID says in this process
name = cpu.partition("model name")[2].partition(":")[2].splitlines()[0].strip() if cpu else platform.processor()
print(f"openvino {ov.get_version()}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
print(f"CPU: {name}; this process sees {[f for f in ('AVX2', 'AVX512F', 'AVX512BW', 'AVX512VL') if seen.get(f)]}")
x = np.array([[3, 9, 1, 9, 9, 0, 2, 9]], np.float32)
onnx_model = onnx.parser.parse_model("""<ir_version: 6, opset_import: ["" : 11]> topk (float[1,8] X) => (float[1,1] V,
    int64[1,1] I) <int64[1] K = {1}> { V, I = TopK (X, K) }""")  # ONNX TopK-11, K an initializer, the lowest IR
print(f"float32 X {x[0].tolist()}, K = 1 (a constant), mode max\n  expected index [1] (the first 9)")
answers = []
for label, model, config in [
        ("ONNX TopK-11 through the ONNX frontend", lambda: ov.Core().read_model(onnx_model.SerializeToString()), {}),
        ("opset11.topk stable=false", lambda: native(False), {"INFERENCE_PRECISION_HINT": "f32"}),
        ("opset11.topk stable=true (a control)", lambda: native(True), {"INFERENCE_PRECISION_HINT": "f32"})]:
    try:
        answers.append(ov.Core().compile_model(model(), "CPU", config)([x])[1][0].tolist())
    except Exception as error:
        print(f"CANNOT RUN: this openvino cannot build or run the {label} ({type(error).__name__}: {error})")
        sys.exit(2)
    print(f"  {label}: OpenVINO gives index {answers[-1]}")
hit = answers[0] != [1] or answers[1] != [1]
print("REPRODUCED" if hit else "NOT REPRODUCED")
sys.exit(0 if hit else 1)
