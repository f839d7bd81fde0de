"""OpenVINO's CPU plugin compares int64, uint32 and uint64 values in 32 bits in ONNX ArgMax and ArgMin: the ONNX
frontend lowers them to TopK-11 with k = 1, and the CPU plugin's TopK computes these types in i32 (their low 32
bits), so 2147483648 becomes -2**31 and 2**32-1 and 2**64-1 become -1. ONNX ArgMax-13/ArgMin-13 (T includes
int64, uint32 and uint64) return the index of the max (min), the first occurrence when select_last_index is 0.
Needs openvino, onnx (to build the model) and numpy. Prints the versions, then per input the documents' answer and
OpenVINO's; the last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import platform
import sys

try:
    import numpy as np
    import onnx
    import openvino as ov
    from onnx import TensorProto, helper
except ImportError as error:
    print(f"CANNOT RUN: {error}")
    sys.exit(2)

print(f"openvino {ov.__version__}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
ELEM = {"int64": TensorProto.INT64, "uint32": TensorProto.UINT32, "uint64": TensorProto.UINT64}
INPUTS = [  # operator, input, the documents' answer
    ("ArgMax", np.array([2147483647, 2147483648, 2147483647], np.int64), 1),
    ("ArgMin", np.array([2147483648, 2147483647, 2147483648], np.int64), 1),
    ("ArgMax", np.array([2**32 - 1, 2**32 - 2, 0, 1, 0], np.uint32), 0),
    ("ArgMin", np.array([2**64 - 1, 2**64 - 2, 0, 1, 0], np.uint64), 2),
]
core, wrong = ov.Core(), False
for op, x, want in INPUTS:
    graph = helper.make_graph([helper.make_node(op, ["X"], ["I"], axis=0, keepdims=0)], "arg",
                              [helper.make_tensor_value_info("X", ELEM[x.dtype.name], list(x.shape))],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)
    try:
        compiled = core.compile_model(core.read_model(model.SerializeToString()), "CPU")
    except Exception as error:  # this release cannot load the model
        print(f"CANNOT RUN: OpenVINO cannot load ONNX {op}-13 on {x.dtype.name}: {str(error).splitlines()[0][:200]}")
        sys.exit(2)
    got = int(np.asarray(compiled([x])[0]).reshape(-1)[0])
    wrong = wrong or got != want
    print(f"{op}-13 {x.dtype.name} {x.tolist()}, axis 0: documents {want}; OpenVINO {got}"
          f"{'  <- wrong' * (got != want)}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
