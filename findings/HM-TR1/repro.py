"""tract aborts the process (SIGABRT) on ONNX Hardmax over a dimension of size 0, e.g. Hardmax-13 axis
1 of a float32 X of shape [3, 0] (Hardmax-1 and -11 likewise, and X of shape [0] axis 0): tract
lowers Hardmax to ArgMax + OneHot, the ArgMax of an empty row is 0, and OneHot of depth 0 writes
there ("ndarray: index out of bounds" in core/src/ops/array/one_hot.rs, eval_t); the panic cannot
unwind across tract's C API. ONNX: the output has the input's shape, here an empty [3, 0]. Needs
tract, onnx and numpy; writes model.onnx in the current folder; each input runs in a child process
(this script, given the input's number). Prints the versions, then per input the input, the answer
expected and tract's; the last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN:
why (exit 2). Do not name it tract.py (it would shadow the tract package)."""
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
    model.set_input_fact(0, ",".join(map(str, [*x.shape, "f32"])))  # tract 0.19 reads a 0 in a shape as unknown
    return (model.into_model() if NEW else model.into_optimized()).into_runnable().run([x])[0].to_numpy().tolist()


ROWS = [(13, 1, [3, 0]), (11, 1, [3, 0]), (1, 1, [3, 0]), (13, 0, [0])]  # opset, axis, X's shape
if sys.argv[1:]:  # a child process: one input; a panic aborts only the child
    opset, axis, shape = ROWS[int(sys.argv[1])]
    print(run(opset, axis, np.zeros(shape, np.float32)))
    sys.exit()
print(f"tract {tract.version()}, onnx {onnx.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
      f"{platform.platform()}")
died = 0
for row, (opset, axis, shape) in enumerate(ROWS):
    done = subprocess.run([sys.executable, __file__, str(row)], capture_output=True, text=True)
    # what the child printed; else tract's panic, or its error, less the stack backtrace (RUST_BACKTRACE=1)
    said = " ".join(done.stderr.replace("Stack", "stack").split("stack backtrace")[0].split("TractError:")[-1].split())
    print(f"Hardmax-{opset}, axis {axis}, float32 X of shape {shape}: expected an empty output of shape {shape}; "
          f"tract, in a child process: {done.stdout.strip() or f'exit status {done.returncode}: {said}'}")
    died += done.returncode < 0
print("REPRODUCED" if died else "NOT REPRODUCED")
sys.exit(0 if died else 1)
