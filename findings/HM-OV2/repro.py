"""HM-OV2: OpenVINO's ONNX frontend gives Hardmax over a tensor with a zero-sized dimension (other
than the axis) an output of the wrong shape: Hardmax-13 axis 0 of float32 [2, 0] returns a [2, 1]
tensor (holding uninitialized memory) instead of the empty [2, 0]; Hardmax-1/-11 axis 0 of [0, 3]
return [1, 3]. ONNX Hardmax: the output has "the same shape as the input tensor". Hardmax of a
rank-1 [0] input kills the process (SIGSEGV), shown from a child process. Needs openvino, numpy,
onnx (to build the models)."""
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


def crash_in_child(shape, opset, axis):
    """Runs Hardmax on shape in a child process (a crash kills only the child); returns how it ended."""
    import subprocess
    code = ("import importlib.util, sys; import numpy as np; "
            "spec = importlib.util.spec_from_file_location('hm_ov2_repro', %r); "
            "mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod); "
            "print(list(mod.run_hardmax(%r, %d, %d, np.zeros(%r, np.float32)).shape))"
            % (os.path.abspath(__file__), shape, opset, axis, shape))
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=40)
    except subprocess.TimeoutExpired:
        return "no answer within 40 s"
    if done.returncode < 0:
        import signal
        try:
            return f"the process died of {signal.Signals(-done.returncode).name}"
        except ValueError:
            return f"the process died of signal {-done.returncode}"
    if done.returncode:
        tail = (done.stderr.strip().splitlines() or [""])[-1]
        return f"exit status {done.returncode}: {tail[:200]}"
    return "output shape " + done.stdout.strip()


def main():
    print_versions()
    print('ONNX Hardmax-13, output Y: "The output values with the same shape as the input tensor." (Hardmax-1/-11: "The output values with the same shape as input tensor (the original size without coercion).")')
    wrong = ran = 0
    for shape, opset, axis in (([2, 0], 13, 0), ([2, 0, 3], 13, 0), ([0, 3], 11, 0), ([0, 3], 1, 0)):
        x = np.zeros(shape, np.float32)
        print(f"Hardmax-{opset} axis {axis}, float32 {shape} (empty)")
        try:
            y = run_hardmax(shape, opset, axis, x)
        except Exception as error:
            print("  not run:", type(error).__name__, (str(error).splitlines() or [""])[0][:200])
            continue
        ran += 1
        print("  got      shape", list(y.shape), "values", y.ravel().tolist()[:8])
        print("  ONNX says shape", shape, "(empty)")
        wrong += list(y.shape) != shape
    print("Hardmax-13 axis 0, float32 [0] (empty, rank 1), in a child process")
    print("  got     ", crash_in_child([0], 13, 0))
    print("  ONNX says output shape [0]")
    if not ran:
        finish("CANNOT RUN: this openvino could not read or run any of the Hardmax models", 2)
    finish("REPRODUCED", 0) if wrong else finish("NOT REPRODUCED", 1)


if __name__ == "__main__":
    main()
