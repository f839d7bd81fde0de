"""IREE's ONNX NonMaxSuppression never finishes compiling when the scores have more than one batch
and more than one class (and more than one box): NonMaxSuppression-11 on 2 batches, 2 classes and
2 boxes (float32 boxes [2, 2, 4], scores [2, 2, 2]) gets no answer in 20 s, iree-compile spinning
on one core at constant memory (it went on for 120 s when left to). The same graph on 1 batch and
1 class (the first of each) compiles in about a second and gives ONNX's answer.

compile_str runs iree-compile as a child process; 20 s after it starts, an alarm (SIGALRM) raises
in the Python that waits for it, and subprocess.run kills and reaps the compiler on the way out.

Needs iree-base-compiler, iree-base-runtime, onnx, numpy and a POSIX system (SIGALRM); IREE's own
ONNX importer, the `llvm-cpu` target, the `local-task` driver, default flags. The last line is
REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import signal
import sys
from importlib.metadata import version


def alarm(signum, frame):  # 20 s after compile_str started iree-compile: subprocess.run kills it as this goes up
    raise TimeoutError


try:
    import numpy as np
    import onnx
    from iree import compiler, runtime
    from iree.compiler.extras import onnx_importer
    signal.signal(signal.SIGALRM, alarm)
except Exception as error:  # a module missing, a build that cannot load here, or no SIGALRM (Windows)
    print(f"CANNOT RUN: {type(error).__name__}: {error}")
    sys.exit(2)

print(", ".join(f"{name} {version(name)}" for name in ["iree-base-compiler", "iree-base-runtime", "onnx", "numpy"])
      + f"; Python {sys.version.split()[0]}")
BOXES = np.array([[[0, 0, 1, 1], [0, 2, 1, 3]], [[0, 0, 1, 1], [0, 2, 1, 3]]], np.float32)  # [batch, box, 4]
SCORES = np.array([[[0.25, 0.875], [0.5, 0.375]], [[0.75, 0.125], [0.3125, 0.9375]]], np.float32)  # [batch, class, box]


def nms(boxes, scores):  # IREE's answer, its compiler's error, or None: iree-compile still at work after 20 s
    info = onnx_importer.ModelInfo(onnx.parser.parse_model(f"""<ir_version: 8, opset_import: ["" : 11]>
        nms (float{list(boxes.shape)} boxes, float{list(scores.shape)} scores) => (int64[n, 3] selected)
        <int64[1] cap = {{5}}, float[1] iou = {{0.5}}> {{ selected = NonMaxSuppression (boxes, scores, cap, iou) }}"""))
    onnx_importer.NodeImporter.define_function(info.main_graph, module := info.create_module().operation).import_all()
    signal.alarm(20)
    try:
        vmfb = compiler.compile_str(str(module), target_backends=["llvm-cpu"])
    except TimeoutError:  # iree-compile was killed
        return None
    except compiler.CompilerToolError as error:
        return " ".join(str(error).split())[:300]
    signal.alarm(0)
    return runtime.load_vm_flatbuffer(vmfb, driver="local-task").nms(boxes, scores).to_host().tolist()


print(f"input: boxes {BOXES.astype(int).tolist()}, scores {SCORES.tolist()} (float32), cap 5, IoU threshold 0.5")
control, result = nms(BOXES[:1], SCORES[:1, :1]), nms(BOXES, SCORES)
print(f"1 batch, 1 class (batch 0, class 0): ONNX defines [[0, 0, 1], [0, 0, 0]]; IREE gives {control}")
print("2 batches, 2 classes: ONNX defines [[0, 0, 1], [0, 0, 0], [0, 1, 0], [0, 1, 1], [1, 0, 0], [1, 0, 1], [1, 1, 1],"
      " [1, 1, 0]]; IREE gives " + (str(result) if result is not None else "no answer in 20 s (iree-compile killed)"))
code = 2 if control != [[0, 0, 1], [0, 0, 0]] else 0 if result is None else 1
print(["REPRODUCED", "NOT REPRODUCED", "CANNOT RUN: the control (1 batch, 1 class) did not give ONNX's answer"][code])
sys.exit(code)
