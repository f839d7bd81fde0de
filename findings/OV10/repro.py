"""OV10: NaN placement in OpenVINO's TopK on the CPU plugin: no one placement of NaN (above
every number, or below) explains the output of one graph, and the placement differs between
graphs (native TopK-11 with K constant, the same with K a graph input, an ONNX graph through the
ONNX frontend). No document says where NaN goes (outside the defined domain); this is a
difference, not a broken promise. Needs openvino, numpy, onnx (for the ONNX graph)."""
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
    print("openvino", ov_version(), "| numpy", np.__version__ + (" | onnx " + onnx.__version__ if uses_onnx else ""))
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

try:
    import onnx
    from onnx import TensorProto, helper
except Exception as error:
    finish(f"CANNOT RUN: onnx (used only to build the model) does not import: {error}", 2)

IR_FOR_OPSET = {10: 6, 11: 6, 24: 12}  # the lowest IR version each opset allows


def onnx_topk(x_type, x_shape, k=None, opset=11, largest=1, axis=-1):
    """An ONNX TopK model (K an initializer when k is given, else the graph input K), read by
    OpenVINO's ONNX frontend and compiled for the CPU plugin."""
    x = helper.make_tensor_value_info("X", x_type, list(x_shape))
    kin = helper.make_tensor_value_info("K", TensorProto.INT64, [1])
    node = helper.make_node("TopK", ["X", "K"], ["Values", "Indices"], axis=axis, largest=largest, sorted=1)
    out_shape = list(x_shape)
    out_shape[axis] = k if k is not None else "k"
    outputs = [helper.make_tensor_value_info("Values", x_type, out_shape),
               helper.make_tensor_value_info("Indices", TensorProto.INT64, out_shape)]
    init = [helper.make_tensor("K", TensorProto.INT64, [1], [k])] if k is not None else []
    graph = helper.make_graph([node], "topk", [x] if k is not None else [x, kin], outputs, initializer=init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=IR_FOR_OPSET[opset])
    fd, path = tempfile.mkstemp(suffix=".onnx")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(model.SerializeToString())
        core = ov.Core()
        return core.compile_model(core.read_model(path), "CPU")
    finally:
        os.unlink(path)


def run_onnx(compiled, x, k=None):
    request = compiled.create_infer_request()
    feeds = [x] + ([np.array([k], np.int64)] if k is not None else [])
    request.infer(feeds)
    return np.array(request.get_output_tensor(0).data).copy(), np.array(request.get_output_tensor(1).data).copy()

NAN = float("nan")
ROWS = [[NAN, 1, 2], [1, 2, NAN], [2, NAN, 1]]
# K = 1, max: NaN above every number -> the NaN's index; NaN below -> the largest number's index.
ABOVE, BELOW = [[0], [2], [1]], [[2], [1], [0]]


def judge(label, indices):
    got = indices.tolist()
    verdict = "NaN above" if got == ABOVE else "NaN below" if got == BELOW else "no one NaN placement explains it"
    print(label)
    print("  got      indices", got, "->", verdict)
    return verdict


def main():
    print_versions(uses_onnx=True)
    x = np.array(ROWS, np.float32)
    print("float32 X rows", [[str(v) for v in row] for row in ROWS], "K = 1, max, last axis")
    print("  expected (one NaN placement for the whole tensor): indices", ABOVE, "(NaN above) or", BELOW, "(NaN below)")
    verdicts = []
    try:
        verdicts.append(judge("native TopK-11 stable=true, K constant", native_topk(x, 1, stable=True)[1]))
        verdicts.append(judge("native TopK-11 stable=false, K graph input", native_topk(x, 1, stable=False, k_input=True)[1]))
    except Exception as error:
        finish(f"CANNOT RUN: this openvino cannot build or run TopK-11: {type(error).__name__}: {error}", 2)
    try:
        verdicts.append(judge("ONNX TopK-11 (through the ONNX frontend), K graph input",
                              run_onnx(onnx_topk(TensorProto.FLOAT, [3, 3], k=None, opset=11), x, k=1)[1]))
    except Exception as error:
        print("ONNX TopK-11 graph not run:", type(error).__name__, error)
    inconsistent = any(v.startswith("no one") for v in verdicts) or len(set(verdicts)) > 1
    finish("REPRODUCED" if inconsistent else "NOT REPRODUCED", 0 if inconsistent else 1)


main()
