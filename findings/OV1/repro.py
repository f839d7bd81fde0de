"""OpenVINO's ONNX frontend drops ONNX TopK's tie rule: an ONNX TopK-11 model (uint32 X = [0, 0],
K = 2 given as a graph input, largest=1, sorted=1), read with Core.read_model and run on the CPU
plugin, lists the two tied zeros highest index first (indices [1, 0]). ONNX TopK: "Given two
equivalent values, this operator uses the indices along the axis as a tiebreaker. That is, the
element with the lower index will appear first", so the answer is indices [0, 1].
Needs openvino, onnx (only to build the model), numpy. Prints the versions, the input, ONNX's
answer and OpenVINO's; the last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or
CANNOT RUN: why (exit 2)."""
import platform
import sys

try:
    import numpy as np
    import onnx
    import openvino as ov
    from onnx import TensorProto, helper
except Exception as error:  # a module missing, or a build that cannot load here
    print(f"CANNOT RUN: a module is missing or cannot load ({type(error).__name__}: {error})")
    sys.exit(2)

print(f"openvino {ov.get_version()}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
graph = helper.make_graph(
    [helper.make_node("TopK", ["X", "K"], ["values", "indices"], axis=-1, largest=1, sorted=1)], "topk",
    [helper.make_tensor_value_info("X", TensorProto.UINT32, [2]),
     helper.make_tensor_value_info("K", TensorProto.INT64, [1])],
    [helper.make_tensor_value_info("values", TensorProto.UINT32, ["k"]),
     helper.make_tensor_value_info("indices", TensorProto.INT64, ["k"])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], ir_version=6)  # lowest IR for opset 11
x = np.array([0, 0], np.uint32)
try:
    core = ov.Core()
    result = core.compile_model(core.read_model(model.SerializeToString()), "CPU")([x, np.array([2], np.int64)])
except Exception as error:
    print(f"CANNOT RUN: this openvino cannot read or run the model ({type(error).__name__}: {error})")
    sys.exit(2)
values, indices = result[0], result[1]
print(f"input X {x.tolist()} uint32, K = 2 (a graph input), ONNX TopK-11, axis -1, largest=1, sorted=1")
print("ONNX defines:   values [0, 0], indices [0, 1] (the lower index first)")
print(f"OpenVINO gives: values {values.tolist()}, indices {indices.tolist()}")
print("REPRODUCED" if indices.tolist() != [0, 1] else "NOT REPRODUCED")
sys.exit(0 if indices.tolist() != [0, 1] else 1)
