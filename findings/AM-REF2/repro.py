"""AM-REF2: onnx's reference evaluator, ArgMax/ArgMin over an empty axis raise numpy's ValueError.

An empty reduced axis ([2, 0] over axis 1) raises numpy's "ValueError: attempt to get argmax of an
empty sequence" (argmin likewise): right for ArgMax-11, which says the input "must not be empty", and
unspecified for ArgMax-1, -12 and -13. Standalone: onnx (onnx.reference.ReferenceEvaluator, from onnx
1.13), numpy.

ONNX ArgMax-11 / ArgMin-11: "The input tensor must not be empty." ArgMax-1, -12, -13 say nothing on an
empty input; no version allows an index outside the axis. The documents' answer: an error.
"""
import platform
import sys


def cpu_name():
    name = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return name or "unknown"


try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator
except ImportError as error:
    print(f"CANNOT RUN: {error}")
    sys.exit(2)

print("onnx", onnx.__version__, "| numpy", np.__version__)
print("python", sys.version.split()[0], "|", platform.platform(), "|", cpu_name())


def arg(op, x, opset, axis):
    """ONNX ArgMax/ArgMin (keepdims=0) on the reference evaluator; ir_version the lowest the opset allows."""
    node = helper.make_node(op, ["X"], ["I"], axis=axis, keepdims=0)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version={11: 6, 13: 7}[opset])
    try:
        return None, f"indices {np.asarray(ReferenceEvaluator(model).run(None, {'X': x})[0]).tolist()}"
    except Exception as error:
        return error, f"raises {type(error).__name__}: {str(error).splitlines()[0][:120]}"


seen = 0
for op in ("ArgMax", "ArgMin"):
    for opset in (11, 13):
        x = np.zeros((2, 0), np.float32)
        error, what = arg(op, x, opset, 1)
        seen += isinstance(error, ValueError)
        print(f"{op}-{opset} float32 of shape [2, 0] over axis 1: reference {what}; documents: "
              f"{'an error (the input must not be empty)' if opset == 11 else 'nothing said; no index exists'}")
# For comparison: an empty dimension that is not reduced gives the empty output.
error, what = arg("ArgMax", np.zeros((0, 3), np.float32), 13, 1)
print(f"  ArgMax-13 float32 of shape [0, 3] over axis 1: reference {what}")
if seen == 4:
    print("REPRODUCED")
    sys.exit(0)
print("NOT REPRODUCED")
sys.exit(1)
