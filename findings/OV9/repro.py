"""OV9: K above the axis on an empty input. TopK-11 leaves it undefined ("The behavior of this
operator is undefined if the value of K does not meet those requirements"), ONNX wants an error
(K larger than the axis): OpenVINO's CPU plugin returns an output of K elements of uninitialized
memory with K constant and dies (SIGSEGV) with K as a graph input; through the ONNX frontend
likewise. Every graph runs in a child process. Needs openvino, numpy, onnx (for the ONNX graph)."""
import os
import platform
import subprocess
import sys
import tempfile

ISA_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx_vnni", "avx512f", "avx512bw", "avx512vl", "avx512_vnni",
             "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8")


def finish(verdict, status):
    print(verdict)
    sys.exit(status)


def cpu():
    """The CPU's name and its instruction-set flags (from /proc/cpuinfo where there is one)."""
    name, flags = "", []
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and not name:
                    name = value.strip()
                elif key.strip() == "flags" and not flags:
                    flags = value.split()
    except OSError:
        pass
    return name or platform.processor() or "unknown", flags


try:
    import numpy as np
    import openvino as ov
except Exception as error:  # not installed, or an install that does not import
    finish(f"CANNOT RUN: {type(error).__name__}: {error}", 2)
try:
    import openvino.opset11 as op
except ImportError:
    try:
        import openvino.runtime.opset11 as op  # releases before the top-level opset modules
    except ImportError as error:
        finish(f"CANNOT RUN: this openvino has no opset11 API ({error})", 2)


def cpuid_features():
    """The instruction sets this process sees (numpy's own CPUID check; under an emulator such
    as qemu-x86_64 they differ from the host's /proc/cpuinfo)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:
        try:
            from numpy.core._multiarray_umath import __cpu_features__ as features
        except ImportError:
            return None
    return [f for f in ("AVX", "AVX2", "FMA3", "AVX512F", "AVX512BW", "AVX512VL", "AVX512VNNI", "AVX512BF16",
                        "AVX512FP16") if features.get(f)]


def ov_version():
    get = getattr(ov, "get_version", None) or ov.runtime.get_version
    return get()


def print_versions(uses_onnx=False, isa=False):
    name, flags = cpu()
    print("python", sys.version.split()[0], "|", platform.platform())
    print("CPU:", name)
    if isa:
        print("CPU flags (/proc/cpuinfo):", " ".join(f for f in ISA_FLAGS if f in flags) or "none listed")
        seen = cpuid_features()
        if seen is not None:
            print("CPUID features this process sees (numpy):", " ".join(seen) or "none of AVX and up")
    print("openvino", ov_version(), "| numpy", np.__version__ + (" | onnx " + sys.modules["onnx"].__version__ if uses_onnx else ""))
    try:
        caps = ov.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")
        print("OpenVINO CPU capabilities:", " ".join(caps))
    except Exception:
        pass


def native_topk(x, k, mode="max", sort="value", stable=False, k_input=False, element=None, axis=-1, hint=None):
    """OpenVINO's own TopK-11 on the CPU plugin; x is numpy (uint16 bits where element is bf16).
    Returns (values, indices) as numpy arrays (bf16 values as their uint16 bits)."""
    element = element or ov.Type(x.dtype)
    data = op.parameter(list(x.shape), element)
    kk = op.parameter([], ov.Type.i64) if k_input else op.constant(np.int64(k))
    node = op.topk(data, kk, axis=axis, mode=mode, sort=sort, index_element_type="i32", stable=stable)
    inputs = [data, kk] if k_input else [data]
    config = {"INFERENCE_PRECISION_HINT": hint} if hint else {}
    compiled = ov.Core().compile_model(ov.Model([node.output(0), node.output(1)], inputs), "CPU", config)
    request = compiled.create_infer_request()
    feed = ov.Tensor(np.ascontiguousarray(x), list(x.shape), ov.Type.bf16) if element == ov.Type.bf16 else x
    request.infer([feed] + ([np.array(k, np.int64)] if k_input else []))
    values = np.array(request.get_output_tensor(0).data).copy()
    if element == ov.Type.bf16:
        values = values.view(np.uint16)
    return values, np.array(request.get_output_tensor(1).data).copy()


def hexbits(values, width):
    return [f"0x{int(b):0{width // 4}x}" for b in np.ascontiguousarray(values).view(f"u{width // 8}").ravel()]

CHILD = r"""
import os, sys, tempfile, numpy as np, openvino as ov
try:
    import openvino.opset11 as op
except ImportError:
    import openvino.runtime.opset11 as op
graph, how, shape, k = sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3].split(",")], int(sys.argv[4])
core = ov.Core()
if graph == "native":
    d = op.parameter(shape, ov.Type.f32)
    kk = op.parameter([], ov.Type.i64) if how == "input" else op.constant(np.int64(k))
    t = op.topk(d, kk, axis=-1, mode="max", sort="value", index_element_type="i32")
    m = ov.Model([t.output(0), t.output(1)], [d, kk] if how == "input" else [d])
    print("built", flush=True)
    compiled = core.compile_model(m, "CPU")
    kfeed = [np.array(k, np.int64)]
else:
    from onnx import TensorProto, helper
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, shape)
    out_shape = shape[:-1] + [k]
    outs = [helper.make_tensor_value_info("V", TensorProto.FLOAT, out_shape),
            helper.make_tensor_value_info("I", TensorProto.INT64, out_shape)]
    node = helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=-1, largest=1, sorted=1)
    inputs = [x, helper.make_tensor_value_info("K", TensorProto.INT64, [1])] if how == "input" else [x]
    init = [] if how == "input" else [helper.make_tensor("K", TensorProto.INT64, [1], [k])]
    model = helper.make_model(helper.make_graph([node], "topk", inputs, outs, initializer=init),
                              opset_imports=[helper.make_opsetid("", 11)], ir_version=6)
    fd, path = tempfile.mkstemp(suffix=".onnx", dir=os.environ.get("REPRO_TMP"))
    with os.fdopen(fd, "wb") as f:
        f.write(model.SerializeToString())
    print("built", flush=True)
    try:
        m = core.read_model(path)
    finally:
        os.unlink(path)
    compiled = core.compile_model(m, "CPU")
    kfeed = [np.array([k], np.int64)]
print("compiled", flush=True)
r = compiled.create_infer_request()
try:
    r.infer([np.zeros(shape, np.float32)] + (kfeed if how == "input" else []))
except Exception as e:
    print("error:", str(e).strip().splitlines()[-1][:160], flush=True)
    sys.exit(3)
print("outputs: values", np.array(r.get_output_tensor(0).data).tolist(), "of shape", list(r.get_output_tensor(0).shape),
      "indices", np.array(r.get_output_tensor(1).data).tolist(), "| elements:", r.get_output_tensor(0).size, flush=True)
"""


def main():
    print_versions()
    outcomes = []
    runs = [("native", "constant", "0", 1), ("native", "input", "0", 1),
            ("onnx", "constant", "0", 1), ("onnx", "input", "0", 1), ("onnx", "constant", "0,1", 2)]
    scratch = tempfile.TemporaryDirectory()  # a child killed by a signal leaves its model file here
    for graph, how, shape, k in runs:
        done = subprocess.run([sys.executable, "-c", CHILD, graph, how, shape, str(k)], capture_output=True,
                              text=True, timeout=50, env=dict(os.environ, REPRO_TMP=scratch.name))
        out = done.stdout.strip().replace("\n", "; ")
        label = "native TopK-11" if graph == "native" else "ONNX TopK-11"
        print(f"{label}, float32 X of shape [{shape}], K = {k} ({how}) on the last axis:")
        if "built" not in done.stdout:
            last = (done.stderr.strip().splitlines() or ["no message"])[-1][:160]
            print("  not built or compiled here:", last)
            outcomes.append(None)
            continue
        print("  got      exit status", done.returncode, "|", out,
              "(killed by a signal while reading or compiling the model)" if done.returncode < 0 and "compiled" not in out else "")
        print("  expected", "an error (ONNX: K larger than the axis)" if graph == "onnx" else
              "undefined (TopK-11); an error or an empty output would be the safe answer")
        crashed = done.returncode < 0
        answered = done.returncode == 0 and "outputs:" in done.stdout
        if graph == "native":  # TopK-11 leaves it undefined: only garbage elements or a crash count
            answered = answered and not done.stdout.rstrip().endswith("elements: 0")
        outcomes.append(crashed or answered)
    scratch.cleanup()
    if all(o is None for o in outcomes):
        finish("CANNOT RUN: no graph could be built with this openvino", 2)
    hit = any(outcomes)
    finish("REPRODUCED" if hit else "NOT REPRODUCED", 0 if hit else 1)


main()
