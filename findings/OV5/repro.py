"""OV5: OpenVINO's CPU plugin returns float16 and bfloat16 signalling NaN quieted.
OpenVINO TopK-11: output 1 is "Output tensor of type T with k values from the input tensor
along a specified axis" (the input's elements: their bits). Native TopK-11 stable=true, K a
constant. float32 is shown for comparison (it keeps the bits). Needs openvino, numpy."""
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


def main():
    print_versions(isa=True)
    inputs = [  # label, bits (NaN, 1.0), element, numpy bits type
        ("float16", np.array([0x7C01, 0x3C00], np.uint16).view(np.float16), None, 16),
        ("bfloat16", np.array([0x7F81, 0x3F80], np.uint16), ov.Type.bf16, 16),
        ("float32 (comparison)", np.array([0x7F800001, 0x3F800000], np.uint32).view(np.float32), None, 32),
    ]
    quieted = {}
    for label, x, element, width in inputs:
        try:
            values, indices = native_topk(x, 2, mode="max", stable=True, element=element)
        except Exception as error:
            print(label, "not run:", type(error).__name__, error)
            continue
        got, want = sorted(hexbits(values, width)), sorted(hexbits(x, width))
        print(label, "X bits", hexbits(x, width), "(signalling NaN, 1.0), K = 2 max")
        print("  got      value bits", hexbits(values, width), "indices", indices.tolist())
        print("  expected the input's bits, in either NaN placement:", want)
        quieted[label] = got != want
    if "float16" not in quieted and "bfloat16" not in quieted:
        finish("CANNOT RUN: neither float16 nor bfloat16 TopK could be built or run", 2)
    hit = quieted.get("float16") or quieted.get("bfloat16")
    finish("REPRODUCED" if hit else "NOT REPRODUCED", 0 if hit else 1)


main()
