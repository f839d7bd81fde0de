"""OpenVINO's CPU plugin answers ONNX ArgMin with NaN in the input as if a NaN replaced the running minimum and the
next number then replaced the NaN: [NaN, NaN, NaN] gives 2 (0 with select_last_index=1), and [2, NaN, 2, 1] with
select_last_index=1 gives 0, a 2, which is the minimum under no placement of NaN. ONNX ArgMin says nothing on NaN;
the answers accepted below are the first (last) occurrence where every element is NaN, as ArgMin-13 selects among
equal minima, and otherwise the answer of one consistent placement (every NaN above every number, or every NaN
below). The ONNX frontend lowers ArgMin to TopK-11 with k = 1; the CPU plugin's own TopK-11 (mode=min, k=1,
stable=true) answers [1, 2, NaN, 2] with index 3, a 2, shown last. Needs openvino, onnx (to build the model) and
numpy. Prints the versions, then per input the indices accepted and OpenVINO's; the last line is REPRODUCED
(exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
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
nan = float("nan")
INPUTS = [([nan, nan, nan], 0, [0]), ([nan, nan, nan], 1, [2]), ([2, nan, 2, 1], 1, [3, 1])]  # row, last, accepted
ELEM = {"float32": TensorProto.FLOAT, "float64": TensorProto.DOUBLE, "float16": TensorProto.FLOAT16}
core, wrong = ov.Core(), False
for dtype, elem in ELEM.items():
    for row, last, accepted in INPUTS:
        node = helper.make_node("ArgMin", ["X"], ["I"], axis=0, keepdims=0, select_last_index=last)
        graph = helper.make_graph([node], "argmin", [helper.make_tensor_value_info("X", elem, [len(row)])],
                                  [helper.make_tensor_value_info("I", TensorProto.INT64, [])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)
        try:
            compiled = core.compile_model(core.read_model(model.SerializeToString()), "CPU")
        except Exception as error:  # this release cannot load the model
            print(f"CANNOT RUN: OpenVINO cannot load ONNX ArgMin-13 on {dtype}: {str(error).splitlines()[0][:200]}")
            sys.exit(2)
        got = int(np.asarray(compiled([np.array(row, dtype)])[0]).reshape(-1)[0])
        wrong = wrong or got not in accepted
        print(f"ArgMin-13 {dtype} {row}, axis 0, select_last_index={last}: expected {' or '.join(map(str, accepted))}; "
              f"OpenVINO {got}{'  <- wrong' * (got not in accepted)}")
opset11 = getattr(ov, "opset11", None) or ov.runtime.opset11  # the CPU plugin's own TopK-11, no ONNX involved
x = opset11.parameter([4], ov.Type.f32)
topk = opset11.topk(x, opset11.constant(np.int64(1)), 0, "min", "value", "i64", stable=True)
index = core.compile_model(ov.Model([topk.output(1)], [x]), "CPU")([np.array([1, 2, nan, 2], np.float32)])[0]
print(f"TopK-11 mode=min k=1 stable=true of float32 [1, 2, nan, 2]: expected [0] or [2]; "
      f"OpenVINO {np.asarray(index).tolist()}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
