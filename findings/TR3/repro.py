"""TR3: tract does not refuse TopK with K > n: it returns K elements, those past n filled with 0 and
index 0. Standalone: tract, numpy and onnx (onnx.helper builds the models).
Prints the versions, then per input the input, tract's output and the documents' answer; the last
line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2).

Named repro.py: a script named tract.py would import itself as `tract`."""
import os
import platform
import sys
import tempfile

os.environ["RUST_BACKTRACE"] = "0"       # tract's errors and panics without a backtrace
os.environ["RUST_LIB_BACKTRACE"] = "0"


def finish(line, status):
    print(line)
    sys.exit(status)


try:
    import numpy as np
    import onnx
    import tract
    from onnx import TensorProto, helper, numpy_helper
except Exception as error:  # a module missing, or a build that cannot load here
    finish(f"CANNOT RUN: a module is missing or cannot load ({type(error).__name__}: {error})", 2)


def cpu():
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def print_versions():
    print(f"tract {tract.version()}, numpy {np.__version__}, onnx {onnx.__version__}")
    print(f"Python {sys.version.split()[0]}; {platform.platform()}; CPU {cpu()}")


def save(graph, opset, ir_version):
    """The graph as an ONNX file (tract's bindings load from a path); ir_version the lowest the
    opset allows, so that older releases load it."""
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="repro")
    model.ir_version = ir_version
    handle, path = tempfile.mkstemp(suffix=".onnx")
    with os.fdopen(handle, "wb") as file:
        file.write(model.SerializeToString())
    return path


def message(error):
    """tract's error on one line: its first line (cut) and its last, the cause."""
    lines = [line.strip() for line in str(error).split("Stack backtrace:")[0].splitlines() if line.strip()]
    if not lines:
        return "TractError"
    first = lines[0] if len(lines[0]) <= 70 else lines[0][:70] + "..."
    return "TractError: " + (f"{first} ... {lines[-1]}" if len(lines) > 1 else first)


NUMPY_OF_TRACT = {0x01: "bool", 0x11: "uint8", 0x12: "uint16", 0x14: "uint32", 0x18: "uint64", 0x21: "int8",
                  0x22: "int16", 0x24: "int32", 0x28: "int64", 0x32: "float16", 0x34: "float32", 0x38: "float64"}


def to_numpy(out):
    """An output as numpy. The bindings before 0.22 (tract.Value) read every output as float32, the
    int64 indices included, so there the bytes are read with the element type tract reports."""
    if type(out).__name__ != "Value":
        return out.to_numpy()
    from ctypes import POINTER, byref, c_size_t, c_uint32, c_void_p, string_at
    dt, rank, shape, data = c_uint32(), c_size_t(), POINTER(c_size_t)(), c_void_p()
    lib = tract.bindings.lib  # tract_value_inspect in 0.19, tract_value_as_bytes from 0.20
    inspect = getattr(lib, "tract_value_as_bytes", None) or lib.tract_value_inspect
    tract.bindings.check(inspect(out.ptr, byref(dt), byref(rank), byref(shape), byref(data)))
    dims = [int(shape[i]) for i in range(rank.value)]
    dtype = np.dtype(NUMPY_OF_TRACT[dt.value])
    count = int(np.prod(dims, dtype=np.int64))
    raw = string_at(data.value, count * dtype.itemsize) if count else b""
    return np.frombuffer(raw, dtype).reshape(dims).copy()


def runnable(path, facts):
    """Loaded by tract's ONNX loader, each input's fact set ("3,f32"), typed and optimized
    (into_model() from 0.22 on, into_optimized() before), made runnable."""
    loader = tract.onnx()
    model = (getattr(loader, "load", None) or loader.model_for_path)(path)
    for position, fact in enumerate(facts):
        model.set_input_fact(position, fact)
    typed = model.into_model() if hasattr(model, "into_model") else model.into_optimized()
    return typed.into_runnable()


def run(path, facts, inputs):
    """The outputs as lists, or tract's error as a string."""
    try:
        return [to_numpy(out).tolist() for out in runnable(path, facts).run(inputs)]
    except Exception as error:  # tract.TractError, as a rule
        return message(error) if isinstance(error, tract.TractError) else f"{type(error).__name__}: {error}"


def topk11(largest=1, k_constant=None, dtype=TensorProto.FLOAT):
    """TopK-11 over axis 0 of X [N], sorted=1; K a graph input [1], or an initializer when k_constant is given."""
    node = helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=0, largest=largest, sorted=1)
    inputs = [helper.make_tensor_value_info("X", dtype, ["N"])]
    inits = []
    if k_constant is None:
        inputs.append(helper.make_tensor_value_info("K", TensorProto.INT64, [1]))
    else:
        inits.append(numpy_helper.from_array(np.array([k_constant], np.int64), "K"))
    outputs = [helper.make_tensor_value_info("V", dtype, None), helper.make_tensor_value_info("I", TensorProto.INT64, None)]
    return helper.make_graph([node], "g", inputs, outputs, inits)


def main():
    print_versions()
    print('ONNX TopK-11: K is "A 1-D tensor containing a single positive value corresponding to the number of '
          'top elements to retrieve"; the outputs hold "the top k elements along the specified axis" '
          '(onnx\'s shape inference refuses K > n: "Axis has less than the requested k elements.")')
    paths = {"input": save(topk11(), 11, 6), "constant": save(topk11(k_constant=2), 11, 6)}
    try:
        control = run(paths["input"], ["3,f32", "1,i64"], [np.array([3, 1, 2], np.float32), np.array([2], np.int64)])
        print(f"TopK-11 [3, 1, 2] K=2 (control): tract {control}; documents [[3.0, 2.0], [0, 2]]")
        if not isinstance(control, list):
            finish("CANNOT RUN: this tract does not run TopK-11 (no ONNX TopK here)", 2)
        accepted = 0
        for what, path, facts, inputs in (
                ("TopK-11 [0.0] K=2 (K an input)", paths["input"], ["1,f32", "1,i64"],
                 [np.array([0], np.float32), np.array([2], np.int64)]),
                ("TopK-11 [0.0] K=2 (K a constant)", paths["constant"], ["1,f32"], [np.array([0], np.float32)]),
                ("TopK-11 [3, 1, 2] K=5 (K an input)", paths["input"], ["3,f32", "1,i64"],
                 [np.array([3, 1, 2], np.float32), np.array([5], np.int64)])):
            got = run(path, facts, inputs)
            print(f"{what}: tract {got}; documents an error (K > n)")
            accepted += isinstance(got, list)
    finally:
        for path in paths.values():
            os.unlink(path)
    finish("REPRODUCED", 0) if accepted else finish("NOT REPRODUCED", 1)


if __name__ == "__main__":
    main()
