"""AM-ORT7: ArgMax/ArgMin on ONNX Runtime's CPU provider, with a negative axis over an input that has
a zero-sized dimension, return an output of the input's own shape, not reduced; the same axis counted
from the front raises (an empty reduced axis) or reduces. Standalone: onnxruntime, onnx (only to
build the models), numpy."""
import platform
import sys


def cpu_name():
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


try:
    import numpy as np
    import onnx
    import onnxruntime as ort
except Exception as error:  # missing, or built against another numpy
    print(f"CANNOT RUN: {type(error).__name__}: {error}")
    sys.exit(2)

print(f"onnxruntime {ort.__version__}, onnx {onnx.__version__}, numpy {np.__version__}")
print(f"Python {platform.python_version()}; {platform.platform()}; CPU: {cpu_name()}")
ort.set_default_logger_severity(3)  # no warnings between the lines


def session(model):
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def first_line(error):
    return str(error).strip().splitlines()[0][:320] if str(error).strip() else type(error).__name__

# Each run goes in a child process, so that a crash on an empty tensor is reported, not fatal.
CHILD = r"""
import json, sys
import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper
ort.set_default_logger_severity(4)
op, dtype, shape, axis, keepdims, opset = json.loads(sys.argv[1])
elem = {"int32": TensorProto.INT32, "float32": TensorProto.FLOAT}[dtype]
node = helper.make_node(op, ["X"], ["I"], axis=axis, keepdims=keepdims)
graph = helper.make_graph([node], "arg", [helper.make_tensor_value_info("X", elem, shape)],
                          [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          ir_version={1: 3, 11: 6, 12: 7, 13: 7}[opset])
try:
    s = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    out = s.run(None, {"X": np.zeros(shape, dtype)})[0]
    print(json.dumps({"shape": list(out.shape)}))
except Exception as error:
    print(json.dumps({"error": type(error).__name__, "message": str(error)}))
"""


def run_child(op, dtype, shape, axis, keepdims, opset):
    import json
    import subprocess
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, json.dumps([op, dtype, shape, axis, keepdims, opset])],
                              capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return {"crash": "no answer within 30 s"}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return {"crash": f"exit status {done.returncode}: {(done.stderr.strip().splitlines() or [''])[-1][:200]}"}
    return json.loads(lines[-1])


def describe(result):
    if "shape" in result:
        return f"shape {result['shape']}"
    if "crash" in result:
        return f"the process died ({result['crash']})"
    return f"{result['error']}: {first_line(result['message'])}"


def reduced(shape, axis, keepdims):
    axis %= len(shape)
    return shape[:axis] + [1] + shape[axis + 1:] if keepdims else shape[:axis] + shape[axis + 1:]


unreduced = 0
for op in ("ArgMax", "ArgMin"):
    for shape, axes, keepdims in (([0], (0, -1), 1), ([0], (0, -1), 0), ([2, 0], (1, -1), 0), ([0, 3], (1, -1), 0)):
        for axis in axes:
            result = run_child(op, "int32", shape, axis, keepdims, 13)
            want = f"shape {reduced(shape, axis, keepdims)}"
            if shape[axis] == 0:
                want += " or an error (the reduced axis is empty)"
            print(f"{op}-13 int32 of shape {shape} axis {axis} keepdims {keepdims}: {describe(result)}; documents: {want}")
            if axis < 0 and result.get("shape") == shape and shape != reduced(shape, axis, keepdims):
                unreduced += 1
print("REPRODUCED" if unreduced else "NOT REPRODUCED")
sys.exit(0 if unreduced else 1)
