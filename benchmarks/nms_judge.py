"""The NonMaxSuppression judge on detector-sized inputs, as a ratio against ONNX Runtime's own
NonMaxSuppression measured in the same run on the same machine.

    python benchmarks/nms_judge.py [--quick]

For each input kind, all float32 and drawn from a fixed numpy seed:

- `rpn`: 1 batch, 1 class, 1,000 proposals (corners in an 800x800 image, sides 16..256), cap
  1000, IoU 0.7, no score threshold (torchvision's RPN);
- `yolo`: 1 batch, 80 classes, 8,400 boxes (sides 8..200 in 640x640), scores in [0, 1), cap
  100, IoU 0.45, score threshold 0.25;
- `ties`: as `yolo`, but the scores rounded down to quarters (0, 0.25, 0.5, 0.75) and the
  corners on a half-unit grid: equal scores, and IoUs exactly at the thresholds, are frequent.

ONNX Runtime's figure is `session.run` alone, on the one-node graph of `build_onnx(case,
Variant("onnx", 11, "constant"))` (the session made once beforehand; boxes and scores fed).
The judge's figure is `judge(case, profiles.onnx(11), outputs)` alone, on the rows ONNX
Runtime gave. Each is the median of N runs after one untimed run, N chosen per side so that
it takes a few seconds at most (printed; at least 3 even where one run is longer); each side
is timed after a pause, since ONNX Runtime's worker threads spin on after a run. The judge
must say pass or divergent (a fail is an error of this script or of the judge). The load
averages before and after are printed: others' work on the machine skews every figure.
Target: judge / ORT at most 3x for each kind; whether each meets it is printed, and never
changes the exit status."""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from conformance.operator.outcome import Judgement, Outputs
from conformance.ops.nms import profiles
from conformance.ops.nms.build import BOXES, SCORES, SELECTED, build_onnx
from conformance.ops.nms.case import Case
from conformance.ops.nms.judge import judge
from conformance.ops.nms.variants import Variant

SEED = 0
TARGET = 3.0  # judge / ORT, at most
PROFILE = profiles.onnx(11)
VARIANT = Variant("onnx", 11, "constant")
BUDGET_SECONDS = 3.0  # timed runs of one side of one kind, at most (about)
QUICK_BUDGET_SECONDS = 0.5
MIN_REPEAT, MAX_REPEAT = 3, 200
QUICK_MAX_REPEAT = 20


@dataclass(frozen=True)
class Kind:
    """One detector-sized input: `boxes` boxes in an `image`-sided square, each side in
    [`smallest`, `largest`]; `classes` classes of scores in [0, 1); with `ties`, the scores
    rounded down to quarters and the corners to half units."""

    name: str
    boxes: int
    classes: int
    image: float
    smallest: float
    largest: float
    cap: int
    iou: float
    score: float | None
    ties: bool = False

    def case(self, rng: np.random.Generator) -> Case:
        n = self.boxes
        sides = rng.uniform(self.smallest, self.largest, (n, 2))
        corner = rng.uniform(0.0, 1.0, (n, 2)) * (self.image - sides)  # [y1, x1], the box inside the image
        boxes = np.concatenate([corner, corner + sides], axis=1)  # [y1, x1, y2, x2]
        scores = rng.random((1, self.classes, n))
        if self.ties:
            boxes = np.round(boxes * 2) / 2
            scores = np.floor(scores * 4) / 4
        return Case(id=f"nms-benchmark-{self.name}", source="benchmarks/nms_judge.py", file=Path("<benchmark>"),
                    boxes=boxes.astype(np.float32).reshape(1, n, 4), scores=scores.astype(np.float32),
                    max_output=self.cap, iou_threshold=self.iou, score_threshold=self.score,
                    input_spec={"dtype": "float32", "shape": [1, n, 4]})

    @property
    def label(self) -> str:
        score = "none" if self.score is None else f"{self.score:g}"
        data = "quarter scores, half-unit grid" if self.ties else "scores in [0, 1)"
        return (f"{self.name}: {self.boxes} boxes x {self.classes} classes in {self.image:g}x{self.image:g}, "
                f"sides {self.smallest:g}..{self.largest:g}, cap {self.cap}, IoU {self.iou:g}, score {score}, {data}")


KINDS = (
    Kind("rpn", 1000, 1, 800.0, 16.0, 256.0, cap=1000, iou=0.7, score=None),
    Kind("yolo", 8400, 80, 640.0, 8.0, 200.0, cap=100, iou=0.45, score=0.25),
    Kind("ties", 8400, 80, 640.0, 8.0, 200.0, cap=100, iou=0.45, score=0.25, ties=True),
)


@dataclass(frozen=True)
class Row:
    kind: str
    ort_seconds: float
    ort_repeat: int
    judge_seconds: float
    judge_repeat: int
    verdict: str
    selected: int

    @property
    def ratio(self) -> float:
        return self.judge_seconds / self.ort_seconds


def session_of(case: Case) -> Any:
    """ONNX Runtime CPU on the case's one-node graph (opset 11, the cap and thresholds constants)."""
    import onnxruntime

    model = build_onnx(case, VARIANT)
    return onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def timed(run: Callable[[], object], budget: float, most: int) -> tuple[float, int]:
    """The median seconds of N runs and N: one untimed run first (which also sizes N to take
    about `budget` seconds, within [MIN_REPEAT, most]), after a pause (ONNX Runtime's threads
    spin for a while after each run and would slow whatever runs straight after)."""
    time.sleep(0.5)
    started = time.perf_counter()
    run()
    once = time.perf_counter() - started
    repeat = max(MIN_REPEAT, min(most, int(budget / max(once, 1e-6))))
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times), repeat


def measure(kind: Kind, budget: float, most: int) -> Row:
    case = kind.case(np.random.default_rng(SEED))
    session = session_of(case)
    feeds = {BOXES: case.boxes, SCORES: case.scores}
    (selected,) = session.run([SELECTED], feeds)
    outputs = Outputs({SELECTED: selected})
    judgement: Judgement = judge(case, PROFILE, outputs)
    assert judgement.verdict in ("pass", "divergent"), f"{kind.name}: {judgement.verdict}: {judgement.message}"
    ort_seconds, ort_repeat = timed(partial(session.run, [SELECTED], feeds), budget, most)
    judge_seconds, judge_repeat = timed(partial(judge, case, PROFILE, outputs), budget, most)
    return Row(kind.name, ort_seconds, ort_repeat, judge_seconds, judge_repeat, judgement.verdict, len(selected))


def versions() -> str:
    import onnxruntime

    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (f"onnxruntime {onnxruntime.__version__}, numpy {np.__version__}, Python {platform.python_version()}; "
            f"{os.cpu_count()} CPUs ({affinity} this process may run on), {platform.machine()}")


def load() -> str:
    """The load averages over 1, 5 and 15 minutes (others' work on the machine skews every figure)."""
    if not hasattr(os, "getloadavg"):
        return "unknown"
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def table(rows: list[Row]) -> list[str]:
    head = (f"{'input':<6} {'ORT ms':>9} {'N':>4} {'judge ms':>9} {'N':>4} {'judge/ORT':>9} "
            f"{'verdict':<9} {'selected':>8}  target at most {TARGET:g}x")
    lines = [head, "-" * len(head)]
    for row in rows:
        met = "met" if row.ratio <= TARGET else "missed"
        lines.append(f"{row.kind:<6} {row.ort_seconds * 1e3:9.3f} {row.ort_repeat:4d} {row.judge_seconds * 1e3:9.3f} "
                     f"{row.judge_repeat:4d} {row.ratio:8.2f}x {row.verdict:<9} {row.selected:8d}  {met}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help=f"fewer runs: about {QUICK_BUDGET_SECONDS:g} s a side, at most {QUICK_MAX_REPEAT}")
    args = parser.parse_args()
    budget = QUICK_BUDGET_SECONDS if args.quick else BUDGET_SECONDS
    most = QUICK_MAX_REPEAT if args.quick else MAX_REPEAT
    print(f"benchmark: {versions()}")
    print(f"benchmark: median of N runs per side (N sized to about {budget:g} s, {MIN_REPEAT}..{most}), "
          f"seed {SEED}, profile {PROFILE.label}, graph {VARIANT.label}")
    for kind in KINDS:
        print(f"  {kind.label}")
    print(f"benchmark: load average before: {load()}", flush=True)
    rows = [measure(kind, budget, most) for kind in KINDS]
    print(f"benchmark: load average after: {load()}")
    for line in table(rows):
        print(line)
    missed = [row.kind for row in rows if row.ratio > TARGET]
    print(f"benchmark: target judge/ORT at most {TARGET:g}x " + (f"missed by {', '.join(missed)}" if missed
                                                                 else "met by every input kind"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
