"""tract does not check ONNX Hardmax's axis against the input's rank. Hardmax-11 with axis = rank (2,
on a float32 X of shape [2, 3]) runs and gives all ones (the 2-D coercion makes rows of one element;
Hardmax-1, which states no range, likewise); any other axis out of range (Hardmax-13 axis 2,
Hardmax-11 axis 5 or -3) panics in hir/src/ops/nn/layer_max.rs (LayerHardmax::wire indexes the shape
with the unchecked axis), and the panic aborts the process (SIGABRT). ONNX: the axis' "Accepted
range is [-r, r-1] where r = rank(input)"; onnx's shape inference refuses axis 2. Needs tract, onnx
and numpy; writes model.onnx in the current folder; each input runs in a child process (this script,
given the input's number). Prints the versions, then per input the input, the answer expected and
tract's; the last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2).
Do not name it tract.py (it would shadow the tract package)."""
import platform
import subprocess
import sys

try:
    import numpy as np
    import onnx
    import tract
    from onnx import helper
except Exception as error:  # a module missing, or a build that cannot load here
    print(f"CANNOT RUN: a module is missing or cannot load ({type(error).__name__}: {error})")
    sys.exit(2)
NEW = hasattr(tract, "Tensor")  # tract's Python API from 0.23 on: load and into_model


def run(opset, axis, x):
    """ONNX Hardmax over float32 x, run by tract: its output as a list (tract's errors raise)."""
    graph = helper.make_graph([helper.make_node("Hardmax", ["X"], ["Y"], axis=axis)], "hardmax",
                              [helper.make_tensor_value_info("X", 1, x.shape)],  # 1: float32
                              [helper.make_empty_tensor_value_info("Y")])
    ops = [helper.make_opsetid("", opset)]  # with the lowest IR version it allows, so that older releases load it
    onnx.save(helper.make_model(graph, opset_imports=ops, ir_version=helper.find_min_ir_version_for(ops)), "model.onnx")
    model = tract.onnx().load("model.onnx") if NEW else tract.onnx().model_for_path("model.onnx")
    return (model.into_model() if NEW else model.into_optimized()).into_runnable().run([x])[0].to_numpy().tolist()


ROWS = [(11, 1), (11, 2), (13, 2), (11, 5), (11, -3)]  # opset, axis; the first, in range, must run
if sys.argv[1:]:  # a child process: one input; a panic aborts only the child
    print(run(*ROWS[int(sys.argv[1])], np.float32([[1, 2, 3], [4, 5, 6]])))
    sys.exit()
print(f"tract {tract.version()}, onnx {onnx.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
      f"{platform.platform()}")
wrong = 0
for row, (opset, axis) in enumerate(ROWS):
    done = subprocess.run([sys.executable, __file__, str(row)], capture_output=True, text=True)
    # what the child printed; else tract's panic, or its error, less the stack backtrace (RUST_BACKTRACE=1)
    said = " ".join(done.stderr.replace("Stack", "stack").split("stack backtrace")[0].split("TractError:")[-1].split())
    print(f"Hardmax-{opset}, axis {axis}, float32 X [[1, 2, 3], [4, 5, 6]] (rank 2): expected "
          f"{'[[0, 0, 1], [0, 0, 1]]' if row == 0 else 'an error (axis out of range)'}; "
          f"tract, in a child process: {done.stdout.strip() or f'exit status {done.returncode}: {said}'}")
    if row == 0 and done.returncode:
        print("CANNOT RUN: this tract does not run ONNX Hardmax-11")
        sys.exit(2)
    wrong += row > 0 and (done.returncode == 0 or done.returncode < 0)  # an output, or the process killed
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
