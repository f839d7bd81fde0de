"""OpenVINO refuses K = 0 in TopK, also for ONNX models, and refuses K = 1 given as a constant of a
sub-byte integer type. An ONNX TopK-11 model fed K = [0] as a graph input fails with "K (0) must
be greater or equal to 1" (releases before 2026.2 die with SIGSEGV instead), where ONNX Runtime
and the ONNX reference implementation return empty values and indices; ONNX TopK describes K as
"A 1-D tensor containing a single positive value", so K = 0 is outside its defined domain. A
opset11.topk with K = 1 as a u1 constant fails with "Element not supported", although
TopK-11's K is "a scalar of any integer type". The ONNX model runs in a child process (this
script run again with an argument), where a crash cannot end the repro. Needs openvino, onnx
(only to build the ONNX model), numpy. The last line is REPRODUCED (exit 0), NOT REPRODUCED
(exit 1) or CANNOT RUN: why (exit 2)."""
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


def outcome(run):
    """What run() gives: its two outputs, or the last line of its error."""
    try:
        return "values {}, indices {}".format(*(array.tolist() for array in run().values()))
    except Exception as error:
        return "an error: " + str(error).strip().splitlines()[-1]


def native(element):
    """OpenVINO's own TopK-11 (mode max, stable=true) of x with K = 1, a constant of this element type."""
    data = op.parameter([3], ov.Type.f32)
    node = op.topk(data, op.constant(np.array(1), dtype=element), 0, "max", "value", "i32", True)
    return ov.Core().compile_model(ov.Model(node.outputs(), [data]), "CPU")([x])


x = np.array([1, 3, 2], np.float32)
if len(sys.argv) > 1:  # the child: an ONNX TopK-11 model (the lowest IR version for opset 11), fed K = [0]
    model = ov.Core().read_model(onnx.parser.parse_model("""<ir_version: 6, opset_import: ["" : 11]>
        topk (float[3] X, int64[1] K) => (float[k] V, int64[k] I) { V, I = TopK (X, K) }""").SerializeToString())
    print(outcome(lambda: ov.Core().compile_model(model, "CPU")([x, np.array([0], np.int64)])))
    sys.exit(0)
print(f"openvino {ov.get_version()}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
child = subprocess.run([sys.executable, __file__, "child"], capture_output=True, text=True, timeout=50)
if child.returncode > 0:  # an exception outside inference: the model did not load
    print(f"CANNOT RUN: this openvino cannot read the ONNX model: {child.stderr.strip().splitlines()[-1]}")
    sys.exit(2)
rows = [("ONNX TopK-11, K = [0] (a graph input)", "nothing defined (ONNX Runtime and the ONNX reference implementation "
         "return empty values and indices)", child.stdout.strip() or f"the process dies (signal {-child.returncode})"),
        ("opset11.topk, K = 1 (a u1 constant)", "values [3.0], indices [1]", outcome(lambda: native(ov.Type.u1)))]
for label, expected, got in rows:
    print(f"{label}, float32 X {x.tolist()}\n  expected {expected}\n  OpenVINO gives {got}")
hit = not rows[0][2].startswith("values") and rows[1][2].startswith("an error")
print("REPRODUCED" if hit else "NOT REPRODUCED")
sys.exit(0 if hit else 1)
