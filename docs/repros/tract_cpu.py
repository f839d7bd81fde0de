"""TopK, ArgMax and ArgMin on tract 0.23.9 (Sonos's Rust inference engine, its Python bindings
`tract`) without the suite: tract and numpy only. Each line prints what tract returns beside what
the ONNX documents require. The ONNX models are embedded as their bytes (MODELS), made once with
onnx.helper by the lines at the end of this file; each is loaded by tract's ONNX loader, its input
facts set, then into_model(), into_runnable() and run(), as the suite's `tract` backend does.
Where tract panics (a Rust panic across its C API aborts the process) the case runs in a child
process, and the line says how it died and what tract printed.

Named tract_cpu.py, not tract.py: a script named tract.py would import itself as `tract`."""
import os
import re
import subprocess
import sys
import tempfile

os.environ["RUST_LIB_BACKTRACE"] = "0"  # tract's errors without the backtrace RUST_BACKTRACE adds
import numpy as np
import tract

MODELS = {
    "topk11": bytes.fromhex(
        "080612003a7c0a3e0a01580a014b1201561201492204546f704b2a0b0a04617869731800a001022a0e0a076c61726765"
        "73741801a001022a0d0a06736f727465641801a001021201675a100a0158120b0a09080112050a0312014e5a0f0a014b"
        "120a0a08080712040a02080162090a015612040a02080162090a014912040a02080742040a00100b"
    ),
    "topk11-smallest": bytes.fromhex(
        "080612003a7c0a3e0a01580a014b1201561201492204546f704b2a0b0a04617869731800a001022a0e0a076c61726765"
        "73741800a001022a0d0a06736f727465641801a001021201675a100a0158120b0a09080112050a0312014e5a0f0a014b"
        "120a0a08080712040a02080162090a015612040a02080162090a014912040a02080742040a00100b"
    ),
    "topk11-k-minus-1": bytes.fromhex(
        "080612003a7e0a3e0a01580a014b1201561201492204546f704b2a0b0a04617869731800a001022a0e0a076c61726765"
        "73741801a001022a0d0a06736f727465641801a001021201672a110801100742014b4a08ffffffffffffffff5a100a01"
        "58120b0a09080112050a0312014e62090a015612040a02080162090a014912040a02080742040a00100b"
    ),
    "topk1": bytes.fromhex(
        "080312003a530a260a01581201561201492204546f704b2a0b0a04617869731800a001022a080a016b1801a001021201"
        "675a100a0158120b0a09080112050a0312014e62090a015612040a02080162090a014912040a02080742040a001001"
    ),
    "topk24-bf16": bytes.fromhex(
        "080c12003a7c0a3e0a01580a014b1201561201492204546f704b2a0b0a04617869731800a001022a0e0a076c61726765"
        "73741801a001022a0d0a06736f727465641801a001021201675a100a0158120b0a09081012050a0312014e5a0f0a014b"
        "120a0a08080712040a02080162090a015612040a02081062090a014912040a02080742040a001018"
    ),
    "argmax13": bytes.fromhex(
        "080712003a680a460a015812014922064172674d61782a0b0a04617869731800a001022a0f0a086b65657064696d7318"
        "00a001022a180a1173656c6563745f6c6173745f696e6465781800a001021201675a100a0158120b0a09080112050a03"
        "12014e62090a014912040a02080742040a00100d"
    ),
    "argmax13-last": bytes.fromhex(
        "080712003a680a460a015812014922064172674d61782a0b0a04617869731800a001022a0f0a086b65657064696d7318"
        "00a001022a180a1173656c6563745f6c6173745f696e6465781801a001021201675a100a0158120b0a09080112050a03"
        "12014e62090a014912040a02080742040a00100d"
    ),
    "argmin13": bytes.fromhex(
        "080712003a680a460a015812014922064172674d696e2a0b0a04617869731800a001022a0f0a086b65657064696d7318"
        "00a001022a180a1173656c6563745f6c6173745f696e6465781800a001021201675a100a0158120b0a09080112050a03"
        "12014e62090a014912040a02080742040a00100d"
    ),
    "argmin13-last": bytes.fromhex(
        "080712003a680a460a015812014922064172674d696e2a0b0a04617869731800a001022a0f0a086b65657064696d7318"
        "00a001022a180a1173656c6563745f6c6173745f696e6465781801a001021201675a100a0158120b0a09080112050a03"
        "12014e62090a014912040a02080742040a00100d"
    ),
    "argmax13-u32": bytes.fromhex(
        "080712003a680a460a015812014922064172674d61782a0b0a04617869731800a001022a0f0a086b65657064696d7318"
        "00a001022a180a1173656c6563745f6c6173745f696e6465781800a001021201675a100a0158120b0a09080c12050a03"
        "12014e62090a014912040a02080742040a00100d"
    ),
    "argmin13-f64": bytes.fromhex(
        "080712003a680a460a015812014922064172674d696e2a0b0a04617869731800a001022a0f0a086b65657064696d7318"
        "00a001022a180a1173656c6563745f6c6173745f696e6465781800a001021201675a100a0158120b0a09080b12050a03"
        "12014e62090a014912040a02080742040a00100d"
    ),
}
NAN, INF = np.nan, np.inf


def runnable(name, *facts):
    """The model loaded by tract's ONNX loader (from a file: the bindings load from a path only),
    each input's fact set ("3,f32", "1,i64"), typed, optimized."""
    handle, path = tempfile.mkstemp(suffix=".onnx")
    with os.fdopen(handle, "wb") as file:
        file.write(MODELS[name])
    try:
        model = tract.onnx().load(path)
    finally:
        os.unlink(path)
    for position, fact in enumerate(facts):
        model.set_input_fact(position, fact)
    return model.into_model().into_runnable()


def message(error):
    """tract's error: the first line of its message (cut) and the last, the cause."""
    lines = [line.strip() for line in str(error).split("Stack backtrace:")[0].splitlines() if line.strip()]
    first = lines[0] if len(lines[0]) <= 60 else lines[0][:60] + "..."
    return "TractError: " + (f"{first} ... {lines[-1]}" if len(lines) > 1 else first)


def run(name, x, k=None):
    """The outputs as lists (ArgMax/ArgMin: the one output), or tract's error."""
    facts = [f"{','.join(map(str, x.shape))},{ {np.float32: 'f32', np.float64: 'f64', np.uint32: 'u32'}[x.dtype.type]}"]
    inputs = [x]
    if k is not None:
        facts.append("1,i64")
        inputs.append(np.array([k], np.int64))
    try:
        outputs = [out.to_numpy().tolist() for out in runnable(name, *facts).run(inputs)]
    except tract.TractError as error:
        return message(error)
    return outputs if len(outputs) > 1 else outputs[0]


def f32(*values):
    return np.array(values, np.float32)


def show(what, got, want):
    print(f"{what}: tract {got}; documents {want}")


# Cases that kill the process: run by a child (this script with --child NAME).
CHILDREN = {
    "k-minus-1-constant": lambda: runnable("topk11-k-minus-1", "2,f32").run([f32(1, 2)]),
    "nan-21": lambda: runnable("topk11", "21,f32", "1,i64").run(
        [np.where(np.arange(21) % 3 == 0, NAN, np.arange(21)).astype(np.float32), np.array([1], np.int64)]),
}


def in_child(name):
    env = dict(os.environ, RUST_BACKTRACE="0")
    done = subprocess.run([sys.executable, __file__, "--child", name], capture_output=True, text=True, env=env)
    said = [re.sub(r"thread '(.*?)' \(\d+\) ", "", line) for line in done.stderr.splitlines()
            if line and not line.startswith(("note:", "thread caused"))]
    how = f"killed by signal {-done.returncode}" if done.returncode < 0 else f"exit status {done.returncode}"
    return f"the process died ({how}); tract printed: {' | '.join(said[:4])}"


def main():
    print(f"tract {tract.version()}")
    print("-- TopK")
    # Ties and signed zeros are right: lower index first, -0.0 and +0.0 tie.
    show("TopK-11 [1, 3, 3, 2] K=2", run("topk11", f32(1, 3, 3, 2), 2), "[[3, 3], [1, 2]]")
    show("TopK-11 smallest [0, -0.0, 0] K=3", run("topk11-smallest", f32(0, -0.0, 0), 3), "[[0, -0, 0], [0, 1, 2]]")
    # 1. TopK-1 (K an attribute) is refused: tract's loader takes K as an input at every opset.
    show("TopK-1 k=1 [1, 3, 2]", run("topk1", f32(1, 3, 2)), "[[3], [1]]")
    # 2. bfloat16 is refused by the loader, at TopK-24 (and ArgMax/ArgMin-13) alike.
    try:
        runnable("topk24-bf16")
        got = "loaded"
    except tract.TractError as error:
        got = message(error)
    show("TopK-24 bfloat16 (loading only)", got, "TopK-24 takes bfloat16")
    # 3. K > n is not refused: the output has K elements, the missing ones 0 with index 0.
    show("TopK-11 [0.0] K=2", run("topk11", f32(0), 2), "an error (K > n)")
    show("TopK-11 [3, 1, 2] K=5", run("topk11", f32(3, 1, 2), 5), "an error (K > n)")
    # 4. K = -1: as a graph input a clean error; as a constant tract panics while typing the graph.
    show("TopK-11 [1, 2] K=-1 input", run("topk11", f32(1, 2), -1), "an error (K must be positive)")
    show("TopK-11 [1, 2] K=-1 constant", in_child("k-minus-1-constant"), "an error (K must be positive)")
    # 5. NaN: tract sorts with a comparison that calls NaN smaller than anything, in both orders.
    show("TopK-11 [0, NaN, 1] K=1", run("topk11", f32(0, NAN, 1), 1),
         "unspecified for NaN; [[1], [2]] (NaN low) or [[NaN], [1]] (NaN high)")
    show("TopK-11 [NaN, 0, NaN] K=3", run("topk11", f32(NAN, 0, NAN), 3),
         "[[NaN, NaN, 0], [0, 2, 1]] (NaN high) or [[0, NaN, NaN], [1, 0, 2]] (NaN low)")
    show("TopK-11 smallest [NaN, NaN] K=2", run("topk11-smallest", f32(NAN, NAN), 2),
         "[[NaN, NaN], [0, 1]] (equal values: the lower index first)")
    # 6. With NaN in a row of more than 20 elements, Rust's sort sees that order and panics.
    show("TopK-11 [NaN, 1, 2, NaN, 4, ...] (21 elements, NaN every 3rd) K=1", in_child("nan-21"),
         "unspecified for NaN, but outputs")
    print("-- ArgMax, ArgMin (opset 13, axis 0, keepdims=0)")
    # 7. No uint32 (nor uint64) kernel: refused when it runs.
    show("ArgMax uint32 [1, 3, 2]", run("argmax13-u32", np.array([1, 3, 2], np.uint32)), "1")
    # 8. The running maximum starts at (index 0, the lowest finite value): -inf is never taken,
    #    so a row whose maximum is -inf gives 0 also where select_last_index wants the last.
    show("ArgMax [-inf, -inf] select_last_index=1", run("argmax13-last", f32(-INF, -INF)), "1")
    show("ArgMin [inf, inf] select_last_index=1", run("argmin13-last", f32(INF, INF)), "1")
    show("ArgMax [-inf, -inf]", run("argmax13", f32(-INF, -INF)), "0")
    #    And where the extreme is the infinity beside the largest finite value, the infinity is missed.
    show("ArgMax [-inf, -3.4028235e+38]", run("argmax13", f32(-INF, np.finfo(np.float32).min)), "1")
    show("ArgMin float64 [inf, 1.7976931348623157e+308]",
         run("argmin13-f64", np.array([INF, np.finfo(np.float64).max])), "1")
    # 9. NaN never wins a comparison: ArgMax skips it (NaN low); an all-NaN row gives 0 whatever
    #    select_last_index says; and [NaN, -inf] gives 0 (the NaN) by finding 8, NaN high there.
    show("ArgMax [2, NaN, 2, 1]", run("argmax13", f32(2, NAN, 2, 1)),
         "unspecified for NaN; 1 (NaN high) or 0 (NaN low)")
    show("ArgMax [NaN, NaN, NaN] select_last_index=1", run("argmax13-last", f32(NAN, NAN, NAN)),
         "2 (equal values: the last)")
    show("ArgMax [0, NaN] and [NaN, -inf]", [run("argmax13", f32(0, NAN)), run("argmax13", f32(NAN, -INF))],
         "[1, 0] (NaN high) or [0, 1] (NaN low)")
    show("ArgMin [NaN, inf]", run("argmin13", f32(NAN, INF)), "0 (NaN low) or 1 (NaN high)")
    # 10. An empty axis gives index 0, an index into nothing (ArgMax-11: "must not be empty").
    show("ArgMax [] (shape [0])", run("argmax13", f32()), "an error (opset 11), unspecified (13)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        CHILDREN[sys.argv[2]]()
        print("no panic")
    else:
        main()

# The MODELS above, made with onnx 1.23.2 (run these lines and paste what they print):
# import numpy as np
# from onnx import TensorProto, helper, numpy_helper
#
# F32, F64, BF16 = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.BFLOAT16
# U32, I64 = TensorProto.UINT32, TensorProto.INT64
#
#
# def topk(opset, dtype=F32, largest=1, k=None, k_attr=None):
#     """TopK over axis 0 of X [N]; K a graph input unless `k` (an initializer) or `k_attr` (opset 1)."""
#     attrs = {"axis": 0}
#     inputs, graph_inputs, inits = ["X"], [helper.make_tensor_value_info("X", dtype, ["N"])], []
#     if k_attr is not None:
#         attrs["k"] = k_attr
#     else:
#         inputs.append("K")
#         if k is None:
#             graph_inputs.append(helper.make_tensor_value_info("K", I64, [1]))
#         else:
#             inits.append(numpy_helper.from_array(np.array([k], np.int64), "K"))
#     if opset >= 11:
#         attrs.update(largest=largest, sorted=1)
#     node = helper.make_node("TopK", inputs, ["V", "I"], **attrs)
#     outputs = [helper.make_tensor_value_info("V", dtype, None), helper.make_tensor_value_info("I", I64, None)]
#     return helper.make_graph([node], "g", graph_inputs, outputs, inits), opset
#
#
# def arg(name, dtype=F32, last=0):
#     """ArgMax/ArgMin-13 over axis 0 of X [N], keepdims=0."""
#     node = helper.make_node(name, ["X"], ["I"], axis=0, keepdims=0, select_last_index=last)
#     x = helper.make_tensor_value_info("X", dtype, ["N"])
#     return helper.make_graph([node], "g", [x], [helper.make_tensor_value_info("I", I64, None)]), 13
#
#
# GRAPHS = {
#     "topk11": topk(11), "topk11-smallest": topk(11, largest=0), "topk11-k-minus-1": topk(11, k=-1),
#     "topk1": topk(1, k_attr=1), "topk24-bf16": topk(24, BF16),
#     "argmax13": arg("ArgMax"), "argmax13-last": arg("ArgMax", last=1), "argmin13": arg("ArgMin"),
#     "argmin13-last": arg("ArgMin", last=1), "argmax13-u32": arg("ArgMax", U32), "argmin13-f64": arg("ArgMin", F64),
# }
# for name, (graph, opset) in GRAPHS.items():
#     model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="")
#     model.ir_version = helper.find_min_ir_version_for(list(model.opset_import))
#     data = model.SerializeToString().hex()
#     chunks = [data[i:i + 96] for i in range(0, len(data), 96)]
#     print(f'    "{name}": bytes.fromhex(')
#     for chunk in chunks:
#         print(f'        "{chunk}"')
#     print("    ),")
