"""tract's ONNX TopK orders NaN with a comparison under which NaN is smaller than anything in both
directions (`partial_cmp`, None taken as Less), which is no order: [0, NaN, 1] K = 1 largest gives
0, the smallest number, which no placement of NaN explains, and [NaN, NaN] K = 2 smallest gives
indices [1, 0], against TopK's tie rule (the lower index first). ONNX says nothing of NaN, so the
expected indices are given for each placement: every NaN above every number, or every NaN below.
Needs tract, onnx and numpy; writes model.onnx in the current folder. Prints the versions, then per
input the input, the answer expected and tract's; the last line is REPRODUCED (exit 0), NOT
REPRODUCED (exit 1) or CANNOT RUN: why (exit 2). Do not name it tract.py (it would shadow the tract
package)."""
import platform
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
    """One ONNX node run by tract on inputs (name: array): its outputs as lists, or its error."""
    # tract's bindings before 0.23 read every output as float32: there the graph casts its outputs to float32.
    casts = [] if NEW else [helper.make_node("Cast", [name], [name + "_f32"], to=1) for name in node.output]
    graph = helper.make_graph([node, *casts], "g", [helper.make_tensor_value_info(
        name, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape) for name, a in inputs.items()],
        [helper.make_empty_tensor_value_info(name) for n in casts or [node] for name in n.output])
    ops = [helper.make_opsetid("", opset)]  # with the lowest IR version it allows, so that older releases load it
    onnx.save(helper.make_model(graph, opset_imports=ops, ir_version=helper.find_min_ir_version_for(ops)), "model.onnx")
    try:
        model = tract.onnx().load("model.onnx") if NEW else tract.onnx().model_for_path("model.onnx")
        model = (model.into_model() if NEW else model.into_optimized()).into_runnable()
        return [out.to_numpy().tolist() for out in model.run(list(inputs.values()))]
    except tract.TractError as error:  # its message, less the backtrace that RUST_BACKTRACE=1 adds
        return "error: " + " ".join(str(error).split("Stack backtrace")[0].split())


print(f"tract {tract.version()}, onnx {onnx.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
      f"{platform.platform()}")
nan = float("nan")
topk = [helper.make_node("TopK", ["X", "K"], ["values", "indices"], axis=0, largest=largest) for largest in (0, 1)]
if (got := run(topk[1], 11, {"X": np.float32([1, 3, 2]), "K": np.int64([2])})) != [[3, 2], [1, 2]]:
    print(f"CANNOT RUN: this tract does not run ONNX TopK-11 (K = 2 of [1, 3, 2]): {got}")
    sys.exit(2)
broken = 0
for x, k, largest, above, below in (([0, nan, 1], 1, 1, [1], [2]), ([nan, nan], 2, 0, [0, 1], [0, 1]),
                                    ([nan, 0, nan], 3, 1, [0, 2, 1], [1, 0, 2]), ([1, nan], 1, 1, [1], [0])):
    got = run(topk[largest], 11, {"X": np.float32(x), "K": np.int64([k])})
    print(f"TopK-11, {'largest' if largest else 'smallest'}, K = {k}, float32 X {x}: expected indices {above} "
          f"(NaN above the numbers) or {below} (NaN below); tract: {got}")
    broken += isinstance(got, list) and got[1] not in (above, below)
print("REPRODUCED" if broken else "NOT REPRODUCED")
sys.exit(0 if broken else 1)
