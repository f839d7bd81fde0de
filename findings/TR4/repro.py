"""tract aborts the process (SIGABRT) on ONNX TopK-11 whose K is the constant -1: typing the graph, it
writes K into the output shape, asserts that no dimension is negative and panics ("assertion failed:
self.dims.iter().all(|d| ...)" at core/src/model/fact.rs), and the panic cannot unwind across
tract's C API. K = -1 as a graph input is a clean error on tract 0.23 (0.21 and 0.22 abort there
too). ONNX: K is "a single positive value". Needs tract, onnx and numpy; writes model.onnx in the
current folder; each K = -1 runs in a child process (this script, given an argument). Prints the
versions, then per input the input, the answer ONNX defines and tract's; the last line is REPRODUCED
(exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2). Do not name it tract.py (it would
shadow tract)."""
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
NEW = hasattr(tract, "Tensor")  # tract's Python API from 0.23 on: load, into_model, outputs of their own type


def run(k, constant):
    """ONNX TopK-11 (axis 0, largest) of float32 [1, 2], K = k a graph input or a constant (an initializer),
    run by tract: its outputs as lists, or its error."""
    # X float32 [2] (ONNX element type 1), K int64 [1] (element type 7): a graph input, or a constant.
    inputs = [helper.make_tensor_value_info("X", 1, [2]), helper.make_tensor_value_info("K", 7, [1])][:2 - constant]
    graph = helper.make_graph([helper.make_node("TopK", ["X", "K"], ["values", "indices"], axis=0)], "topk", inputs,
                              [helper.make_empty_tensor_value_info(name) for name in ("values", "indices")],
                              [helper.make_tensor("K", 7, [1], [k])] if constant else [])
    # ir_version 6, the lowest opset 11 allows, so that older releases load the model.
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], ir_version=6), "model.onnx")
    try:
        model = tract.onnx().load("model.onnx") if NEW else tract.onnx().model_for_path("model.onnx")
        model = (model.into_model() if NEW else model.into_optimized()).into_runnable()
        return [out.to_numpy().tolist() for out in model.run([np.float32([1, 2]), np.int64([k])][:2 - constant])]
    except tract.TractError as error:  # its message, less the backtrace that RUST_BACKTRACE=1 adds
        return "error: " + " ".join(str(error).split("Stack backtrace")[0].split())


if sys.argv[1:]:  # a child process: K = -1 a graph input or a constant; its panic aborts only the child
    print(run(-1, sys.argv[1] == "constant"))
    sys.exit()
print(f"tract {tract.version()}, onnx {onnx.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
      f"{platform.platform()}")
# K = 1 must run (only the values are compared: tract's bindings before 0.23 read the int64 indices as float32).
if (got := run(1, True))[0] != [2]:
    print(f"CANNOT RUN: this tract does not run ONNX TopK-11 with K = 1 a constant (values [2] expected): {got}")
    sys.exit(2)
for k_is in ("a graph input", "a constant"):
    done = subprocess.run([sys.executable, __file__, k_is.split()[-1]], capture_output=True, text=True)
    panic = " ".join(done.stderr.split("stack backtrace")[0].split())  # where it panicked, and its message
    print(f"TopK-11, K = -1 {k_is}, float32 X [1, 2], in a child process: expected an error (K must be positive); "
          f"tract: {done.stdout.strip() or f'the process dies (exit status {done.returncode}): {panic}'}")
print("REPRODUCED" if done.returncode else "NOT REPRODUCED")  # when K = -1 as a constant (the last) killed the child
sys.exit(0 if done.returncode else 1)
