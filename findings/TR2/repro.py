"""TR2: tract has no bfloat16: its ONNX loader refuses TopK-24 and ArgMax-13 graphs of bfloat16,
types both operators list. Standalone: tract, numpy and onnx (onnx.helper builds the models).
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
    from onnx import TensorProto, helper
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


IR_VERSION = {1: 3, 11: 6, 12: 7, 13: 7}  # the lowest each opset allows
FACT = {"float16": "f16", "float32": "f32", "float64": "f64", "int32": "i32", "uint32": "u32", "uint64": "u64"}
ONNX_TYPE = {"float16": TensorProto.FLOAT16, "float32": TensorProto.FLOAT, "float64": TensorProto.DOUBLE,
             "int32": TensorProto.INT32, "uint32": TensorProto.UINT32, "uint64": TensorProto.UINT64}


def arg_model(op, opset, dtype, last=0, rank=1, axis=0):
    """ArgMax/ArgMin over `axis` of X of `dtype` (symbolic dims), keepdims=0; select_last_index from opset 12."""
    attrs = {"axis": axis, "keepdims": 0}
    if opset >= 12:
        attrs["select_last_index"] = last
    node = helper.make_node(op, ["X"], ["I"], **attrs)
    x = helper.make_tensor_value_info("X", ONNX_TYPE[dtype], [f"d{i}" for i in range(rank)])
    graph = helper.make_graph([node], "g", [x], [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    return save(graph, opset, IR_VERSION[opset])


def arg_run(op, opset, x, last=0, axis=0):
    path = arg_model(op, opset, x.dtype.name, last, x.ndim, axis)
    try:
        got = run(path, [",".join(map(str, x.shape)) + "," + FACT[x.dtype.name]], [x])
    finally:
        os.unlink(path)
    return got[0] if isinstance(got, list) else got


def topk24(dtype):
    """TopK-24 over axis 0 of X [N] of `dtype`, K an input [1]."""
    node = helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=0, largest=1, sorted=1)
    inputs = [helper.make_tensor_value_info("X", dtype, ["N"]), helper.make_tensor_value_info("K", TensorProto.INT64, [1])]
    outputs = [helper.make_tensor_value_info("V", dtype, None), helper.make_tensor_value_info("I", TensorProto.INT64, None)]
    return helper.make_graph([node], "g", inputs, outputs)


def argmax13(dtype):
    """ArgMax-13 over axis 0 of X [N] of `dtype`, keepdims=0."""
    node = helper.make_node("ArgMax", ["X"], ["I"], axis=0, keepdims=0, select_last_index=0)
    return helper.make_graph([node], "g", [helper.make_tensor_value_info("X", dtype, ["N"])],
                             [helper.make_tensor_value_info("I", TensorProto.INT64, None)])


def loads(path):
    """'loads' when tract's loader takes the graph as it is (its own input types) and types it, else its error."""
    try:
        runnable(path, [])
        return "loads"
    except Exception as error:
        return message(error) if isinstance(error, tract.TractError) else f"{type(error).__name__}: {error}"


def main():
    print_versions()
    print('ONNX TopK-24: T in "tensor(bfloat16), tensor(double), tensor(float), tensor(float16), ..."; '
          'ArgMax-13 likewise lists tensor(bfloat16)')
    f32, bf16 = TensorProto.FLOAT, TensorProto.BFLOAT16
    paths = {"topk24-f32": save(topk24(f32), 24, 12), "topk24-bf16": save(topk24(bf16), 24, 12),
             "argmax13-f32": save(argmax13(f32), 13, 7), "argmax13-bf16": save(argmax13(bf16), 13, 7)}
    try:
        # Controls: the same graphs in float32 must run, else this tract cannot say anything here.
        topk = run(paths["topk24-f32"], ["3,f32", "1,i64"], [np.array([1, 3, 2], np.float32), np.array([1], np.int64)])
        arg = run(paths["argmax13-f32"], ["3,f32"], [np.array([1, 3, 2], np.float32)])
        print(f"TopK-24 float32 [1, 3, 2] K=1 (control): tract {topk}; documents [[3.0], [1]]")
        print(f"ArgMax-13 float32 [1, 3, 2] (control): tract {arg}; documents [1]")
        if not isinstance(topk, list) or not isinstance(arg, list):
            finish("CANNOT RUN: this tract does not run the float32 TopK-24 / ArgMax-13 graphs either", 2)
        refused = 0
        for name, what in (("topk24-bf16", "TopK-24 bfloat16 X [N] (loading and typing only)"),
                           ("argmax13-bf16", "ArgMax-13 bfloat16 X [N] (loading and typing only)")):
            got = loads(paths[name])
            print(f"{what}: tract {got}; documents a valid graph (bfloat16 is one of T's types)")
            refused += got != "loads"
    finally:
        for path in paths.values():
            os.unlink(path)
    if refused:
        finish("REPRODUCED", 0)
    finish("NOT REPRODUCED", 1)


if __name__ == "__main__":
    main()
