"""tract's ArgMax starts its running maximum at (index 0, the lowest finite value) and ArgMin its
minimum at (index 0, the highest finite value), so -inf (ArgMax) and +inf (ArgMin) are never taken:
ArgMax of [-inf, -inf] with select_last_index = 1 gives 0, not 1, and ArgMin of [inf, 1.797e308]
gives 0, the inf, whatever the opset. Needs tract, onnx and numpy; writes model.onnx in the current
folder. Prints the versions, then per input the input, the answer expected and tract's; the last
line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2). Do not name it
tract.py (it would shadow the tract package)."""
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
inf, f32max, f64max, wrong = float("inf"), 3.4028235e38, 1.7976931348623157e308, 0  # the largest finite values
for op, opset, x, last in (("ArgMax", 12, np.float16([-inf, -inf]), 1), ("ArgMax", 13, np.float32([-inf, -inf]), 1),
                           ("ArgMin", 13, np.float64([inf, inf]), 1), ("ArgMax", 13, np.float32([-inf, -f32max]), 0),
                           ("ArgMin", 1, np.float64([inf, f64max]), 0), ("ArgMin", 13, np.float64([inf, f64max]), 0)):
    node = helper.make_node(op, ["X"], ["index"], axis=0, keepdims=0, **({"select_last_index": 1} if last else {}))
    print(f"{op}-{opset}{', select_last_index 1' if last else ''}, {x.dtype} X {x.tolist()}: expected [1]; "
          f"tract: {(got := run(node, opset, {'X': x}))}")
    wrong += got != [1]
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
