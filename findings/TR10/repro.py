"""tract's ArgMax and ArgMin over an empty axis return index 0, an index into nothing, where ArgMax-11
and ArgMin-11 say "The input tensor must not be empty." (opsets 1, 12 and 13 say nothing of an empty
input, and no index exists there). Needs tract, onnx and numpy; writes model.onnx in the current
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
        model.set_input_fact(0, ",".join(map(str, [*inputs["X"].shape, "f32"])))  # tract 0.19 reads a 0 dim as unknown
        model = (model.into_model() if NEW else model.into_optimized()).into_runnable()
        return [out.to_numpy().tolist() for out in model.run(list(inputs.values()))]
    except tract.TractError as error:  # its message, less the backtrace that RUST_BACKTRACE=1 adds
        return "error: " + " ".join(str(error).split("Stack backtrace")[0].split())


print(f"tract {tract.version()}, onnx {onnx.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
      f"{platform.platform()}")
if (got := run(helper.make_node("ArgMax", ["X"], ["i"], axis=0, keepdims=0), 11, {"X": np.float32([1, 3, 2])})) != [1]:
    print(f"CANNOT RUN: this tract does not run ONNX ArgMax-11 on float32 [1, 3, 2]: {got}")
    sys.exit(2)
wrong = 0
for op, opset, shape, axis in (("ArgMax", 11, [0], 0), ("ArgMax", 11, [2, 0], 1), ("ArgMin", 11, [0], 0),
                               ("ArgMax", 13, [0], 0)):
    got = run(helper.make_node(op, ["X"], ["index"], axis=axis, keepdims=0), opset, {"X": np.zeros(shape, np.float32)})
    print(f"{op}-{opset}, axis {axis}, float32 X of shape {shape}: expected no index "
          f"({'the input must not be empty' if opset == 11 else 'the axis is empty'}); tract: {got}")
    wrong += isinstance(got, list)
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
