"""OpenVINO's ov::Tensor::copy_to dies (SIGSEGV) copying the empty output of a TopK model whose
output shape is dynamic: an opset11.topk on axis 1 of a float32 X of shape [0, 1], K = 1 given as
a graph input; copy_to of output 0 into an empty float32 tensor of shape [0, 1] kills the
process. With K a constant the same copy succeeds. OpenVINO TopK-11's output 1 is "Output tensor
of type T with k values from the input tensor along a specified axis", here an empty one. Each
model runs in a child process (this script run again with an argument). Needs openvino, numpy.
The last line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import platform
import subprocess
import sys

try:
    import numpy as np
    import openvino as ov
    op = getattr(ov, "opset11", None) or ov.runtime.opset11  # before 2025.0: openvino.runtime.opset11
except Exception as error:  # a module missing, or a build that cannot load here
    print(f"CANNOT RUN: a module is missing or cannot load ({type(error).__name__}: {error})")
    sys.exit(2)

if len(sys.argv) > 1:  # the child: K "a constant" or "a graph input"
    data, k_input = op.parameter([0, 1], ov.Type.f32), sys.argv[1] == "a graph input"
    k = op.parameter([], ov.Type.i64) if k_input else op.constant(np.int64(1))
    model = ov.Model(op.topk(data, k, 1, "max", "value", "i32").outputs(), [data, k] if k_input else [data])
    request = ov.Core().compile_model(model, "CPU").create_infer_request()
    request.infer([np.zeros((0, 1), np.float32), np.array(1, np.int64)][:len(model.inputs)])
    print("inferred; output 0 has shape", list(request.get_output_tensor(0).shape), flush=True)
    request.get_output_tensor(0).copy_to(ov.Tensor(np.empty((0, 1), np.float32)))
    print("copied", flush=True)
    sys.exit(0)
print(f"openvino {ov.get_version()}, numpy {np.__version__}; Python {platform.python_version()}, {platform.platform()}")
for how in ("a constant", "a graph input"):
    child = subprocess.run([sys.executable, __file__, how], capture_output=True, text=True, timeout=50)
    print(f"float32 X of shape [0, 1], TopK-11 axis 1, K = 1 ({how}); output 0 copy_to() an empty tensor")
    print(f"  expected exit status 0 and 'copied'; got exit status {child.returncode}: "
          + "; ".join(child.stdout.splitlines() + child.stderr.strip().splitlines()[-1:]))
if child.returncode < 0 and "inferred" in child.stdout:  # K an input: killed by a signal inside copy_to
    print("REPRODUCED")
    sys.exit(0)
if child.returncode == 0 and "copied" in child.stdout:
    print("NOT REPRODUCED")
    sys.exit(1)
print(f"CANNOT RUN: the model with K an input did not reach or return from copy_to (exit status {child.returncode})")
sys.exit(2)
