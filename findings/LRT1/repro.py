"""LiteRT's TopK (TOPK_V2) with K = 0 kills the process: glibc aborts it with "double free or
corruption (out)" (SIGABRT) inside invoke(). The model is TensorFlow's own tf.math.top_k(x, k),
k a model input, converted by TFLiteConverter; the same model with K = 2 answers correctly.
tf.math.top_k(x, 0) in TensorFlow itself returns two empty tensors, and ONNX's TopK with K = 0
returns empty values and indices. The model runs in a child process (this script run again with
K as its argument), so that the abort can be reported.

Needs ai-edge-litert, tensorflow, numpy. The last line is REPRODUCED (exit 0), NOT REPRODUCED
(exit 1) or CANNOT RUN: why (exit 2)."""
import os
import platform
import subprocess
import sys
from importlib.metadata import version

try:
    import numpy as np
    import tensorflow as tf
    from ai_edge_litert.interpreter import Interpreter
except Exception as error:  # a module missing, or a build that cannot load here
    print(f"CANNOT RUN: a module is missing or cannot load ({type(error).__name__}: {error})")
    sys.exit(2)

X = np.array([3, 1, 2, 5], np.float32)
if len(sys.argv) > 1:  # the child: tf.math.top_k(x, k) as a .tflite model, run by LiteRT with K = argv[1]
    @tf.function(input_signature=[tf.TensorSpec([4], tf.float32), tf.TensorSpec([], tf.int32)])
    def top_k(x, k):
        return tf.math.top_k(x, k)
    model = tf.lite.TFLiteConverter.from_concrete_functions([top_k.get_concrete_function()], top_k).convert()
    interpreter = Interpreter(model_content=model)
    interpreter.allocate_tensors()
    x_in, k_in = interpreter.get_input_details()
    interpreter.set_tensor(x_in["index"], X)
    interpreter.set_tensor(k_in["index"], np.array(int(sys.argv[1]), np.int32))
    interpreter.invoke()
    print("outputs:", [interpreter.get_tensor(o["index"]).tolist() for o in interpreter.get_output_details()])
    sys.exit(0)

print(f"ai-edge-litert {version('ai-edge-litert')}, tensorflow {tf.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")
died = {}
for k in (2, 0):
    child = subprocess.run([sys.executable, os.path.abspath(__file__), str(k)], capture_output=True, text=True,
                           errors="replace", env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    said = [line for line in (child.stdout + child.stderr).splitlines()
            if line.startswith(("outputs:", "free(", "malloc(", "corrupted", "double free")) or "Error" in line]
    died[k] = child.returncode < 0
    print(f"top_k of X = {X.tolist()} with K = {k}: "
          f"{f'killed by signal {-child.returncode}; ' if died[k] else ''}{said[-1] if said else 'nothing printed'}")
reproduced = died[0] and not died[2]
print("REPRODUCED" if reproduced else "NOT REPRODUCED")
sys.exit(0 if reproduced else 1)
