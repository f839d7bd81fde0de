"""tract's ArgMax and ArgMin never take NaN (every comparison with it is false): an all-NaN row gives
index 0 even with select_last_index = 1, and, with the running maximum starting at the lowest finite
value, ArgMax ranks NaN below the numbers on [0, NaN] (index 0) but above -inf on [NaN, -inf] (index
0, the NaN). ONNX says nothing of NaN, so the expected indices are given for each placement: every
NaN above every number, or every NaN below. Needs tract, onnx and numpy; writes model.onnx in the
current folder. Prints the versions, then per input the input, the answer expected and tract's; the
last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2). Do not name
it tract.py (it would shadow the tract package)."""
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
if (got := run(helper.make_node("ArgMax", ["X"], ["i"], axis=0, keepdims=0), 13, {"X": np.float32([1, 3, 2])})) != [1]:
    print(f"CANNOT RUN: this tract does not run ONNX ArgMax-13 on float32 [1, 3, 2]: {got}")
    sys.exit(2)
nan, inf, broken = float("nan"), float("inf"), 0
for op, x, last, above, below in (("ArgMax", [2, nan, 2, 1], 0, 1, 0), ("ArgMin", [nan, 1], 0, 1, 0),
                                  ("ArgMax", [nan, nan, nan], 1, 2, 2), ("ArgMin", [nan, nan, nan], 1, 2, 2),
                                  ("ArgMax", [[0, nan], [nan, -inf]], 0, [1, 0], [0, 1])):
    node = helper.make_node(op, ["X"], ["index"], axis=-1, keepdims=0, select_last_index=last)
    print(f"{op}-13, axis -1, select_last_index {last}, float32 X {x}: expected {above} (NaN above the numbers) "
          f"or {below} (NaN below); tract: {(got := run(node, 13, {'X': np.float32(x)}))}")
    broken += got[0] not in (above, below)
print("REPRODUCED" if broken else "NOT REPRODUCED")
sys.exit(0 if broken else 1)
