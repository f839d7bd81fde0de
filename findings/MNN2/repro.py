"""MNN's TopK does not refuse a K larger than the axis: on float32 X = [[3, 1, 2]] with K = 4 or 6
it returns K elements, those past the third read from memory outside the input (values that are
not X's, indices such as 21894), or the process dies (SIGSEGV, or glibc aborts it on a corrupted
heap: "free(): invalid next size (fast)", "malloc(): invalid size (unsorted)"); which one varies
from run to run. ONNX's TopK returns the top K elements of the axis, and there are 3; ONNX's shape
inference and ONNX Runtime refuse such a K ("Axis has less than the requested k elements.").
In MNN's CPU kernel (source/backend/cpu/CPUTopKV2.cpp) the only check is MNN_ASSERT(k <= rowSize),
which release builds compile out, and std::partial_sort then runs past the end of its buffer.

The ONNX TopK-11 model (K a graph input) is converted by MNN's converter called in-process (not the
`mnnconvert` console script) and run in a child process (this script run again with K as its
argument), so that a crash can be reported. MNN returns int32 indices (its converter makes int64
int32). Needs mnn, onnx, numpy. The last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or
CANNOT RUN: why (exit 2)."""
import os
import platform
import subprocess
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

X = np.array([[3, 1, 2]], np.float32)
if len(sys.argv) > 1:  # the child: TopK-11 (axis -1, largest) of X with K = argv[1]
    model = onnx.parser.parse_model("""<ir_version: 6, opset_import: ["" : 11]>
        topk (float[1, 3] X, int64[1] K) => (float[1, k] V, int64[1, k] I) { V, I = TopK (X, K) }""")
    onnx.save(model, "m.onnx")
    _tools.mnnconvert(["mnnconvert", "-f", "ONNX", "--modelFile", "m.onnx", "--MNNModel", "m.mnn", "--bizCode", "repro"])
    module = MNN.nn.load_module_from_file("m.mnn", ["X", "K"], ["V", "I"])
    feeds = [MNN.expr.const(X, [1, 3], MNN.expr.NCHW, MNN.expr.float),
             MNN.expr.const(np.array([int(sys.argv[1])], np.int32), [1], MNN.expr.NCHW, MNN.expr.int)]
    values, indices = (np.array(out.read()) for out in module.forward(feeds))
    print(f"outputs: values {values.tolist()}, indices {indices.tolist()}")
    sys.exit(0)

print(f"mnn {MNN.version()}, onnx {onnx.__version__}, numpy {np.__version__}; Python {platform.python_version()}, {platform.platform()}")
wrong = False
for k in (4, 6):
    with tempfile.TemporaryDirectory() as folder:  # the child writes the models there; removed even if it dies
        child = subprocess.run([sys.executable, os.path.abspath(__file__), str(k)], cwd=folder, capture_output=True,
                               text=True, errors="replace")
    said = [line for line in (child.stdout + child.stderr).splitlines()
            if line.startswith(("outputs:", "free(", "malloc(", "corrupted", "double free")) or "Error" in line]
    died = f"killed by signal {-child.returncode}; " if child.returncode < 0 else ""
    wrong = wrong or bool(died) or any(line.startswith("outputs:") for line in said)
    print(f"TopK-11, axis -1, largest, float32 X = {X.tolist()}, K = [{k}] (a graph input)\n"
          f"  ONNX: the top {k} of 3 elements do not exist (ONNX Runtime: an error)\n"
          f"  MNN:  {died}{said[-1] if said else 'nothing printed'}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
