"""OV7: ov::Tensor::copy_to dies (SIGSEGV) copying the empty output of a TopK model whose output
shape is dynamic (K a graph input); with a constant K it copies. Run in child processes. Not
TopK's arithmetic, but a crash a TopK user with empty inputs meets. Needs openvino, numpy."""
import platform
import subprocess
import sys

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
import sys, numpy as np, openvino as ov
try:
    import openvino.opset11 as op
except ImportError:
    import openvino.runtime.opset11 as op
k_input = sys.argv[1] == "input"
d = op.parameter([0, 1], ov.Type.f32)
k = op.parameter([], ov.Type.i64) if k_input else op.constant(np.int64(1))
t = op.topk(d, k, axis=1, mode="max", sort="value", index_element_type="i32")
r = ov.Core().compile_model(ov.Model([t.output(0), t.output(1)], [d, k] if k_input else [d]), "CPU").create_infer_request()
r.infer([np.zeros((0, 1), np.float32)] + ([np.array(1, np.int64)] if k_input else []))
print("inferred; output shape", list(r.get_output_tensor(0).shape), flush=True)
r.get_output_tensor(0).copy_to(ov.Tensor(np.empty((0, 1), np.float32)))
print("copied", flush=True)
"""


def main():
    print_versions()
    results = {}
    for how in ("constant", "input"):
        done = subprocess.run([sys.executable, "-c", CHILD, how], capture_output=True, text=True, timeout=50)
        out = done.stdout.strip().replace("\n", "; ")
        print(f"float32 X of shape [0, 1], TopK-11 axis 1, K = 1 ({how}), output 0 .copy_to(an empty tensor):")
        print("  got      exit status", done.returncode, "|", out or "(no output)")
        if done.returncode not in (0, -11, 139) and done.stderr.strip():
            print("  stderr:", done.stderr.strip().splitlines()[-1])
        print("  expected exit status 0 and 'copied' (an empty tensor copied)")
        results[how] = done
    child = results["input"]
    if child.returncode < 0 and "inferred" in child.stdout and "copied" not in child.stdout:
        finish("REPRODUCED", 0)  # killed by a signal inside copy_to
    if child.returncode == 0 and "copied" in child.stdout:
        finish("NOT REPRODUCED", 1)
    last = (child.stderr.strip().splitlines() or ["no message"])[-1]
    finish(f"CANNOT RUN: the K-input model did not reach or return from copy_to (exit status {child.returncode}: {last})", 2)

main()
