"""OpenVINO's CPU plugin on TopK with K above the axis of an empty input (float32 X of shape [0],
K = 1): with K a constant it returns one element of uninitialized memory, with K a graph input
the process dies (SIGSEGV), in an opset11.topk and in an ONNX TopK-11 model read by the ONNX
frontend alike; an ONNX model on X of shape [0, 1] with K = 2 returns empty outputs of shape
[0, 2]. OpenVINO TopK-11 leaves this undefined ("The behavior of this operator is undefined if
the value of K does not meet those requirements"), so OpenVINO's own models only show crashes and
garbage; ONNX TopK wants an error when K exceeds the axis. Each model runs in a child process
(this script run again with an argument), where a crash cannot end the repro. Needs openvino,
onnx (only to build the ONNX models), numpy. The last line is REPRODUCED (exit 0), NOT
REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import platform
import subprocess
import sys

try:
    import numpy as np
    import onnx
    import openvino as ov
    op = getattr(ov, "opset11", None) or ov.runtime.opset11  # before 2025.0: openvino.runtime.opset11
except Exception as error:  # a module missing, or a build that cannot load here
    print(f"CANNOT RUN: a module is missing or cannot load ({type(error).__name__}: {error})")
    sys.exit(2)

CASES = [("OpenVINO", "a constant", [0], 1), ("OpenVINO", "a graph input", [0], 1), ("ONNX", "a constant", [0], 1),
         ("ONNX", "a graph input", [0], 1), ("ONNX", "a constant", [0, 1], 2)]  # TopK-11, X's shape, K
if len(sys.argv) > 1:  # the child: one of CASES, on the last axis of a float32 X of zeros
    graph, how, shape, k = CASES[int(sys.argv[1])]
    k_input, out = how == "a graph input", shape[:-1] + [k]  # out: the output's static shape
    if graph == "OpenVINO":
        x, kk = op.parameter(shape, np.float32), op.parameter([], np.int64) if k_input else op.constant(np.int64(k))
        model = ov.Model(op.topk(x, kk, -1, "max", "value", "i32").outputs(), [x, kk] if k_input else [x])
    else:  # ONNX TopK-11 at the lowest IR version for opset 11, read from memory
        model = ov.Core().read_model(onnx.parser.parse_model(f"""<ir_version: 6, opset_import: ["" : 11]>
            topk (float{shape} X{", int64[1] K" if k_input else ""}) => (float{out} V, int64{out} I)
            {"" if k_input else f"<int64[1] K = {{{k}}}>"} {{ V, I = TopK (X, K) }}""").SerializeToString())
    compiled = ov.Core().compile_model(model, "CPU")
    feeds = [np.zeros(shape, np.float32), np.full([] if graph == "OpenVINO" else [1], k, np.int64)]
    values = compiled(feeds[:len(compiled.inputs)])[0]
    print(f"outputs: values {values.tolist()} of shape {list(values.shape)}")
    sys.exit(0)
print(f"openvino {ov.get_version()}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
hits = []
for case, (graph, how, shape, k) in enumerate(CASES):
    child = subprocess.run([sys.executable, __file__, str(case)], capture_output=True, text=True)
    print(f"{graph} TopK-11, float32 X of shape {shape}, K = {k} ({how})\n  expected "
          f"{'an error, as ONNX Runtime gives' if graph == 'ONNX' else 'nothing defined (K not in [1, 0])'}\n  "
          f"OpenVINO: {child.stdout.strip()} " + (f"killed by signal {-child.returncode}" if child.returncode < 0
                                                  else (child.stderr.strip().splitlines() or [""])[-1]))
    # OpenVINO (opset11.topk): an error or an empty output is a safe answer; ONNX: only an error
    hits.append(child.returncode < 0 or (child.returncode == 0 and (graph == "ONNX" or "[]" not in child.stdout)))
print("REPRODUCED" if any(hits) else "NOT REPRODUCED")
sys.exit(0 if any(hits) else 1)
