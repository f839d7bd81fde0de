"""AM-ORTOV3: ONNX Runtime's OpenVINO provider answers ArgMax and ArgMin on two rows of one tensor with
NaN under opposite placements.

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
    from onnx import TensorProto, helper
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
        "int64": TensorProto.INT64, "uint32": TensorProto.UINT32, "uint64": TensorProto.UINT64,
        "bfloat16": TensorProto.BFLOAT16}
IR = {1: 3, 11: 6, 12: 7, 13: 7}  # the lowest IR version each opset allows


def arg_model(op, dtype, shape, last=0, opset=13, axis=0, identity=False):
    attrs = {"select_last_index": last} if opset >= 12 else {}
    data = "X_identity" if identity else "X"
    nodes = [helper.make_node(op, [data], ["I"], name=op.lower(), axis=axis, keepdims=1, **attrs)]
    if identity:  # the same node behind an Identity
        nodes.insert(0, helper.make_node("Identity", ["X"], [data], name="identity"))
    graph = helper.make_graph(nodes, "arg", [helper.make_tensor_value_info("X", ELEM[dtype], list(shape))],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=IR[opset])


def arg(op, x, last=0, opset=13, axis=0, identity=False, dtype=None):
    """(indices, placement) or raises what ONNX Runtime raised; dtype names bfloat16 for its bits in uint16."""
    try:
        sess = session(arg_model(op, dtype or x.dtype.name, x.shape, last, opset, axis, identity), identity)
    except Exception as error:
        if "fallback" not in str(error):
            raise
        raise Declined(short(error)) from None
    return sess.run(None, {"X": x})[0], placement(sess, op)


DECLINED = []  # inputs this release's provider does not take


def show(op, x, want, last=0, opset=13, axis=0):
    """Runs one one-node graph; True where the answer is none of `want` (a list of allowed answers)."""
    try:
        indices, where = arg(op, x, last, opset, axis)
    except Declined as error:
        print(f"  {op}-{opset} {x.dtype.name} {x.tolist()} axis {axis} select_last_index={last}: declined: {error}")
        DECLINED.append(f"{op} on {x.dtype.name}")
        return False
    got = indices.ravel().tolist()
    wrong = got not in want
    print(f"  {op}-{opset} {x.dtype.name} {x.tolist()} axis {axis} select_last_index={last}: {got}, {where}; "
          f"documents: {' or '.join(map(str, want))}{'  <- wrong' if wrong else ''}")
    return wrong

header()
print("One-node ArgMax/ArgMin graphs, keepdims 1. No document places NaN: the answers listed are those of the "
      "two consistent placements (every NaN above every number, or below); one placement must explain the "
      "whole tensor")
nan = np.nan
print("Each row alone: answered as if NaN were below every number (valid under that placement):")
show("ArgMax", np.array([1, 2, 2, nan], np.float32), [[3], [1]])
show("ArgMax", np.array([nan, 1, 2, 2], np.float32), [[0], [3]], last=1)
print("Two rows of one tensor, axis 1:")
rows = np.array([[0, nan], [nan, 0]], np.float32)
wrong = show("ArgMax", rows, [[1, 0], [0, 1]], axis=1)
wrong += show("ArgMin", rows, [[0, 1], [1, 0]], axis=1)
if wrong:
    print("REPRODUCED")
    sys.exit(0)
if DECLINED:
    cannot(f"the provider declines {', '.join(DECLINED)} in this release")
print("NOT REPRODUCED")
sys.exit(1)
