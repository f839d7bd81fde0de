"""TR5: tract's TopK sorts NaN with a comparison that calls NaN smaller than anything in both
orders (partial_cmp, None taken as Less), which is no order: outputs no placement of NaN explains. Standalone: tract, numpy and onnx (onnx.helper builds the models).
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


def placements(x, k, largest):
    """The indices the documents allow under each placement of NaN: every NaN above every number,
    or every NaN below; equal values (NaN with NaN too) the lower index first."""
    allowed = {}
    for name, nan_rank in (("NaN high", 1), ("NaN low", -1)):
        def key(i):
            value = float(x[i])
            rank = (nan_rank, 0.0) if value != value else (0, value)
            return ((-rank[0], -rank[1]) if largest else rank, i)
        allowed[name] = sorted(range(len(x)), key=key)[:k]
    return allowed


def main():
    print_versions()
    print('ONNX TopK-11: "Given two equivalent values, this operator uses the indices along the axis as a '
          'tiebreaker. That is, the element with the lower index will appear first"; no ONNX document says '
          'where NaN goes: any one placement (every NaN above every number, or every NaN below) is accepted')
    nan = float("nan")
    paths = {1: save(topk11(largest=1), 11, 6), 0: save(topk11(largest=0), 11, 6)}
    broken = 0
    try:
        control = run(paths[1], ["3,f32", "1,i64"], [np.array([1, 3, 2], np.float32), np.array([2], np.int64)])
        print(f"TopK-11 [1, 3, 2] K=2 (control): tract {control}; documents [[3.0, 2.0], [1, 2]]")
        if not isinstance(control, list):
            finish("CANNOT RUN: this tract does not run TopK-11 (no ONNX TopK here)", 2)
        for values, k, largest in (([0, nan, 1], 1, 1), ([nan, nan], 2, 0), ([nan, 0, nan], 3, 1), ([1, nan], 1, 1)):
            x = np.array(values, np.float32)
            got = run(paths[largest], [f"{len(x)},f32", "1,i64"], [x, np.array([k], np.int64)])
            allowed = placements(x, k, largest)
            ok = isinstance(got, list) and got[1] in allowed.values()
            what = f"TopK-11 {'largest' if largest else 'smallest'} {x.tolist()} K={k}"
            print(f"{what}: tract {got}; documents indices {allowed['NaN high']} (NaN high) or "
                  f"{allowed['NaN low']} (NaN low){'' if ok else '  <- no placement of NaN gives this'}")
            broken += isinstance(got, list) and not ok
    finally:
        for path in paths.values():
            os.unlink(path)
    finish("REPRODUCED", 0) if broken else finish("NOT REPRODUCED", 1)


if __name__ == "__main__":
    main()
