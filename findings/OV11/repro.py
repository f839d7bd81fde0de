"""OV11 (a cost, not a conformance finding): OpenVINO's CPU plugin takes time proportional to
n*K for TopK-11 with stable=true. Times one inference (compiled beforehand) of the same float32
row with stable=true and with stable=false in the same run and reports the ratio; with K = 1000
of 2**19 elements it is about two orders of magnitude here, where the documents promise nothing
about time. Needs openvino, numpy."""
import platform
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
import time

N, K, RATIO = 2**19, 1000, 20.0


def compiled_topk(n, k, stable):
    data = op.parameter([n], ov.Type.f32)
    node = op.topk(data, op.constant(np.int64(k)), axis=0, mode="max", sort="value",
                   index_element_type="i32", stable=stable)
    return ov.Core().compile_model(ov.Model([node.output(0), node.output(1)], [data]), "CPU").create_infer_request()


def best_of(request, x, repeats):
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        request.infer([x])
        times.append(time.perf_counter() - started)
    return min(times), np.array(request.get_output_tensor(1).data).copy()


def main():
    print_versions()
    x = (np.arange(N) % 3).astype(np.float32)  # three distinct values, heavy ties
    try:
        unstable, stable = compiled_topk(N, K, False), compiled_topk(N, K, True)
    except Exception as error:
        finish(f"CANNOT RUN: this openvino cannot build TopK-11 with stable: {type(error).__name__}: {error}", 2)
    t_unstable, _ = best_of(unstable, x, 3)
    t_stable, indices = best_of(stable, x, 1)
    quarter, _ = best_of(compiled_topk(N, K // 4, True), x, 1)
    ratio = t_stable / max(t_unstable, 1e-6)
    print(f"float32 row of {N} elements (values 0, 1, 2), K = {K}, mode max, sort value, K constant:")
    print(f"  got      stable=true {t_stable:.3f} s, stable=false {t_unstable:.4f} s: ratio {ratio:.0f}")
    print(f"           stable=true with K = {K // 4}: {quarter:.3f} s (K/4: time / {t_stable / max(quarter, 1e-6):.1f})")
    print("  expected no document promises a time; a stable selection of K of n costs O(n log K) or O(n + K log K),")
    print(f"           so a ratio near 1 (the repro counts a ratio above {RATIO:.0f} as the finding)")
    want = np.flatnonzero(x == 2)[:K].tolist()
    print("  (answer correct:", indices.tolist() == want, ")")
    finish("REPRODUCED" if ratio > RATIO else "NOT REPRODUCED", 0 if ratio > RATIO else 1)


main()
