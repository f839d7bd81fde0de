"""Every speed and scale figure, in one run on this machine, each a ratio against a peer
measured in the same run (or a share of the same run's wall time):

    python benchmarks/speed_and_scale.py [--repeat 7] [--elements 100000000]
                                         [--cases PATH ...] [--backend NAME ...]

1. the DirectML answer + the judge, and the judge alone, against ONNX Runtime CPU's own
   TopK on the same input, normal and tie-heavy (benchmarks/scale.py): targets at most 5x
   and 3x;
2. the 10^8-element float32 case (one sequence, K=100) on ort-cpu, passing and failing:
   the whole process tree's peak memory against the input's bytes: target under 4x;
3. the corpus on ort-cpu and openvino-cpu (benchmarks/corpus.py): the share of wall time
   inside the runtimes' execution calls (target at least 0.5), compilations per graph run
   (target at most 0.2), graph reuse off / on and --jobs 1 / 2 (speed-ups, no target).

The last line is `benchmark: ok` when every target holds, else `benchmark: short` and the
figures that missed (exit status 1). About 10 minutes on 2 cores."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import corpus, scale  # noqa: E402
from benchmarks.figures import Figure, conclude  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=7, help="timed runs per speed figure (the best is kept)")
    parser.add_argument("--elements", type=int, default=10**8, help="elements of the memory cases")
    parser.add_argument("--cases", action="append", metavar="PATH", help="the corpus (default: cases/)")
    parser.add_argument("--backend", action="append", metavar="NAME",
                        help="the corpus's backends (default: ort-cpu and openvino-cpu)")
    args = parser.parse_args()
    figures: list[Figure] = []

    def show(found: list[Figure]) -> None:
        for figure in found:
            print(figure.line(), flush=True)
        figures.extend(found)

    show(scale.speed_figures(args.repeat))
    show(scale.memory_figures(args.elements))
    show(corpus.figures(args.cases or [str(ROOT / "cases")], args.backend or ["ort-cpu", "openvino-cpu"]))
    return conclude(figures)


if __name__ == "__main__":
    sys.exit(main())
