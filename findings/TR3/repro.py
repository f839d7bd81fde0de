"""tract's ONNX TopK does not refuse K larger than the axis: asked for K = 2 of a 1-element row it
returns 2 elements, the missing one 0 with index 0 (an index repeated); ONNX's own shape inference
refuses such a graph ("Axis has less than the requested k elements"). Needs tract, onnx and numpy;
writes model.onnx in the current folder. Prints the versions, then per input the input, the answer
ONNX defines and tract's; the last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT
RUN: why (exit 2). Do not name it tract.py (it would shadow the tract package)."""
import platform
import sys

try:
    import numpy as np
    import onnx
    import tract
    from onnx import helper, numpy_helper
except Exception as error:  # a module missing, or a build that cannot load here
    print(f"CANNOT RUN: a module is missing or cannot load ({type(error).__name__}: {error})")
    sys.exit(2)
NEW = hasattr(tract, "Tensor")  # tract's Python API from 0.23 on: load, into_model, outputs of their own type


def run(x, k, constant=False):
    """ONNX TopK-11 (axis 0, largest, sorted) of float32 x, K = k a graph input or a constant (an
    initializer), run by tract: its outputs as lists, or its error."""
    inputs = {"X": np.float32(x)} if constant else {"X": np.float32(x), "K": np.int64([k])}
    topk = helper.make_node("TopK", ["X", "K"], ["values", "indices"], axis=0)
    # tract's bindings before 0.23 read every output as float32: there the graph casts its outputs to float32.
    casts = [] if NEW else [helper.make_node("Cast", [name], [name + "_f32"], to=1) for name in topk.output]
    graph = helper.make_graph(
        [topk, *casts], "topk", [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
                                 for n, a in inputs.items()],
        [helper.make_empty_tensor_value_info(name) for node in casts or [topk] for name in node.output],
        [numpy_helper.from_array(np.int64([k]), "K")] if constant else [])
    # ir_version 6, the lowest opset 11 allows, so that older releases load the model.
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], ir_version=6), "model.onnx")
    try:
        model = tract.onnx().load("model.onnx") if NEW else tract.onnx().model_for_path("model.onnx")
        model = (model.into_model() if NEW else model.into_optimized()).into_runnable()
        return [out.to_numpy().tolist() for out in model.run(list(inputs.values()))]
    except tract.TractError as error:  # its message, less the backtrace that RUST_BACKTRACE=1 adds
        return "error: " + " ".join(str(error).split("Stack backtrace")[0].split())


print(f"tract {tract.version()}, onnx {onnx.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
      f"{platform.platform()}")
if run([3, 1, 2], 2) != [[3, 2], [0, 2]]:
    print(f"CANNOT RUN: this tract does not run ONNX TopK-11: K = 2 of [3, 1, 2] gives {run([3, 1, 2], 2)}")
    sys.exit(2)
accepted = 0
for x, k, constant in (([0], 2, False), ([0], 2, True), ([3, 1, 2], 5, False)):
    print(f"TopK-11, K = {k} ({'a constant' if constant else 'a graph input'}), float32 X {x}: "
          f"expected an error (there are no {k} elements to take); tract: {(got := run(x, k, constant))}")
    accepted += isinstance(got, list)
print("REPRODUCED" if accepted else "NOT REPRODUCED")
sys.exit(0 if accepted else 1)
