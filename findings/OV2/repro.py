"""OpenVINO's TopK-11 (opset11.topk) with mode=max, sort=index and stable=true selects the wrong tied
elements on the CPU plugin. On a float32 row of 31 values in {0, 1, 2, 3} with K = 9 (a
constant), the answer is the six 3s plus the first three 2s (indices 1, 2, 3), listed by index;
OpenVINO takes later 2s instead. OpenVINO TopK-11: stable "Specifies whether the equivalent
elements should maintain their relative order from the input tensor", and "sort = value,
mode = max, stable = true - descending by value, relative order of equal elements guaranteed to
be maintained". Needs openvino, numpy. Prints the versions, the input, the specification's
answer and OpenVINO's; the last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or
CANNOT RUN: why (exit 2)."""
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
x = np.array([[1, 2, 2, 2, 2, 2, 1, 3, 1, 1, 0, 2, 0, 1, 2, 0, 1, 3, 1, 3, 0, 2, 0, 3, 2, 3, 2, 1, 1, 1, 3]],
             np.float32)
k = 9
try:
    data = op.parameter(list(x.shape), ov.Type.f32)
    node = op.topk(data, op.constant(np.int64(k)), axis=-1, mode="max", sort="index", index_element_type="i32",
                   stable=True)
    indices = ov.Core().compile_model(ov.Model(node.outputs(), [data]), "CPU")([x])[1][0].tolist()
except Exception as error:
    print(f"CANNOT RUN: this openvino cannot build or run TopK-11 stable=true ({type(error).__name__}: {error})")
    sys.exit(2)
want = sorted(np.argsort(-x[0], kind="stable")[:k].tolist())  # the K largest, ties in input order, by index
print(f"input X {x[0].astype(int).tolist()} float32, K = {k} (constant), TopK-11 mode=max sort=index stable=true")
print(f"the specification defines: indices {want}")
print(f"OpenVINO gives:            indices {indices} (values {x[0][indices].astype(int).tolist()})")
print("REPRODUCED" if indices != want else "NOT REPRODUCED")
sys.exit(0 if indices != want else 1)
