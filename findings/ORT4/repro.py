"""ORT4: ONNX Runtime's CPU provider returns every float16 NaN from TopK as the default NaN of its
sign (payload 0x7e01 and signalling 0x7c01 -> 0x7e00, 0xfe01 -> 0xfe00): the values output no
longer holds the input's elements. Standalone: onnxruntime, onnx (only to build the model), numpy."""
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
    from onnx import TensorProto, helper
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

node = helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=0, largest=1, sorted=1)
graph = helper.make_graph([node], "topk", [helper.make_tensor_value_info("X", TensorProto.FLOAT16, [1])],
                          [helper.make_tensor_value_info("V", TensorProto.FLOAT16, None),
                           helper.make_tensor_value_info("I", TensorProto.INT64, None)],
                          [helper.make_tensor("K", TensorProto.INT64, [1], [1])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], ir_version=6)
try:
    topk = session(model)
except Exception as error:
    print(f"CANNOT RUN: this release does not load a float16 TopK-11 model: {first_line(error)}")
    sys.exit(2)

changed = 0
for pattern in (0x7E01, 0x7C01, 0xFE01):
    x = np.array([pattern], np.uint16).view(np.float16)
    values, indices = topk.run(None, {"X": x})
    got = int(np.ascontiguousarray(values).view(np.uint16)[0])
    print(f"TopK-11 float16 [bits 0x{pattern:04x}] K=1: values [bits 0x{got:04x}], indices {indices.tolist()}")
    print(f"  documents: values [bits 0x{pattern:04x}] (the input's element), indices [0]")
    changed += got != pattern
print("REPRODUCED" if changed else "NOT REPRODUCED")
sys.exit(0 if changed else 1)
