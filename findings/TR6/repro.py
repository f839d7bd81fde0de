"""tract aborts the process (SIGABRT) on ONNX TopK over a row of more than 20 elements that holds NaN:
its comparison calls NaN smaller than anything in both directions, which is no total order; Rust's
sort (since Rust 1.81) detects that on rows past 20 elements and panics ("user-provided comparison
function does not correctly implement a total order"), and the panic cannot unwind across tract's C
API. A row of 20 elements returns outputs. ONNX says nothing of NaN, but every placement of it gives
outputs. Each row runs in a child process (this script, given the row's length). Needs tract, onnx
and numpy; writes model.onnx in the current folder. Prints the versions, then per input the input,
the answer expected and tract's; the last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or
CANNOT RUN: why (exit 2). Do not name it tract.py (it would shadow the tract package)."""
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


def run(node, opset, inputs):
    """One ONNX node run by tract on inputs (name: array): its outputs as lists (tract's errors raise)."""
    # tract's bindings before 0.23 read every output as float32: there the graph casts its outputs to float32.
    casts = [] if NEW else [helper.make_node("Cast", [name], [name + "_f32"], to=1) for name in node.output]
    graph = helper.make_graph([node, *casts], "g", [helper.make_tensor_value_info(
        name, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape) for name, a in inputs.items()],
        [helper.make_empty_tensor_value_info(name) for n in casts or [node] for name in n.output])
    ops = [helper.make_opsetid("", opset)]  # with the lowest IR version it allows, so that older releases load it
    onnx.save(helper.make_model(graph, opset_imports=ops, ir_version=helper.find_min_ir_version_for(ops)), "model.onnx")
    model = tract.onnx().load("model.onnx") if NEW else tract.onnx().model_for_path("model.onnx")
    model = (model.into_model() if NEW else model.into_optimized()).into_runnable()
    return [out.to_numpy().tolist() for out in model.run(list(inputs.values()))]


if sys.argv[1:]:  # a child process: TopK-11 (largest, K = 1) of sys.argv[1] floats, NaN every third; a panic kills it
    x = np.float32([float("nan") if i % 3 == 0 else i for i in range(int(sys.argv[1]))])
    print(run(helper.make_node("TopK", ["X", "K"], ["values", "indices"], axis=0), 11, {"X": x, "K": np.int64([1])}))
    sys.exit()
print(f"tract {tract.version()}, onnx {onnx.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
      f"{platform.platform()}")
for n in (20, 21):
    done = subprocess.run([sys.executable, __file__, str(n)], capture_output=True, text=True)
    # what the child printed; else tract's panic, or its error, less the stack backtrace (RUST_BACKTRACE=1)
    said = " ".join(done.stderr.replace("Stack", "stack").split("stack backtrace")[0].split("TractError:")[-1].split())
    print(f"TopK-11, K = 1, float32 X [NaN, 1, 2, NaN, 4, ..., {n - 1}] ({n} elements, NaN every third): expected "
          f"[[{n - 1}], [{n - 1}]] (NaN below the numbers) or [[nan], [0]] (NaN above); tract, in a child process: "
          f"{done.stdout.strip() or f'exit status {done.returncode}: {said}'}")
    if n == 20 and done.returncode:  # a tract without ONNX TopK fails here
        print("CANNOT RUN: this tract does not run ONNX TopK-11 on 20 elements")
        sys.exit(2)
print("REPRODUCED" if done.returncode < 0 else "NOT REPRODUCED")  # the 21-element row killed by a signal
sys.exit(0 if done.returncode < 0 else 1)
