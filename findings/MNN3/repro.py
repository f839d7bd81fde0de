"""MNN's TopK does not break ties by index: among equal values it returns a higher index before a
lower one, and where K cuts a run of equal values it may keep a higher index and drop a lower
one. ONNX's TopK: "Given two equivalent values, this operator uses the indices along the axis as
a tiebreaker. That is, the element with the lower index will appear first." MNN's CPU kernel
(source/backend/cpu/CPUTopKV2.cpp, findTopK) runs std::partial_sort with a comparator of the
values alone, which keeps no order among equal ones.

The ONNX TopK-11 model (axis -1, K a constant) is built with onnx's parser, converted by MNN's
converter called in-process (not the `mnnconvert` console script) and run with
MNN.nn.load_module_from_file. MNN returns int32 indices (its converter makes int64 int32); only
their values are compared here. Needs mnn, onnx, numpy. The last line is REPRODUCED (exit 0),
NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import os
import platform
import sys
import tempfile

try:
    import _tools  # MNN's converter, shipped in the mnn wheel
    import MNN
    import numpy as np
    import onnx
except Exception as error:  # a module missing, or a build that cannot load here
    print(f"CANNOT RUN: a module is missing or cannot load ({type(error).__name__}: {error})")
    sys.exit(2)


def topk_mnn(x, k, largest):
    """ONNX TopK-11 of float32 x (one row) through MNN's converter (its log silenced) and MNN."""
    model = onnx.parser.parse_model(f"""<ir_version: 6, opset_import: ["" : 11]>
        topk (float[1, {x.size}] X) => (float[1, {k}] V, int64[1, {k}] I) <int64[1] K = {{{k}}}>
        {{ V, I = TopK <axis = -1, largest = {largest}, sorted = 1> (X, K) }}""")
    with tempfile.TemporaryDirectory() as folder:
        source, converted = os.path.join(folder, "m.onnx"), os.path.join(folder, "m.mnn")
        onnx.save(model, source)
        sys.stdout.flush()
        saved = os.dup(1)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        _tools.mnnconvert(["mnnconvert", "-f", "ONNX", "--modelFile", source, "--MNNModel", converted,
                           "--bizCode", "repro"])
        os.dup2(saved, 1)
        module = MNN.nn.load_module_from_file(converted, ["X"], ["V", "I"])
    values, indices = module.forward([MNN.expr.const(x.reshape(1, -1), [1, x.size], MNN.expr.NCHW, MNN.expr.float)])
    return np.array(values.read()).ravel().tolist(), np.array(indices.read()).ravel().tolist()


print(f"mnn {MNN.version()}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
wrong = False
for data, k, largest in [([3, 5, 1, 5, 5, 0], 3, 1), ([2, 0, 1, 0, 1, 2, 1], 3, 1), ([2, 2, 1, 1, 1, 2, 0], 3, 0)]:
    x = np.array(data, np.float32)
    want = sorted(range(x.size), key=lambda i: (-x[i] if largest else x[i], i))[:k]  # ties: lower index first
    values, indices = topk_mnn(x, k, largest)
    wrong = wrong or indices != want
    print(f"TopK-11, K = {k}, largest = {largest}, float32 X = {data}\n  ONNX defines: values "
          f"{x[want].tolist()}, indices {want}\n  MNN gives:    values {values}, indices {indices}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
