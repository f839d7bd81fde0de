"""tract has no bfloat16: its ONNX loader refuses a TopK-24 or ArgMax-13 graph whose X is bfloat16
("translating to fact: Tensor { elem_type: Bfloat16, ... Unknown DatumType Bfloat16") before any
input is given, though both operators list tensor(bfloat16) among T's types. The same graphs in
float32 load. Needs tract and onnx; writes model.onnx in the current folder. Prints the versions,
then per graph the graph, the answer expected and tract's; the last line is REPRODUCED (exit 0), NOT
REPRODUCED (exit 1) or CANNOT RUN: why (exit 2). Do not name it tract.py (it would shadow the tract
package)."""
import platform
import sys

try:
    import onnx
    import tract
    from onnx import TensorProto, helper
except Exception as error:  # a module missing, or a build that cannot load here
    print(f"CANNOT RUN: a module is missing or cannot load ({type(error).__name__}: {error})")
    sys.exit(2)
NEW = hasattr(tract, "Tensor")  # tract's Python API from 0.23 on: load and into_model


def loads(node, opset, x_type):
    """Whether tract's ONNX loader takes a graph of one node over X (x_type, shape [3]; K int64 [1] where
    the node has it) and types it, which needs no input: "it loads", or tract's error."""
    inputs = [helper.make_tensor_value_info("X", x_type, [3]), helper.make_tensor_value_info("K", 7, [1])]  # 7: int64
    graph = helper.make_graph([node], "g", inputs[:len(node.input)],
                              [helper.make_empty_tensor_value_info(name) for name in node.output])
    ops = [helper.make_opsetid("", opset)]  # with the lowest IR version it allows, so that older releases load it
    onnx.save(helper.make_model(graph, opset_imports=ops, ir_version=helper.find_min_ir_version_for(ops)), "model.onnx")
    try:
        model = tract.onnx().load("model.onnx") if NEW else tract.onnx().model_for_path("model.onnx")
        (model.into_model if NEW else model.into_optimized)()
        return "it loads"
    except tract.TractError as error:  # its message, less the backtrace that RUST_BACKTRACE=1 adds
        return "error: " + " ".join(str(error).split("Stack backtrace")[0].split())


print(f"tract {tract.version()}, onnx {onnx.__version__}, Python {platform.python_version()}, {platform.platform()}")
refused = 0
for node, opset in ((helper.make_node("TopK", ["X", "K"], ["values", "indices"], axis=0), 24),
                    (helper.make_node("ArgMax", ["X"], ["index"], axis=0, keepdims=0), 13)):
    for name, x_type in (("float32", TensorProto.FLOAT), ("bfloat16", TensorProto.BFLOAT16)):
        got = loads(node, opset, x_type)
        print(f"{node.op_type}-{opset}, X {name} [3]: expected the graph loads ({name} is one of T's types); "
              f"tract: {got}")
        if x_type == TensorProto.FLOAT and got != "it loads":
            print(f"CANNOT RUN: this tract does not load ONNX {node.op_type}-{opset} in float32 either")
            sys.exit(2)
        refused += got != "it loads"
print("REPRODUCED" if refused else "NOT REPRODUCED")
sys.exit(0 if refused else 1)
