"""OpenVINO's CPU plugin may give the 1 of ONNX Hardmax to a later one of several equal maxima. The ONNX frontend
lowers Hardmax to TopK-11 (k = 1, mode max, stable=false) and OneHot, after a Reshape to 2-D for Hardmax-1 and -11;
the CPU plugin's TopK with stable=false need not keep the first maximum. ONNX Hardmax-13: "Hardmax(element in
input, axis) = 1 if the element is the first maximum value along the specified axis, 0 otherwise"; Hardmax-1 and
-11 give "1 for the first maximum value" of each coerced row. On an AVX-512 CPU a row of 16 elements shows it, on an
AVX2 CPU one of 8 already. Needs openvino, onnx (to build the models) and numpy. Prints the versions and the CPU,
then per input the position of the 1 the documents give and OpenVINO's; the last line is REPRODUCED (exit 0),
NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import os
import platform
import sys

try:
    import numpy as np
    import onnx
    import openvino as ov
    from onnx import TensorProto, helper
except Exception as error:  # not installed, or an install that does not import
    print(f"CANNOT RUN: {type(error).__name__}: {error}")
    sys.exit(2)

cpu = open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else ""  # noqa: SIM115
cpu_name = next((line.split(":", 1)[1].strip() for line in cpu.splitlines() if line.startswith("model name")), "")
print(f"openvino {ov.__version__}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}; CPU {cpu_name}, "
      f"flags: {' '.join(f for f in ('avx2', 'avx512f') if f' {f} ' in cpu)}")
row16, row8 = np.zeros(16, np.float32), np.zeros(8, np.float32)
row16[[1, 4]] = row8[[1, 4]] = 1.0  # two equal maxima, at flat positions 1 and 4
INPUTS = [(13, row16), (11, row16.reshape(2, 8)), (1, row16.reshape(2, 8)), (13, row8)]  # opset, input; axis 0
core, wrong = ov.Core(), False
for opset, x in INPUTS:
    graph = helper.make_graph([helper.make_node("Hardmax", ["X"], ["Y"], axis=0)], "hardmax",
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)])
    ir_version = {1: 3, 11: 6, 13: 7}[opset]  # the lowest each opset allows
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir_version)
    try:
        compiled = core.compile_model(core.read_model(model.SerializeToString()), "CPU")
    except Exception as error:  # this release cannot load the model
        print(f"CANNOT RUN: OpenVINO cannot load ONNX Hardmax-{opset}: {str(error).splitlines()[0][:200]}")
        sys.exit(2)
    got = np.flatnonzero(np.asarray(compiled([x])[0])).tolist()
    wrong = wrong or got != [1]
    print(f"Hardmax-{opset}, axis 0, float32 zeros of shape {list(x.shape)} (one row of {x.size}) with 1.0 at flat "
          f"positions 1 and 4: documents the 1 at flat [1]; OpenVINO at {got}{'  <- wrong' * (got != [1])}")
print("REPRODUCED" if wrong else "NOT REPRODUCED")
sys.exit(0 if wrong else 1)
