"""OV6: OpenVINO's CPU plugin flushes bfloat16 subnormals to zero in TopK's output values (the
order is computed on the true values), on CPUs with AVX512_BF16 (tier avx512_core_bf16 and up);
AVX2 CPUs keep the bits. OpenVINO TopK-11: output 1 is "Output tensor of type T with k values
from the input tensor along a specified axis". It prints the CPU's instruction-set flags beside
the bits. Needs openvino, numpy; onnx only for the second graph (ONNX TopK-24 through the ONNX
frontend), which is skipped where onnx or this openvino cannot run it."""
import os
import platform
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


def main():
    print_versions(isa=True)
    seen = cpuid_features()
    has_bf16 = ("AVX512BF16" in seen) if seen is not None else ("avx512_bf16" in cpu()[1])
    print("this CPU has AVX512_BF16:", has_bf16)
    x = np.array([0x0000, 0x0001], np.uint16)  # bfloat16 0.0 and 9.183549615799121e-41 (a subnormal)
    want_bits, want_indices = ["0x0001", "0x0000"], [1, 0]
    try:
        values, indices = native_topk(x, 2, mode="max", stable=False, element=ov.Type.bf16)
    except Exception as error:
        finish(f"CANNOT RUN: this openvino cannot build or run bfloat16 TopK-11: {type(error).__name__}: {error}", 2)
    print("native TopK-11 bfloat16 X bits", hexbits(x, 16), "(0.0, 9.183549615799121e-41), K = 2 max")
    print("  got      value bits", hexbits(values, 16), "indices", indices.tolist())
    print("  expected value bits", want_bits, "indices", want_indices)
    flushed = hexbits(values, 16) != want_bits
    try:  # the same through the ONNX frontend (ONNX TopK-24 admits bfloat16)
        import onnx
        from onnx import TensorProto, helper
        xi = helper.make_tensor_value_info("X", TensorProto.BFLOAT16, [2])
        outs = [helper.make_tensor_value_info("Values", TensorProto.BFLOAT16, [2]),
                helper.make_tensor_value_info("Indices", TensorProto.INT64, [2])]
        node = helper.make_node("TopK", ["X", "K"], ["Values", "Indices"], axis=-1, largest=1, sorted=1)
        graph = helper.make_graph([node], "topk", [xi], outs,
                                  initializer=[helper.make_tensor("K", TensorProto.INT64, [1], [2])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 24)], ir_version=12)
        fd, path = tempfile.mkstemp(suffix=".onnx")
        with os.fdopen(fd, "wb") as f:
            f.write(model.SerializeToString())
        try:
            core = ov.Core()
            request = core.compile_model(core.read_model(path), "CPU").create_infer_request()
        finally:
            os.unlink(path)
        request.infer([ov.Tensor(x, [2], ov.Type.bf16)])
        ovalues = np.array(request.get_output_tensor(0).data).copy().view(np.uint16)
        print("ONNX TopK-24 (onnx", onnx.__version__ + ") bfloat16, same X, K = 2 constant")
        print("  got      value bits", hexbits(ovalues, 16), "indices", np.array(request.get_output_tensor(1).data).tolist())
    except Exception as error:
        print("ONNX TopK-24 graph skipped:", type(error).__name__, str(error).splitlines()[0] if str(error) else "")
    if flushed:
        finish("REPRODUCED", 0)
    print("(kept the bits: expected on CPUs without AVX512_BF16)" if not has_bf16 else "")
    finish("NOT REPRODUCED", 1)


main()
