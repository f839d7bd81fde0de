"""The oracle and the judge at scale, as ratios against peers measured in the same run.

    python benchmarks/scale.py [--repeat 7] [--skip-memory] [--elements 100000000]

Prints one line per figure, each a ratio against a peer measured in this run on this machine:

- `answer+judge`: the DirectML answer (the oracle, from scratch) plus the judge of ONNX
  Runtime CPU's own output, against ONNX Runtime CPU's own TopK on the same input (one
  InferenceSession made beforehand; only `session.run` is timed): 1x10^7 float32 K=100 and
  1000x10000 float32 K=10. Target: at most 10x.
- `judge`: the judge alone (the case's answer already computed, as when a case runs on
  several graphs and backends), against the same TopK. Target: at most 3x.
- `peak memory`: a 10^8-element float32 case (one sequence, K=100, from a generator) run
  through the suite on ort-cpu as a user runs it (`python -m conformance run --backend
  ort-cpu`: the main process and its worker, every ONNX graph the backend takes), the
  largest summed PSS of the whole process tree (benchmarks/tree_memory.py), against the
  input's bytes; once for a case that passes (uniform values) and once for one that fails
  (NaN, +-inf and +-0.0 mixed in at rate 0.25: ONNX Runtime places NaN inconsistently).
  Target: under 4x.

Times are the best of `--repeat` runs (ONNX Runtime's before and after ours; each side
timed on its own after a pause, since ONNX Runtime's threads spin on after a run). The last
line is `benchmark: ok` when every target holds, else `benchmark: short` and the figures
that missed."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.figures import Figure, conclude  # noqa: E402
from benchmarks.tree_memory import peak_of  # noqa: E402
from conformance.operator.outcome import Outputs  # noqa: E402
from conformance.ops.topk import profiles  # noqa: E402
from conformance.ops.topk.case import Case  # noqa: E402
from conformance.ops.topk.judge import judge  # noqa: E402

ONNX_SORTED = profiles.onnx(True)


def topk_session(k: int) -> Any:
    """ONNX Runtime CPU on one TopK node (opset 11, largest, sorted), K a constant."""
    import onnxruntime
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, None)
    values = helper.make_tensor_value_info("V", TensorProto.FLOAT, None)
    indices = helper.make_tensor_value_info("I", TensorProto.INT64, None)
    node = helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=-1, largest=1, sorted=1)
    graph = helper.make_graph([node], "topk", [x], [values, indices],
                              initializer=[helper.make_tensor("K", TensorProto.INT64, [1], [k])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], ir_version=7)
    return onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def best_of(run: Callable[[], object], repeat: int) -> float:
    """The best seconds of `repeat` runs, after a pause: ONNX Runtime's worker threads spin
    for a while after each run and would slow whatever runs right after (measured at about
    2x on a 2-core machine), so each side is timed on its own, never straight after the
    other."""
    time.sleep(0.5)
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def speed_figures(repeat: int) -> list[Figure]:
    """The answer+judge and judge figures."""
    figures = []
    rng = np.random.default_rng(0)
    for shape, k in (((1, 10**7), 100), ((1000, 10_000), 10)):
        x = rng.standard_normal(shape, dtype=np.float32)
        session = topk_session(k)
        values, indices = session.run(None, {"X": x})
        out = Outputs({"values": values, "indices": indices})

        def fresh_case(x: np.ndarray[Any, Any] = x, k: int = k) -> Case:
            return Case(id="scale", source="benchmarks/scale.py", file=Path("scale.yaml"), x=x, axis=-1, k=k)

        def answer_and_judge(out: Outputs = out, fresh_case: Callable[[], Case] = fresh_case) -> None:
            case = fresh_case()
            case.directml_answer  # noqa: B018  (the oracle, from scratch)
            verdict = judge(case, ONNX_SORTED, out).verdict
            assert verdict == "pass", verdict

        cached = fresh_case()
        assert judge(cached, ONNX_SORTED, out).verdict == "pass"  # the answer is now cached

        def run_ort(session: Any = session, x: np.ndarray[Any, Any] = x) -> None:
            session.run(None, {"X": x})

        ort_seconds = best_of(run_ort, repeat)
        both_seconds = best_of(answer_and_judge, repeat)
        judge_seconds = best_of(partial(judge, cached, ONNX_SORTED, out), repeat)
        ort_again = best_of(run_ort, repeat)
        ort_seconds = ort_again = min(ort_seconds, ort_again)
        size = "x".join(str(d) for d in shape)
        figures.append(Figure(f"answer+judge / ORT CPU TopK, {size} float32 K={k} "
                              f"({both_seconds * 1e3:.1f} ms / {ort_seconds * 1e3:.1f} ms)",
                              both_seconds / ort_seconds, 10.0))
        figures.append(Figure(f"judge (answer cached) / ORT CPU TopK, {size} float32 K={k} "
                              f"({judge_seconds * 1e3:.2f} ms / {ort_again * 1e3:.1f} ms)",
                              judge_seconds / ort_again, 3.0))
    return figures


CASE = """\
cases:
  - id: scale-{name}
    source: benchmarks/scale.py
    input:
      dtype: float32
      shape: [1, {elements}]
      generator: {generator}
    axis: -1
    k: 100
"""

MEMORY_CASES = (
    ("passing", "{name: uniform, seed: 1}", "pass"),
    ("failing", "{name: special, seed: 1, rate: 0.25}", "fail"),
)


def memory_figure(name: str, generator: str, elements: int, want: str, folder: Path) -> Figure:
    """The case run as a user runs it (`topk-conformance run --backend ort-cpu`: the main
    process and its ort-cpu worker), the whole process tree's peak against the input's bytes."""
    cases = folder / f"{name}.yaml"
    cases.write_text(CASE.format(name=name, elements=elements, generator=generator))
    out = folder / f"out-{name}"
    command = [sys.executable, "-m", "conformance", "run", "--backend", "ort-cpu",
               "--cases", str(cases), "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CI": "true"}
    peak = peak_of(command, ROOT, env, folder / f"{name}.log")
    results_file = out / "results.json"
    if peak.returncode != 0 or not results_file.exists():
        log = (folder / f"{name}.log").read_text(errors="replace")
        raise SystemExit(f"the {name} run failed (exit {peak.returncode}):\n{log[-2000:]}")
    data = json.loads(results_file.read_text())
    if data.get("case_errors"):
        raise SystemExit(f"the loader refused the {elements}-element case: {data['case_errors']}")
    verdicts = sorted({r["verdict"] for r in data["results"]})
    if want not in verdicts:
        raise SystemExit(f"the {name} case was to {want} on ort-cpu, got {verdicts}")
    size = max(len(json.dumps(r)) for r in data["results"])
    input_bytes = 4 * elements
    return Figure(f"peak memory of the process tree / input bytes, {elements} float32 K=100 on ort-cpu, "
                  f"{name} ({', '.join(verdicts)}; PSS {peak.pss / 2**20:.0f} MiB over {peak.processes} "
                  f"processes (RSS {peak.rss / 2**20:.0f} MiB) / {input_bytes / 2**20:.0f} MiB; "
                  f"{len(data['results'])} results, the largest {size} bytes; {peak.seconds:.1f} s)",
                  peak.pss / input_bytes, 4.0, strictly=True)


def memory_figures(elements: int) -> list[Figure]:
    with tempfile.TemporaryDirectory(prefix="topk-benchmark-") as folder:
        return [memory_figure(name, generator, elements, want, Path(folder))
                for name, generator, want in MEMORY_CASES]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=7, help="timed runs per figure (the best is kept)")
    parser.add_argument("--elements", type=int, default=10**8, help="elements of the memory cases")
    parser.add_argument("--skip-memory", action="store_true", help="leave out the peak memory figures")
    args = parser.parse_args()
    figures = speed_figures(args.repeat)
    for figure in figures:
        print(figure.line(), flush=True)
    if not args.skip_memory:
        for figure in memory_figures(args.elements):
            print(figure.line(), flush=True)
            figures.append(figure)
    return conclude(figures)


if __name__ == "__main__":
    sys.exit(main())
