"""OpenVINO's CPU plugin takes time proportional to n*K for TopK-11 with stable=true: on a
float32 row of 2**19 values (0, 1, 2 repeating), K = 1000, mode max, sort value, one inference
with stable=true takes seconds where stable=false takes milliseconds, and K = 250 takes about a
quarter of the K = 1000 time. No document promises a time (OpenVINO TopK-11: stable "makes the
implementation use stable sorting algorithm during the computation of TopK elements"), but a
stable selection of K of n needs only O(n log K). The verdict is the ratio of the two times,
measured in the same run with each model compiled beforehand: a ratio above 20 counts as the
finding (idle machines give several hundred to several thousand). Against a busy machine, the
stable=false time is the fastest of 20 runs, which stays near the idle time, while a slowed
stable=true run can only raise the ratio. Needs openvino, numpy. The last line is REPRODUCED (exit 0),
NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import platform
import sys
import time

try:
    import numpy as np
    import openvino as ov
    op = getattr(ov, "opset11", None) or ov.runtime.opset11  # before 2025.0: openvino.runtime.opset11
except Exception as error:  # a module missing, or a build that cannot load here
    print(f"CANNOT RUN: a module is missing or cannot load ({type(error).__name__}: {error})")
    sys.exit(2)


def seconds(k, stable, runs):
    """The fastest of `runs` inferences of TopK-11 (K a constant) on x, and the indices it gives."""
    data = op.parameter([len(x)], np.float32)
    node = op.topk(data, op.constant(np.int64(k)), 0, "max", "value", "i32", stable)
    request = ov.Core().compile_model(ov.Model(node.outputs(), [data]), "CPU").create_infer_request()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        request.infer([x])
        times.append(time.perf_counter() - started)
    return min(times), np.array(request.get_output_tensor(1).data)


print(f"openvino {ov.get_version()}, numpy {np.__version__}; Python {platform.python_version()}, {platform.platform()}")
x, k = (np.arange(2**19) % 3).astype(np.float32), 1000
try:
    fast, _ = seconds(k, False, 20)
    slow, indices = seconds(k, True, 1)
    quarter, _ = seconds(k // 4, True, 1)
except Exception as error:
    print(f"CANNOT RUN: this openvino cannot build or run TopK-11 with stable ({type(error).__name__}: {error})")
    sys.exit(2)
ratio = slow / max(fast, 1e-6)
print(f"float32 row of {len(x)} values (0, 1, 2 repeating), K = {k} (a constant), mode max, sort value")
print("  expected no promised time; a stable selection costs O(n log K), so stable=true near stable=false")
print(f"  OpenVINO: stable=true {slow:.3f} s, stable=false {fast:.4f} s (ratio {ratio:.0f}); stable=true with "
      f"K = {k // 4}: {quarter:.3f} s ({quarter / slow:.2f} of it); the indices are right: "
      f"{indices.tolist() == np.flatnonzero(x == 2)[:k].tolist()}")
print("REPRODUCED" if ratio > 20 else "NOT REPRODUCED")
sys.exit(0 if ratio > 20 else 1)
