"""ORTOV7: ONNX Runtime's OpenVINO provider returns outputs for TopK-1 with K (the attribute) above
the axis size, instead of an error.

Standalone: onnx (to build the model), numpy, and onnxruntime from the onnxruntime-openvino wheel (1.24.1 bundles OpenVINO 2025.4.1;
it installs the module `onnxruntime`, so use a virtual environment of its own). Sessions use the OpenVINO provider alone, device CPU,
precision FP32, with CPU fall-back disabled (`session.disable_cpu_ep_fallback`): a session is refused if any node would go to ONNX
Runtime's CPU provider; where the release keeps one, ONNX Runtime's own assignment record is printed.
Last line: REPRODUCED (0), NOT REPRODUCED (1) or CANNOT RUN: why (2).
"""
import importlib.metadata as _md
import os
import platform
import sys


def cannot(why):
    print(f"CANNOT RUN: {why}")
    sys.exit(2)


try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
except Exception as error:  # a module missing, or one that cannot load here
    cannot(f"import failed: {type(error).__name__}: {error}")

PROVIDER = "OpenVINOExecutionProvider"
OPTIONS = {"device_type": "CPU", "precision": "FP32"}


def cpu():
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def distribution(name):
    try:
        return _md.version(name)
    except Exception:
        return "not installed"


def bundled_openvino():
    """The OpenVINO libraries the wheel carries beside onnxruntime (file names hold the version)."""
    folder = os.path.join(os.path.dirname(ort.__file__), "capi")
    try:
        names = sorted(n for n in os.listdir(folder) if n.startswith(("libopenvino.so.", "openvino.dll")))
    except OSError:
        names = []
    return ", ".join(names) or "none in the wheel (an installed openvino package: " + distribution("openvino") + ")"


def header():
    print(f"python {platform.python_version()}; {platform.platform()}; CPU: {cpu()}")
    print(f"onnxruntime {ort.__version__} (onnxruntime-openvino {distribution('onnxruntime-openvino')}); "
          f"OpenVINO bundled: {bundled_openvino()}; onnx {onnx.__version__}; numpy {np.__version__}")
    have = ort.get_available_providers()
    print(f"providers: {have}")
    if PROVIDER not in have:
        cannot(f"{PROVIDER} is not in this onnxruntime build (install onnxruntime-openvino)")


ort.set_default_logger_severity(4)


class Declined(Exception):
    """The provider did not take the node (CPU fall-back disabled made the session fail)."""


def session(model, identity=False):
    """A session on the OpenVINO provider alone, CPU fall-back disabled: it is refused if any node
    would go to ONNX Runtime's CPU provider."""
    options = ort.SessionOptions()
    options.log_severity_level = 4
    options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    options.add_session_config_entry("session.record_ep_graph_assignment_info", "1")
    return ort.InferenceSession(model.SerializeToString(), options, providers=[(PROVIDER, OPTIONS)],
                                disabled_optimizers=["EliminateIdentity"] if identity else None)


def placement(sess, op_type):
    """ONNX Runtime's own record of where the node went, where this release keeps one."""
    try:
        info = sess.get_provider_graph_assignment_info()
    except Exception:
        return f"{op_type} on {PROVIDER} (session built with CPU fall-back disabled)"
    placed = sorted({sub.ep_name for sub in info for node in sub.get_nodes() if node.op_type == op_type})
    return f"{op_type} on {placed}"


def short(error):
    text = " ".join(str(error).split())
    for marker in ("This session contains", "[ShapeInferenceError]", "[CPU] TopK", "Exception from"):
        if marker in text:
            text = text[text.index(marker):]
            break
    return f"{type(error).__name__}: {text[:150]}"

ELEM = {"float16": TensorProto.FLOAT16, "float32": TensorProto.FLOAT, "float64": TensorProto.DOUBLE,
        "int32": TensorProto.INT32, "int64": TensorProto.INT64, "uint32": TensorProto.UINT32,
        "uint64": TensorProto.UINT64}
IR = {1: 3, 10: 5, 11: 6}  # the lowest IR version each opset allows


def topk_model(dtype, shape, k, k_source="input", opset=11, identity=True, largest=1, axis=-1, after=0):
    """ONNX TopK; K a graph input, an initializer ('constant') or the opset-1 attribute; with
    identity=True an Identity feeds TopK (the provider declines a graph of three or fewer nodes that
    starts with TopK); after: Identity nodes after the values output."""
    data = "X_identity" if identity else "X"
    inputs = [helper.make_tensor_value_info("X", ELEM[dtype], list(shape))]
    initializers = []
    if opset == 1:
        node = helper.make_node("TopK", [data], ["V0", "I"], name="topk", axis=axis, k=k)
    else:
        attrs = {"largest": largest, "sorted": 1} if opset >= 11 else {}
        node = helper.make_node("TopK", [data, "K"], ["V0", "I"], name="topk", axis=axis, **attrs)
        if k_source == "input":
            inputs.append(helper.make_tensor_value_info("K", TensorProto.INT64, [1]))
        else:
            initializers.append(numpy_helper.from_array(np.array([k], np.int64), "K"))
    nodes = [node]
    if identity:
        nodes.insert(0, helper.make_node("Identity", ["X"], [data], name="identity"))
    for i in range(after):
        nodes.append(helper.make_node("Identity", [f"V{i}"], [f"V{i + 1}"], name=f"after{i}"))
    outputs = [helper.make_tensor_value_info(f"V{after}", ELEM[dtype], None),
               helper.make_tensor_value_info("I", TensorProto.INT64, None)]
    graph = helper.make_graph(nodes, "topk", inputs, outputs, initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=IR[opset])


def topk(x, k, k_source="input", opset=11, identity=True, largest=1, axis=-1, after=0):
    """(values, indices, placement) or raises what ONNX Runtime raised."""
    # Where this release declines TopK behind a lone Identity, the same TopK with two Identity
    # nodes after its values output (four nodes) is offered instead.
    tries = [(identity, after)] + ([(True, 2)] if identity and after == 0 else [])
    for n, (identity, after) in enumerate(tries):
        model = topk_model(x.dtype.name, x.shape, k, k_source, opset, identity, largest, axis, after)
        try:
            sess = session(model, identity or after > 0)
            break
        except Exception as error:
            if "fallback" not in str(error):
                raise
            if n + 1 == len(tries):
                raise Declined(short(error)) from None
    feeds = {"X": x}
    if opset != 1 and k_source == "input":
        feeds["K"] = np.array([k], np.int64)
    values, indices = sess.run(None, feeds)
    return values, indices, placement(sess, "TopK") + (" (4-node graph)" if after else "")

header()
x = np.array([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]], np.float32)
print(f"TopK behind an Identity (the provider declines TopK as a graph's first node of three or fewer), float32 "
      f"{x.tolist()}, axis 1 (5 elements), K = 6")
print("documents: ONNX TopK's outputs have shape [..., k, ...] of \"the top k elements along the specified axis\"; "
      "an axis of 5 has no 6 top elements: an error (ONNX Runtime's CPU provider and the reference evaluator "
      "refuse it)")
accepted = 0
for label, kw in (("TopK-1, K = 6 the attribute", dict(opset=1)),
                  ("TopK-11, K = 6 a graph input", dict(opset=11)),
                  ("TopK-11, K = 6 an initializer", dict(opset=11, k_source="constant"))):
    try:
        values, indices, where = topk(x, 6, axis=1, **kw)
        accepted += kw["opset"] == 1
        print(f"  {label}: values {values.tolist()}, indices {indices.tolist()}, {where}  <- outputs, no error")
    except Exception as error:
        print(f"  {label}: refused: {short(error)}")
        if kw["opset"] == 1 and isinstance(error, Declined):
            cannot("the provider declines the TopK-1 graph in this release (the session needs the CPU provider)")
if accepted:
    print("REPRODUCED")
    sys.exit(0)
print("NOT REPRODUCED")
sys.exit(1)
