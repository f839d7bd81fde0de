"""tinygrad's ONNX TopK takes time quadratic in the row's length: the same 65,536 elements take
about 6 times as long as one row of 65,536 as they do as 8 rows of 8,192, where a sort (n log n)
would take about 1.2 times as long and quadratic time 8 times (less the fixed cost of a call,
about 0.25 s). The answers are right: it is slow. The sort is a bitonic network, but the indices
of the sorted values are then found by comparing every element of a row with every other. Measured
as the fastest of 10 tries of the 8 rows against the faster of 2 of the one row, the tries
interleaved, after a first call of each that generates and compiles the kernels; REPRODUCED when
the ratio exceeds 2.5, about twice n log n's.

Needs tinygrad (its CPU device: clang on PATH), onnx (only to build the model) and numpy. The last
line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import os
import platform
import sys
import time
from importlib.metadata import version

os.environ.setdefault("DEV", "CPU")  # tinygrad's clang-compiled C backend; read as tinygrad loads
try:
    import numpy as np
    import onnx
    from tinygrad.tensor import Tensor
    try:
        from tinygrad.nn.onnx import OnnxRunner
    except ImportError:  # tinygrad 0.11
        from tinygrad.frontend.onnx import OnnxRunner
except Exception as error:  # a module missing, or a release without an ONNX runner
    print(f"CANNOT RUN: {type(error).__name__}: {error}")
    sys.exit(2)

print(f"tinygrad {version('tinygrad')}, onnx {onnx.__version__}, numpy {np.__version__}; "
      f"Python {platform.python_version()}, {platform.platform()}")


def runner(rows, n, K=16):  # TopK-11 of float32 [rows, n], K = 16: a call that checks its answer and times itself
    model = onnx.parser.parse_model(f"""<ir_version: 6, opset_import: ["" : 11]> topk (float[{rows}, {n}] X) =>
        (float[{rows}, {K}] V, int64[{rows}, {K}] I) {{ k = Constant <value = int64[1] {{{K}}}> () V, I = TopK (X, k) }}""")
    run, x = OnnxRunner(Tensor(model.SerializeToString())), np.random.default_rng(0).permuted(np.tile(
        np.arange(n, dtype=np.float32), (rows, 1)), axis=1)  # each row a permutation of 0..n-1

    def call():
        start, out = time.perf_counter(), run({"X": Tensor(x)})
        values, indices, took = out["V"].numpy(), out["I"].numpy(), time.perf_counter() - start
        # the K largest of each row, in order, and where they are
        assert (values == np.arange(n - 1, n - 1 - K, -1)).all() and (np.take_along_axis(x, indices, 1) == values).all()
        return took
    return call


short, long = runner(8, 8192), runner(1, 65536)
first = short(), long()  # the first call of a runner generates and compiles its kernels, then runs them
# the tries interleave, so that a busy spell of the machine slows some tries of each, not every try of one
tried = [([short() for _ in range(5)], long()) for _ in range(2)]
short_s, long_s = min(min(shorts) for shorts, _ in tried), min(took for _, took in tried)
print(f"input: TopK-11 (K = 16 a constant, axis -1, largest) of float32 [8, 8192] and [1, 65536], each row a "
      f"permutation of 0..n-1\nfirst calls (kernels generated and compiled, then run): {first[0]:.2f} s and "
      f"{first[1]:.2f} s\nlater calls: 8 rows of 8192: {short_s:.3f} s; 1 row of 65536: {long_s:.3f} s; the row 8 "
      f"times as long took {long_s / short_s:.1f} times as long (n log n: about 1.2; quadratic: 8)")
print("REPRODUCED" if long_s / short_s > 2.5 else "NOT REPRODUCED")
sys.exit(0 if long_s / short_s > 2.5 else 1)
