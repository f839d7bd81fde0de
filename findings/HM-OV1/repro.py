"""HM-OV1: OpenVINO's ONNX frontend lowers ONNX Hardmax to TopK-11 (k = 1, mode max, stable=false)
and OneHot (after a Reshape to 2-D for Hardmax-1 and -11). The CPU plugin's TopK then may give the
1 to a later one of several equal maxima. ONNX Hardmax-13: "Hardmax(element in input, axis) = 1 if
the element is the first maximum value along the specified axis, 0 otherwise". On an AVX-512 CPU a row of 16 elements
shows it, on an AVX2 CPU one of 8 already. Needs openvino, numpy, onnx (to build the models)."""
import os
import platform
import sys
import tempfile

ISA_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx_vnni", "avx512f", "avx512bw", "avx512vl", "avx512_vnni",
             "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8")
IR_FOR_OPSET = {1: 3, 11: 6, 13: 7}  # the lowest IR version each opset allows (onnx.helper.VERSION_TABLE)


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
    import onnx
    import openvino as ov
    from onnx import TensorProto, helper
except Exception as error:  # not installed, or an install that does not import
    finish(f"CANNOT RUN: {type(error).__name__}: {error}", 2)


def ov_version():
    get = getattr(ov, "get_version", None) or ov.runtime.get_version
    return get()


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


def print_versions():
    name, flags = cpu()
    print("python", sys.version.split()[0], "|", platform.platform())
    print("CPU:", name)
    print("CPU flags (/proc/cpuinfo):", " ".join(f for f in ISA_FLAGS if f in flags) or "none listed")
    seen = cpuid_features()
    if seen is not None:
        print("CPUID features this process sees (numpy):", " ".join(seen) or "none of AVX and up")
    print("openvino", ov_version(), "| numpy", np.__version__, "| onnx", onnx.__version__)
    try:
        print("OpenVINO CPU capabilities:", " ".join(ov.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")))
    except Exception:
        pass
    if os.environ.get("ONEDNN_MAX_CPU_ISA"):
        print("ONEDNN_MAX_CPU_ISA =", os.environ["ONEDNN_MAX_CPU_ISA"])


def hardmax_model_bytes(shape, opset, axis):
    """An ONNX model holding one Hardmax (float32 X of a static shape), as bytes."""
    node = helper.make_node("Hardmax", ["X"], ["Y"], axis=axis)
    graph = helper.make_graph([node], "hardmax", [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(shape))],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = IR_FOR_OPSET[opset]
    return model.SerializeToString()


def run_hardmax(shape, opset, axis, x):
    """The model read by OpenVINO's ONNX frontend (read_model), compiled for the CPU plugin, run on x."""
    fd, path = tempfile.mkstemp(suffix=".onnx")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(hardmax_model_bytes(shape, opset, axis))
        core = ov.Core()
        compiled = core.compile_model(core.read_model(path), "CPU")
    finally:
        os.unlink(path)
    request = compiled.create_infer_request()
    request.infer([x])
    return np.array(request.get_output_tensor(0).data).copy()


def ones_at(y):
    return [int(i) for i in np.flatnonzero(np.asarray(y).ravel())]


def main():
    print_versions()
    print('ONNX Hardmax-13: "Hardmax(element in input, axis) = 1 if the element is the first maximum value along '
          'the specified axis, 0 otherwise". Hardmax-1/-11 coerce the input to 2-D at axis (a row is every dimension from axis on) '
          'and give "1 for the first maximum value, and 0 for all others".')
    row16 = np.zeros(16, np.float32)
    row16[[1, 4]] = 1.0
    row8 = np.zeros(8, np.float32)
    row8[[1, 4]] = 1.0
    inputs = [  # (what, shape, opset, axis, x)
        ("Hardmax-13 axis 0, float32 [16]", [16], 13, 0, row16),
        ("Hardmax-11 axis 0, float32 [2, 8] (one row of 16 after the 2-D coercion)", [2, 8], 11, 0, row16.reshape(2, 8)),
        ("Hardmax-1 axis 0, float32 [2, 8] (one row of 16 after the 2-D coercion)", [2, 8], 1, 0, row16.reshape(2, 8)),
        ("Hardmax-13 axis 0, float32 [8] (wrong on AVX2 CPUs; on AVX-512 ones right)", [8], 13, 0, row8),
    ]
    wrong = ran = 0
    for what, shape, opset, axis, x in inputs:
        print(what)
        print("  input    ", x.tolist(), "(maxima 1.0 at flat positions 1 and 4)")
        try:
            y = run_hardmax(shape, opset, axis, x)
        except Exception as error:
            print("  not run:", type(error).__name__, str(error).splitlines()[0][:200] if str(error) else "")
            continue
        ran += 1
        got = ones_at(y)
        print("  got      ", y.tolist(), "-> the 1 at flat", got)
        print("  ONNX says the 1 at flat [1] (the first maximum)")
        wrong += got != [1]
    if not ran:
        finish("CANNOT RUN: this openvino could not read or run any of the Hardmax models", 2)
    finish("REPRODUCED", 0) if wrong else finish("NOT REPRODUCED", 1)


main()
