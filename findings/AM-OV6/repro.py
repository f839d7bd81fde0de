"""OpenVINO's CPU plugin runs ONNX ArgMax and ArgMin over an empty axis (float32 of shape [2, 0] over axis 1) and
returns indices it never wrote (uninitialized memory: [0, 0] in a fresh process here, values such as [1342227648,
32514] in a longer-running one; [-1, -1] with select_last_index=1), indices into an empty axis, instead of an
error. The ONNX frontend lowers ArgMax/ArgMin to TopK-11 with k = 1, and over an axis of size 0 that k is above the
axis. ONNX ArgMax-11 and ArgMin-11 say "The input tensor must not be empty"; ArgMax/ArgMin-1, -12 and -13 say
nothing on an empty input, and no index exists in an empty axis. ONNX Runtime and onnx's reference evaluator raise
an error on the same model. Each model runs in a child process (this script again), in case one crashes. Needs
openvino, onnx (to build the model) and numpy. Prints the versions, then per model the expected answer and
OpenVINO's; the last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import platform
import subprocess
import sys

try:
    import numpy as np
    import onnx
    import openvino as ov
    from onnx import TensorProto, helper
except ImportError as error:
    print(f"CANNOT RUN: {error}")
    sys.exit(2)

if len(sys.argv) == 4:  # the child process: one model, its indices on stdout (an error ends it with status 1)
    op, opset, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    extra = {"select_last_index": last} if opset >= 12 else {}
    node = helper.make_node(op, ["X"], ["I"], axis=1, keepdims=0, **extra)
    graph = helper.make_graph([node], "arg", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 0])],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version={11: 6, 13: 7}[opset])
    compiled = ov.Core().compile_model(ov.Core().read_model(model.SerializeToString()), "CPU")
    print(np.asarray(compiled([np.zeros((2, 0), np.float32)])[0]).tolist())
    sys.exit(0)
print(f"openvino {ov.__version__}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
wrong = False
for op in ("ArgMax", "ArgMin"):
    for opset, last in ((11, 0), (13, 0), (13, 1)):
        run = subprocess.run([sys.executable, __file__, op, str(opset), str(last)], capture_output=True, text=True)
        returned = run.returncode == 0 and bool(run.stdout.strip())
        got = (f"indices {run.stdout.strip()}" if returned else f"the child process died (status {run.returncode})"
               if run.returncode < 0 else f"an error: {(run.stderr.strip().splitlines() or [''])[-1][:160]}")
        wrong = wrong or returned
        print(f"{op}-{opset} float32 of shape [2, 0] over axis 1{', select_last_index=1' * last}: expected an error "
              f"({'the input must not be empty' if opset == 11 else 'no index exists in an empty axis'}); "
              f"OpenVINO: {got}{'  <- wrong' * returned}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
