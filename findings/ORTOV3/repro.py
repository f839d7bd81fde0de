"""ONNX Runtime's OpenVINO execution provider: TopK-11 with K = 0 given as a graph input kills the
process (SIGSEGV) when the session runs; the session is built. ONNX TopK wants K to be "a single
positive value", so K = 0 is outside it: an error, or the empty outputs of shape [2, 0] that ONNX
Runtime's CPU provider returns, would do; a dead process does not. K = 0 as an initializer is refused
at session creation; K = 1 as a graph input runs (the control). The TopK stands behind an Identity
(the provider declines TopK as the first node of a small graph), with CPU fall-back disabled
(session.disable_cpu_ep_fallback = 1), so that it runs on the OpenVINO provider or not at all.
Each run goes in a child process (this script, run with K and its source as arguments).
Needs onnxruntime-openvino (it installs the module onnxruntime), onnx (only to build the models) and
numpy. Prints the versions, the input and, per run, its exit status and what it printed. The last
line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import platform
import subprocess
import sys

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    if "OpenVINOExecutionProvider" not in ort.get_available_providers():
        raise ImportError("this onnxruntime has no OpenVINOExecutionProvider (install onnxruntime-openvino)")
except Exception as error:  # a module missing, a build that cannot load here, or no OpenVINO provider
    print(f"CANNOT RUN: {type(error).__name__}: {error}")
    sys.exit(2)

ort.set_default_logger_severity(4)
x = np.array([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]], np.float32)
if len(sys.argv) == 3:  # the child: one session and one run, which may kill it
    k, k_input = int(sys.argv[1]), sys.argv[2] == "input"
    model = onnx.parser.parse_model(
        f'<ir_version: 6, opset_import: ["" : 11]> topk (float[2, 5] X{", int64[1] K" * k_input}) => '
        f'(float[2, k] V, int64[2, k] I) {"<int64[1] K = {0}>" * (not k_input)} {{Y = Identity(X) V, I = TopK(Y, K)}}')
    options = ort.SessionOptions()  # the session fails where a node would go to ONNX Runtime's CPU provider
    options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    session = ort.InferenceSession(model.SerializeToString(), options, providers=[("OpenVINOExecutionProvider", {
        "device_type": "CPU", "precision": "FP32"})], disabled_optimizers=["EliminateIdentity"])  # keep the Identity
    print("session built; running", flush=True)
    values, indices = session.run(None, {"X": x, "K": np.array([k], np.int64)} if k_input else {"X": x})
    print(f"values {values.tolist()} (shape {list(values.shape)}), indices {indices.tolist()}")
    sys.exit(0)

print(f"onnxruntime-openvino {ort.__version__}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
print(f"input float32 {x.tolist()}, Identity then TopK-11, axis -1; ONNX wants K \"a single positive value\"")
codes = []
for k, source in ((1, "input"), (0, "initializer"), (0, "input")):
    child = subprocess.run([sys.executable, __file__, str(k), source], capture_output=True, text=True, timeout=60)
    codes.append(child.returncode)
    said = child.stdout.splitlines() + child.stderr.splitlines()[-1:]  # a Python error's last line
    print(f"  K = {k} as {'a graph input' if source == 'input' else 'an initializer'}: exit status {child.returncode}"
          f"{' (SIGSEGV)' * (child.returncode == -11)}: {' | '.join(said)[:250]}")
verdict = "CANNOT RUN: the K = 1 control failed" if codes[0] else "REPRODUCED" if codes[2] < 0 else "NOT REPRODUCED"
print(verdict)
sys.exit({"C": 2, "R": 0, "N": 1}[verdict[0]])
