"""AM-ORT5: an empty reduced axis ([0] over axis 0, [2, 0] over axis 1) makes ONNX Runtime's CPU
provider refuse ArgMax/ArgMin at run time with RUNTIME_EXCEPTION and an empty status message. Right
for ArgMax-11 ("The input tensor must not be empty."); ArgMax-1, -12 and -13 say nothing; the empty
message tells the user nothing either way. Standalone: onnxruntime, onnx (only to build the models),
numpy."""
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


WANT = {1: "unspecified (ArgMax-1 says nothing on empty inputs)",
        11: "an error (ArgMax-11: \"The input tensor must not be empty.\")",
        13: "unspecified (ArgMax-13 says nothing on empty inputs)"}
silent = answered = 0
for op in ("ArgMax", "ArgMin"):
    for shape, axis in (([0], 0), ([2, 0], 1)):
        for opset in (1, 11, 13):
            result = run_child(op, "float32", shape, axis, 1, opset)
            print(f"{op}-{opset} float32 of shape {shape} axis {axis} keepdims 1: {describe(result)}")
            print(f"  documents: {WANT[opset].replace('ArgMax', op)}")
            message = result.get("message", "")
            if result.get("error") and "RUNTIME_EXCEPTION" in message:
                status = message.split("Status Message:", 1)[-1].strip() if "Status Message:" in message else None
                print(f"  status message: {status!r}")
                silent += status == ""
            elif "shape" in result:
                answered += 1
if silent:
    print("REPRODUCED")
    sys.exit(0)
print("NOT REPRODUCED")
sys.exit(1)
