"""HM-TR2: tract does not check ONNX Hardmax's axis against the input's rank. Hardmax-1 and -11
with axis = rank (2 on a [2, 3] input) are accepted and give an output (all ones: the 2-D
coercion makes rows of one element); any other axis out of range (Hardmax-13 axis 2, Hardmax-11
axis 5 or -3) panics in hir/src/ops/nn/layer_max.rs (LayerHardmax::wire indexes the shape with the
axis) and the panic aborts the process (shown from child processes). ONNX Hardmax: axis'
"Accepted range is [-r, r-1] where r = rank(input)." Standalone: tract, numpy and onnx
(onnx.helper builds the models). The last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or
CANNOT RUN: why (exit 2).

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


IR_FOR_OPSET = {1: 3, 11: 6, 13: 7}  # the lowest IR version each opset allows (onnx.helper.VERSION_TABLE)


def hardmax_graph(shape, axis):
    """One Hardmax over float32 X of a static shape."""
    node = helper.make_node("Hardmax", ["X"], ["Y"], axis=axis)
    return helper.make_graph([node], "hardmax", [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(shape))],
                             [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)])


def fact(shape):
    return ",".join([str(d) for d in shape] + ["f32"])


def run_hardmax(shape, opset, axis, x):
    """Hardmax over x as tract runs it: the output as a list, or tract's error as a string."""
    path = save(hardmax_graph(shape, axis), opset, IR_FOR_OPSET[opset])
    try:
        return run(path, [fact(shape)], [x])
    finally:
        os.unlink(path)


def in_child(shape, opset, axis):
    """run_hardmax in a child process (a panic that aborts kills only the child): what came back,
    or how the child died and the panic's place and message."""
    import signal
    import subprocess
    code = ("import importlib.util, sys; import numpy as np; "
            "spec = importlib.util.spec_from_file_location('hm_tract_repro', %r); "
            "mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod); "
            "print('RESULT', mod.run_hardmax(%r, %d, %d, np.arange(%d, dtype=np.float32).reshape(%r)))"
            % (os.path.abspath(__file__), shape, opset, axis, int(np.prod(shape)), shape))
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=40)
    except subprocess.TimeoutExpired:
        return False, "no answer within 40 s"
    lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    panic = ""
    for i, line in enumerate(lines):
        if "panicked at" in line:
            panic = "; panic " + line.split("panicked at", 1)[1].strip().rstrip(":")
            panic += (" " + lines[i + 1]) if i + 1 < len(lines) and not lines[i + 1].startswith("note:") else ""
            break
    if done.returncode < 0:
        try:
            name = signal.Signals(-done.returncode).name
        except ValueError:
            name = f"signal {-done.returncode}"
        return True, f"the process died of {name}{panic}"
    if done.returncode:
        return True, f"the process exited with status {done.returncode}{panic}"
    out = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    return False, out[-1][len("RESULT "):] if out else done.stdout.strip()[-200:]


def main():
    print_versions()
    print("ONNX Hardmax-1/-11/-13, attribute axis: \"Accepted range is [-r, r-1] where r = rank(input).\" "
          "(onnx's shape inference refuses axis 2 at opsets 11 and 13; an error is the documents' answer)")
    x = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    control = run_hardmax([2, 3], 11, 1, x)
    print(f"Hardmax-11 axis 1, float32 {x.tolist()} (control): tract {control}; documents [[0, 0, 1], [0, 0, 1]]")
    if not isinstance(control, list):
        finish("CANNOT RUN: this tract does not run ONNX Hardmax-11", 2)
    accepted = 0
    for opset in (11, 1):
        got = run_hardmax([2, 3], opset, 2, x)
        print(f"Hardmax-{opset} axis 2, float32 {x.tolist()} (rank 2): tract {got}; documents an error (axis out of range)")
        accepted += isinstance(got, list)
    for opset, axis in ((13, 2), (11, 5), (11, -3)):
        died, what = in_child([2, 3], opset, axis)
        print(f"Hardmax-{opset} axis {axis}, float32 [2, 3], in a child process: tract {what}; "
              "documents an error (axis out of range)")
    finish("REPRODUCED", 0) if accepted else finish("NOT REPRODUCED", 1)


if __name__ == "__main__":
    main()
