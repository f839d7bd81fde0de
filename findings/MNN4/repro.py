"""MNN's TopK on uint8 returns memory it never wrote: indices outside the axis (e.g. -1082842367,
32512) and values that are not the input's, with no error. ONNX TopK-11 takes uint8 ("T" includes
tensor(uint8)), and MNN's converter keeps the input uint8. MNN's CPU kernel
(source/backend/cpu/CPUTopKV2.cpp) handles float and int32 only: for any other type it prints
"TopKV2 data type not supported" (K = 1) or "TODO" (K > 1) on stdout, calls MNN_ASSERT(false),
which release builds compile out, and returns NO_ERROR without writing its outputs.

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


def topk_mnn(x, k):
    """ONNX TopK-11 (largest) of a uint8 x through MNN's converter (its log silenced) and MNN."""
    model = onnx.parser.parse_model(f"""<ir_version: 6, opset_import: ["" : 11]>
        topk (uint8[2, 5] X) => (uint8[2, {k}] V, int64[2, {k}] I) <int64[1] K = {{{k}}}>
        {{ V, I = TopK <axis = -1> (X, K) }}""")
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
    values, indices = module.forward([MNN.expr.const(x, [2, 5], MNN.expr.NCHW, MNN.expr.uint8)])
    return np.array(values.read()), np.array(indices.read())


print(f"mnn {MNN.version()}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
x = np.array([[3, 7, 1, 9, 4], [2, 8, 8, 0, 5]], np.uint8)
wrong = False
for k, want in [(1, [[3], [1]]), (2, [[3, 1], [1, 2]]), (3, [[3, 1, 4], [1, 2, 4]])]:
    values, indices = topk_mnn(x, k)
    wrong = wrong or indices.tolist() != want or values.tolist() != np.take_along_axis(x, np.array(want), 1).tolist()
    print(f"TopK-11, K = {k}, axis -1, largest, uint8 X = {x.tolist()}\n  ONNX defines: values "
          f"{np.take_along_axis(x, np.array(want), 1).tolist()}, indices {want}\n"
          f"  MNN gives:    values {values.tolist()}, indices {indices.tolist()}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
