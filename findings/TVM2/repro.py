"""Apache TVM's TopK on a bfloat16 tensor corrupts memory: TopK-24 (which takes bfloat16) on 512
rows of 128 equal elements, K = 63, compiled for the llvm target, kills the process (SIGSEGV, or
glibc's "corrupted double-linked list", "double free or corruption" or "free(): invalid size"
abort), or hangs it; which one varies from run to run. The model runs in a child process (this
script, run again with the argument `child`) so that its death can be reported.

Needs apache-tvm, onnx, numpy, ml_dtypes. The last line is REPRODUCED (exit 0), NOT REPRODUCED
(exit 1) or CANNOT RUN: why (exit 2)."""
import platform
import subprocess
import sys

try:
    import ml_dtypes
    import numpy as np
    import onnx
    import tvm
    from tvm import relax
    from tvm.relax.frontend.onnx import from_onnx
except Exception as error:  # a module missing, or a build that cannot load here
    print(f"CANNOT RUN: a module is missing or cannot load ({type(error).__name__}: {error})")
    sys.exit(2)

if sys.argv[1:] == ["child"]:  # the model, in a child process
    model = onnx.parser.parse_model("""<ir_version: 12, opset_import: ["" : 24]>
        topk24 (bfloat16[512, 128] X) => (bfloat16[512, 63] values, int64[512, 63] indices) <int64[1] K = {63}> {
            values, indices = TopK <axis = -1> (X, K) }""")
    onnx.checker.check_model(model, full_check=True)
    module = relax.transform.LegalizeOps()(from_onnx(model, keep_params_in_input=False))
    machine = relax.VirtualMachine(tvm.compile(module, target="llvm"), tvm.cpu())
    x = np.full((512, 128), 3, ml_dtypes.bfloat16)
    for _ in range(3):
        values, indices = (out.numpy() for out in machine["main"](tvm.runtime.tensor(x)))
    print("outputs:", values.shape, indices[0, :8].tolist())
    sys.exit(0)

print(f"apache-tvm {tvm.__version__}, onnx {onnx.__version__}, numpy {np.__version__}, "
      f"ml_dtypes {ml_dtypes.__version__}; Python {platform.python_version()}, {platform.platform()}")
print("input X: bfloat16 [512, 128], every element 3; TopK-24, K = 63 (an initializer), axis -1, largest")
print("ONNX defines: values 3 everywhere, shape [512, 63]; indices 63 distinct positions per row")
try:  # heap corruption may also hang the process, or make it print bytes that are not text
    done = subprocess.run([sys.executable, __file__, "child"], capture_output=True, text=True, errors="replace",
                          timeout=120)
    said = (done.stdout + done.stderr).strip().splitlines()
    how = f"killed by signal {-done.returncode}" if done.returncode < 0 else f"exit status {done.returncode}"
    died = done.returncode < 0 or "corrupt" in done.stderr or "free()" in done.stderr
except subprocess.TimeoutExpired:
    said, how, died = [], "hung (no answer in 120 s)", True
print(f"TVM gives: the process {how}; it printed: {said[-1] if said else 'nothing'}")
print("REPRODUCED" if died else "NOT REPRODUCED")
sys.exit(0 if died else 1)
