"""tract refuses ONNX TopK-1, whose K is the attribute `k`: its ONNX loader wants K as the node's
second input at every opset ("Wrong input number. Rules expect 2, node has 1."), while TopK-1 is a
valid operator with one input. The same TopK with K as its second input (TopK-10) runs. Needs tract,
onnx and numpy; writes model.onnx in the current folder. Prints the versions, then per input the
input, the answer expected and tract's; the last line is REPRODUCED (exit 0), NOT REPRODUCED (exit
1) or CANNOT RUN: why (exit 2). Do not name it tract.py (it would shadow the tract package)."""
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
x = np.float32([1, 3, 2])
topk10 = run(helper.make_node("TopK", ["X", "K"], ["values", "indices"], axis=0), 10, {"X": x, "K": np.int64([1])})
print(f"TopK-10 (K = 1 the second input), axis 0, float32 X [1, 3, 2]: expected [[3], [1]]; tract: {topk10}")
if topk10 != [[3], [1]]:
    print("CANNOT RUN: this tract does not run ONNX TopK-10 either")
    sys.exit(2)
topk1 = run(helper.make_node("TopK", ["X"], ["values", "indices"], axis=0, k=1), 1, {"X": x})
print(f"TopK-1 (attribute k = 1), axis 0, float32 X [1, 3, 2]: expected [[3], [1]]; tract: {topk1}")
print("REPRODUCED" if topk1 != [[3], [1]] else "NOT REPRODUCED")
sys.exit(0 if topk1 != [[3], [1]] else 1)
