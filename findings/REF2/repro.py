"""REF2: onnx's reference evaluator, bfloat16 TopK (TopK-24) misplaces NaN.

bfloat16 [1.0, NaN, -1.0], K = 1 smallest returns 1.0 (index 0), the smallest under no placement of
NaN; [-inf, NaN, inf], K = 1 largest returns -inf (index 0). The same rows in float32 are right.
Standalone: onnx (onnx.reference.ReferenceEvaluator; TopK-24, so onnx 1.19 or later), numpy, ml_dtypes.

ONNX TopK-24: the values output "contains the values of the top k elements along the specified axis";
T includes tensor(bfloat16). No version says where NaN goes: the answers below are those one
consistent placement (every NaN above every number, or every NaN below) allows.
"""
import platform
import sys


def cpu_name():
    name = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return name or "unknown"


try:
    import ml_dtypes
    import numpy as np
    import onnx
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator
except ImportError as error:
    print(f"CANNOT RUN: {error}")
    sys.exit(2)

print("onnx", onnx.__version__, "| numpy", np.__version__, "| ml_dtypes", ml_dtypes.__version__)
print("python", sys.version.split()[0], "|", platform.platform(), "|", cpu_name())
if onnx.defs.onnx_opset_version() < 24:
    print(f"CANNOT RUN: onnx {onnx.__version__} implements opsets up to {onnx.defs.onnx_opset_version()}; "
          "bfloat16 TopK needs TopK-24")
    sys.exit(2)

ELEM = {"bfloat16": TensorProto.BFLOAT16, "float32": TensorProto.FLOAT}


def topk(x, k, largest):
    """ONNX TopK-24 (axis -1, K an initializer, ir_version 12) on the reference evaluator."""
    elem = ELEM[x.dtype.name]
    node = helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=-1, largest=largest)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", elem, list(x.shape))],
                              [helper.make_tensor_value_info("V", elem, None),
                               helper.make_tensor_value_info("I", TensorProto.INT64, None)],
                              [helper.make_tensor("K", TensorProto.INT64, [1], [k])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 24)], ir_version=12)
    values, indices = ReferenceEvaluator(model).run(None, {"X": x})
    return [float(v) for v in values.astype(np.float32)], indices.tolist()


n = np.nan
INPUTS = [  # row, largest, (values, indices) NaN above every number, ... NaN below
    ([1.0, n, -1.0], 0, ([-1.0], [2]), ([n], [1])),
    ([-np.inf, n, np.inf], 1, ([n], [1]), ([np.inf], [2])),
]


def same(got, want):
    return got[1] == want[1] and all((np.isnan(a) and np.isnan(b)) or a == b for a, b in zip(got[0], want[0]))


wrong = 0
for row, largest, high, low in INPUTS:
    for dtype in ("bfloat16", "float32"):
        x = np.array(row, dtype=ml_dtypes.bfloat16 if dtype == "bfloat16" else np.float32)
        try:
            got = topk(x, 1, largest)
        except Exception as error:
            print(f"CANNOT RUN: the reference evaluator fails on TopK-24 {dtype}: {type(error).__name__}: {error}")
            sys.exit(2)
        bad = not (same(got, high) or same(got, low))
        wrong += bad and dtype == "bfloat16"
        print(f"TopK-24 {dtype} {[float(v) for v in row]} K = 1 {'largest' if largest else 'smallest'}: reference "
              f"values {got[0]} indices {got[1]}; documents values {high[0]} indices {high[1]} (NaN above every "
              f"number) or values {low[0]} indices {low[1]} (NaN below){'  <- no placement' if bad else ''}")
if wrong:
    print("REPRODUCED")
    sys.exit(0)
print("NOT REPRODUCED")
sys.exit(1)
