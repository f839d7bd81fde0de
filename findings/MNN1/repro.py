"""MNN ignores ONNX ArgMax/ArgMin's select_last_index: with select_last_index = 1 (opsets 12 and 13)
the index of the first maximum (minimum) comes back, where ONNX wants the last. MNN's ONNX
converter reads the attribute and drops it (tools/converter/source/onnx/ArgMaxOnnx.cpp: "Ignored
for now. MNN argmax implementation does not support this yet."), and no error or warning says so.

The model is built with onnx's parser, converted by MNN's converter called in-process (not the
`mnnconvert` console script) and run with MNN.nn.load_module_from_file. MNN returns int32
indices (its converter makes int64 int32); only their values are compared here.

Needs mnn, onnx, numpy. The last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or
CANNOT RUN: why (exit 2)."""
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


def run_mnn(model, x):
    """Convert the ONNX model with MNN's converter (its log silenced) and run it on x."""
    with tempfile.TemporaryDirectory() as folder:
        source, converted = os.path.join(folder, "m.onnx"), os.path.join(folder, "m.mnn")
        onnx.save(model, source)
        sys.stdout.flush()
        saved = os.dup(1)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        _tools.mnnconvert(["mnnconvert", "-f", "ONNX", "--modelFile", source, "--MNNModel", converted,
                           "--bizCode", "repro"])
        os.dup2(saved, 1)
        module = MNN.nn.load_module_from_file(converted, ["X"], ["Y"])
        feed = MNN.expr.const(x, list(x.shape), MNN.expr.NCHW, MNN.expr.float)
        return np.array(module.forward([feed])[0].read())


print(f"mnn {MNN.version()}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
x = np.array([0, 0, 2, 3, 0, 0, 3, 2], np.float32)
wrong = False
for op, want in [("ArgMax", 6), ("ArgMin", 5)]:
    for opset in (12, 13):
        model = onnx.parser.parse_model(f"""<ir_version: 7, opset_import: ["" : {opset}]>
            arg (float[8] X) => (int64 Y) {{ Y = {op} <axis = 0, keepdims = 0, select_last_index = 1> (X) }}""")
        got = int(run_mnn(model, x).reshape(-1)[0])
        wrong = wrong or got != want
        print(f"{op}-{opset}, select_last_index 1, axis 0, keepdims 0, float32 X = {x.tolist()}\n"
              f"  ONNX defines: {want} (the last occurrence of the {op[3:].lower()})\n  MNN gives:    {got}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
