"""tinygrad's ONNX runner keeps the K of TopK from its first call: a TopK-11 model whose K is a graph
input, run once with K = 2, answers the next calls with K = 3 and K = 1 with the same two elements,
silently. A runner is made once per model and called once per input, so a model whose K is an
input gives every later call the first call's K.

Needs tinygrad (its CPU device: clang on PATH), onnx (only to build the model) and numpy. The last
line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import os
import platform
import sys
from importlib.metadata import version

os.environ.setdefault("DEV", "CPU")  # tinygrad's clang-compiled C backend; read as tinygrad loads
try:
    import numpy as np
    import onnx
    from tinygrad.tensor import Tensor
    try:
        from tinygrad.nn.onnx import OnnxRunner
    except ImportError:  # tinygrad 0.11
        from tinygrad.frontend.onnx import OnnxRunner
except Exception as error:  # a module missing, or a release without an ONNX runner
    print(f"CANNOT RUN: {type(error).__name__}: {error}")
    sys.exit(2)

print(f"tinygrad {version('tinygrad')}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
model = onnx.parser.parse_model("""<ir_version: 6, opset_import: ["" : 11]>
    topk (float[4] X, int64[1] K) => (float[k] V, int64[k] I) { V, I = TopK (X, K) }""")
runner = OnnxRunner(Tensor(model.SerializeToString()))
x = np.array([4, 1, 3, 2], np.float32)
wrong = False
for k in (2, 3, 1):  # one runner, called three times, as a user runs a loaded model
    out = runner({"X": Tensor(x), "K": Tensor(np.array([k], np.int64))})
    values, indices = out["V"].numpy().tolist(), out["I"].numpy().tolist()
    want = (np.sort(x)[::-1][:k].tolist(), np.argsort(-x, kind="stable")[:k].tolist())
    wrong = wrong or (values, indices) != want
    print(f"TopK-11 float32 {x.tolist()}, K = [{k}] (a graph input), largest: ONNX values {want[0]}, "
          f"indices {want[1]}; tinygrad values {values}, indices {indices}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
