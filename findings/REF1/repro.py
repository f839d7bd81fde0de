"""REF1: onnx's reference evaluator does not refuse a K outside the range in TopK.

K = -1 returns empty outputs; K above the axis size on an empty tensor (shape [0, 1], K = 2) returns
empty outputs of shape [0, 2]; K above the axis size on a non-empty tensor raises numpy's IndexError
(an error, as ONNX wants, but a raw one). Standalone: onnx (onnx.reference.ReferenceEvaluator, from
onnx 1.13), numpy.

ONNX TopK-11: K is "A 1-D tensor containing a single positive value corresponding to the number of
top elements to retrieve"; a K above the axis size is an error. The documents' answer: an error.
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


def topk(x, k, k_as_input):
    """ONNX TopK-11 (axis -1, largest, ir_version 6) on the reference evaluator; K an initializer or a graph input."""
    node = helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=-1, largest=1)
    inputs = [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(x.shape))]
    inits = []
    if k_as_input:
        inputs.append(helper.make_tensor_value_info("K", TensorProto.INT64, [1]))
    else:
        inits.append(helper.make_tensor("K", TensorProto.INT64, [1], [k]))
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("V", TensorProto.FLOAT, None),
                                                    helper.make_tensor_value_info("I", TensorProto.INT64, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], ir_version=6)
    feed = {"X": x}
    if k_as_input:
        feed["K"] = np.array([k], np.int64)
    try:
        values, indices = ReferenceEvaluator(model).run(None, feed)
    except Exception as error:
        return None, f"raises {type(error).__name__}: {str(error).splitlines()[0][:120]}"
    return True, f"values {values.tolist()} of shape {list(values.shape)}, indices of shape {list(indices.shape)}"


INPUTS = [  # input, K, counted (the finding) or shown for comparison
    (np.array([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]], np.float32), -1, True),
    (np.zeros((0, 1), np.float32), 2, True),
    (np.array([[3, 1, 4, 1, 5]], np.float32), 7, False),
]
wrong = 0
for x, k, counted in INPUTS:
    for k_as_input in (False, True):
        returned, what = topk(x, k, k_as_input)
        wrong += bool(counted and returned)
        print(f"TopK-11 float32 {x.tolist()} (shape {list(x.shape)}) axis -1 K = {k} "
              f"({'an input' if k_as_input else 'an initializer'}): reference {what}; documents: an error"
              f"{'  <- not refused' if returned else ''}")
if wrong:
    print("REPRODUCED")
    sys.exit(0)
print("NOT REPRODUCED")
sys.exit(1)
