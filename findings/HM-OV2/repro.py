"""OpenVINO's CPU plugin returns ONNX Hardmax over a zero-sized dimension with the wrong shape: Hardmax-13 axis 0
of float32 of shape [2, 0] gives a [2, 1] tensor of uninitialized memory ([2, 0, 3] gives [2, 1, 3]; Hardmax-1 and
-11 axis 0 of [0, 3] give [1, 3]), and Hardmax of a rank-1 [0] input, read from a file, kills the process (SIGSEGV).
ONNX Hardmax-13: the output has "the same shape as the input tensor" (Hardmax-1/-11: "the same shape as input
tensor (the original size without coercion)"). openvino 2024.0 gives the empty outputs. Each model is saved to a
file, read with read_model and run in a child process (this script again), so that a crash kills only the child.
Needs openvino, onnx (to build the models) and numpy. Prints the versions, then per input the shape the documents
give and OpenVINO's output; the last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why
(exit 2)."""
import json
import os
import platform
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    import openvino as ov
    from onnx import TensorProto, helper
except Exception as error:  # not installed, or an install that does not import
    print(f"CANNOT RUN: {type(error).__name__}: {error}")
    sys.exit(2)

if len(sys.argv) == 3:  # the child process: one model, read from a file; prints the output's shape and first values
    shape, opset = json.loads(sys.argv[1]), int(sys.argv[2])
    graph = helper.make_graph([helper.make_node("Hardmax", ["X"], ["Y"], axis=0)], "hardmax",
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)])
    path = os.path.join(tempfile.mkdtemp(), "hardmax.onnx")
    ir_version = {1: 3, 11: 6, 13: 7}[opset]  # the lowest each opset allows
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir_version), path)
    y = np.asarray(ov.Core().compile_model(ov.Core().read_model(path), "CPU")([np.zeros(shape, np.float32)])[0])
    print(json.dumps([list(y.shape), y.ravel()[:6].tolist()]))
    sys.exit(0)
print(f"openvino {ov.__version__}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
wrong = False
for shape, opset in (([2, 0], 13), ([2, 0, 3], 13), ([0, 3], 11), ([0, 3], 1), ([0], 13)):  # axis 0
    run = subprocess.run([sys.executable, __file__, json.dumps(shape), str(opset)], capture_output=True, text=True)
    if run.returncode > 0:  # an exception: this release cannot load or run the model
        print(f"CANNOT RUN: Hardmax-{opset} of {shape}: {(run.stderr.strip().splitlines() or [''])[-1][:200]}")
        sys.exit(2)
    got_shape, values = json.loads(run.stdout.strip().splitlines()[-1]) if run.returncode == 0 else (None, None)
    wrong = wrong or got_shape not in (None, shape)
    got = f"shape {got_shape}, values {values}" if got_shape else f"the process died of signal {-run.returncode}"
    print(f"Hardmax-{opset}, axis 0, float32 of shape {shape} (empty): documents shape {shape}; OpenVINO {got}"
          f"{'  <- wrong' * (got_shape != shape)}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
