"""IREE's ONNX NonMaxSuppression is thousands of times slower than ONNX Runtime's on the same
graph: 400 boxes take IREE 6 to 13 s where ONNX Runtime takes 0.2 ms, and time grows about as
the square of the boxes (200 boxes: 2 to 2.6 s; 800: 38 to 40 s; 1,000, torchvision's RPN
settings: 41 s to over a minute) on one x86-64 CPU. One batch and one class (the only shape
IREE's lowering takes), boxes spread over an 800 x 800 image, IoU threshold 0.7, no cap
(max_output_boxes_per_class = the boxes). The answers are right: it is slow. Measured as one
call of each on the same inputs, ONNX Runtime's the fastest of 5; REPRODUCED when IREE's takes
over 1,000 times as long.

Needs iree-base-compiler, iree-base-runtime, onnxruntime, onnx, numpy; IREE's own ONNX importer,
the `llvm-cpu` target, the `local-task` driver, default flags. The last line is REPRODUCED
(exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import platform
import sys
import time
from importlib.metadata import version

try:
    import numpy as np
    import onnx
    import onnxruntime
    from iree import compiler, runtime
    from iree.compiler.extras import onnx_importer
    from onnx.reference import ReferenceEvaluator
except Exception as error:  # a module missing, or a build that cannot load here
    print(f"CANNOT RUN: a module is missing or cannot load ({type(error).__name__}: {error})")
    sys.exit(2)

names = ["iree-base-compiler", "iree-base-runtime", "onnxruntime", "onnx", "numpy"]
print(", ".join(f"{name} {version(name)}" for name in names) + f"; Python {platform.python_version()}, {platform.platform()}")
N = 400
model = onnx.parser.parse_model(f"""<ir_version: 8, opset_import: ["" : 11]>
    nms (float[1, {N}, 4] boxes, float[1, 1, {N}] scores) => (int64[m, 3] selected)
    <int64[1] cap = {{{N}}}, float[1] iou = {{0.7}}> {{ selected = NonMaxSuppression (boxes, scores, cap, iou) }}""")
rng = np.random.default_rng(400)
corner = rng.uniform(0, 700, (1, N, 2)).astype(np.float32)
feed = {"boxes": np.concatenate([corner, corner + rng.uniform(10, 100, (1, N, 2)).astype(np.float32)], axis=2),
        "scores": (rng.permutation(N).astype(np.float32) / N)[None, None]}  # no ties: one right answer
expected = ReferenceEvaluator(model).run(None, feed)[0]

info = onnx_importer.ModelInfo(model)
onnx_importer.NodeImporter.define_function(info.main_graph, module := info.create_module().operation).import_all()
iree_nms = runtime.load_vm_flatbuffer(compiler.compile_str(str(module), target_backends=["llvm-cpu"]),
                                      driver="local-task").nms
ort = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
seconds = {}
for name, call in [("IREE", lambda: iree_nms(*feed.values()).to_host())] + [("ORT", lambda: ort.run(None, feed)[0])] * 5:
    start = time.perf_counter()
    assert np.array_equal(call(), expected), f"{name}: not ONNX's answer"
    seconds[name] = min(seconds.get(name, 1e9), time.perf_counter() - start)  # ONNX Runtime: the fastest of 5
print(f"input: NonMaxSuppression-11, 1 batch, 1 class, {N} float32 boxes in [0, 800), IoU threshold 0.7, cap {N}; "
      f"{len(expected)} kept, both answers ONNX's\nIREE: {seconds['IREE']:.2f} s; ONNX Runtime: "
      f"{seconds['ORT'] * 1000:.2f} ms; {seconds['IREE'] / seconds['ORT']:,.0f} times as long")
print("REPRODUCED" if seconds["IREE"] > 1000 * seconds["ORT"] else "NOT REPRODUCED")
sys.exit(0 if seconds["IREE"] > 1000 * seconds["ORT"] else 1)
