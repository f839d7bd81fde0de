"""Packs against isolated runs: the corpus through `topk-conformance run` with `--pack N`
and with `--pack 1` (each graph alone), as ratios measured in the same run of this script.

    python benchmarks/packs.py [--cases PATH ...] [--backend NAME ...] [--pack N]

Per backend (default openvino-cpu; the corpus cases/), three runs at --jobs 1: alone
(--pack 1), packed (--pack N, default 64), and alone again. One line per figure:

- speed-up: wall time alone over packed (the whole command); target at least 5 on
  openvino-cpu (issue 20);
- compilations per graph run, packed (alone, beside it): a repeated case's runs counted each;
- the ceiling: the speed-up packs would give if every graph that passes alone cost nothing in
  a pack, while every other graph still runs alone (issue 20's rule), measured on the run
  alone: its wall time over that time less its passes' backend seconds. No packing can beat it;
- time outside the backends' calls, packed: wall time less the results' backend seconds, over
  wall time; target at most 0.2;
- results whose verdict, rules, domain or message differ between packed and alone: target 0.
  Messages are compared with generated node names masked (`TopK_123` -> `TopK_#`: OpenVINO
  numbers nodes per process). A result that also differs between the two runs alone (the
  runtime's own run-to-run variation, e.g. an output read from uninitialized memory) is not
  counted; how many there are is printed.

Then the fuzzer (`fuzz --seed 2026 --budget B` on the first backend, with and without
`--pack`): inputs run through every graph variant per second (the search; shrinking runs one
graph an input and never packs), packed over alone; target at least 5 on openvino-cpu; and
every input run per second, shrinking included, beside it.

The last line is `benchmark: ok` when every target holds, else `benchmark: short` and the
figures that missed. The machine's load average is printed before and after."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.corpus import Run, load, run  # noqa: E402
from benchmarks.figures import Figure, conclude  # noqa: E402

SPEED_UP_TARGET = {"openvino-cpu": 5.0}
FUZZ_TARGET = {"openvino-cpu": 5.0}
OUTSIDE_TARGET = 0.2
DEFAULT_PACK = 64
DEFAULT_FUZZ_BUDGET = 60.0
_NODE_NAME = re.compile(r"\b([A-Za-z]+)_\d+\b")


def _judged(results: list[dict[str, Any]]) -> dict[tuple[str, ...], tuple[Any, ...]]:
    return {(r["case"], r["backend"], r["graph"], r["k_source"]):
            (r["verdict"], tuple(r["rules"]), r["domain"], _NODE_NAME.sub(r"\1_#", r["message"] or ""))
            for r in results}


def _differing(a: Run, b: Run) -> set[tuple[str, ...]]:
    left, right = _judged(a.results), _judged(b.results)
    return {key for key in left.keys() | right.keys() if left.get(key) != right.get(key)}


def figures(cases: list[str], backends: list[str], pack: int) -> list[Figure]:
    found = []
    for backend in backends:
        print(f"benchmark: {', '.join(cases)} on {backend}, --pack {pack} against --pack 1; before: {load()}",
              flush=True)
        alone = run(cases, [backend], "--jobs", "1", "--pack", "1")
        packed = run(cases, [backend], "--jobs", "1", "--pack", str(pack))
        again = run(cases, [backend], "--jobs", "1", "--pack", "1")
        baseline = REPO / "tests" / "baselines" / f"{backend}.yaml"
        hinted = run(cases, [backend], "--jobs", "1", "--pack", str(pack), "--baseline", str(baseline)) \
            if baseline.exists() else None
        print(f"benchmark: after: {load()}", flush=True)
        unstable = _differing(alone, again)
        differ = _differing(alone, packed) - unstable
        for key in sorted(differ)[:10]:
            print(f"benchmark: differs: {key}: {_judged(alone.results).get(key)} | {_judged(packed.results).get(key)}")
        passing = sum(r["seconds"] for r in alone.ran() if r["verdict"] == "pass")
        outside = packed.wall - packed.backend_time
        found += [
            Figure(f"{backend} ceiling: {alone.wall:.2f} s alone / {alone.wall - passing:.2f} s without its "
                   f"passes' {passing:.2f} s (the speed-up if a pass cost nothing in a pack)",
                   alone.wall / (alone.wall - passing)),
            Figure(f"{backend} time outside the backends' calls at --pack {pack}: {outside:.2f} s / "
                   f"{packed.wall:.2f} s", outside / packed.wall, OUTSIDE_TARGET, unit=""),
            Figure(f"{backend} speed-up: {alone.wall:.2f} s alone / {packed.wall:.2f} s at --pack {pack} "
                   f"(again alone: {again.wall:.2f} s)", alone.wall / packed.wall,
                   SPEED_UP_TARGET.get(backend), most=False),
        ]
        if hinted is not None:
            found += [
                Figure(f"{backend} speed-up with its baseline's discrepancies alone from the start: {alone.wall:.2f} s "
                       f"alone / {hinted.wall:.2f} s at --pack {pack} --baseline", alone.wall / hinted.wall),
                Figure(f"{backend} results that differ packed with the baseline and alone (of {len(alone.results)})",
                       len(_differing(alone, hinted) - unstable), 0, unit=""),
            ]
        found += [
            Figure(f"{backend} compilations per graph run at --pack {pack}: {packed.compilations} / "
                   f"{packed.graph_runs} (alone: {alone.compilations} / {alone.graph_runs} = "
                   f"{alone.compilations / max(1, alone.graph_runs):.3f})",
                   packed.compilations / max(1, packed.graph_runs), unit=""),
            Figure(f"{backend} results whose verdict, rules, domain or message differ packed and alone (of "
                   f"{len(alone.results)}; node names masked; {len(unstable)} that differ between the two "
                   "runs alone not counted)", len(differ), 0, unit=""),
        ]
    return found


def fuzz_figures(backend: str, budget: float) -> list[Figure]:
    """The fuzzer with and without packs: the same seed and budget, one after the other."""
    print(f"benchmark: fuzz {backend} --budget {budget:g}, --pack against --no-pack; before: {load()}", flush=True)
    packed, alone = _fuzz(backend, budget, "--pack"), _fuzz(backend, budget, "--no-pack")
    print(f"benchmark: after: {load()}", flush=True)

    def rate(summary: dict[str, Any], key: str) -> float:
        return float(summary[key]) / max(1e-9, float(summary["seconds"]))

    return [
        Figure(f"{backend} fuzzer inputs through every variant per second: {rate(packed, 'searched'):.2f} packed "
               f"({packed['packed']} of {packed['searched']} in packs) / {rate(alone, 'searched'):.2f} alone",
               rate(packed, "searched") / max(1e-9, rate(alone, "searched")), FUZZ_TARGET.get(backend), most=False),
        Figure(f"{backend} fuzzer inputs per second, shrinking included: {rate(packed, 'examples'):.2f} packed / "
               f"{rate(alone, 'examples'):.2f} alone", rate(packed, "examples") / max(1e-9, rate(alone, "examples"))),
    ]


def _fuzz(backend: str, budget: float, pack: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="topk-benchmark-fuzz-") as folder:
        command = [sys.executable, "-m", "conformance", "fuzz", "--backend", backend, "--seed", "2026",
                   "--budget", f"{budget:g}", pack, "--out", folder]
        completed = subprocess.run(command, cwd=REPO, env=dict(os.environ, CI="true"), stdin=subprocess.DEVNULL,
                                   capture_output=True, text=True, check=False)
        if completed.returncode != 0:
            sys.exit(f"benchmark: `{' '.join(command)}` exited {completed.returncode}:\n{completed.stderr}")
        summary: dict[str, Any] = json.loads((Path(folder) / "fuzz.json").read_text())
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", action="append", metavar="PATH", help="case files or folders (default: cases/)")
    parser.add_argument("--backend", action="append", metavar="NAME", help="backends (default: openvino-cpu)")
    parser.add_argument("--pack", type=int, default=DEFAULT_PACK, metavar="N",
                        help=f"graphs per pack (default: {DEFAULT_PACK})")
    parser.add_argument("--fuzz-budget", type=float, default=DEFAULT_FUZZ_BUDGET, metavar="SECONDS",
                        help=f"each fuzz run's budget (default: {DEFAULT_FUZZ_BUDGET:g}; 0: no fuzz figures)")
    args = parser.parse_args()
    backends = args.backend or ["openvino-cpu"]
    found = figures(args.cases or [str(REPO / "cases")], backends, args.pack)
    if args.fuzz_budget > 0:
        found += fuzz_figures(backends[0], args.fuzz_budget)
    for figure in found:
        print(figure.line())
    return conclude(found)


if __name__ == "__main__":
    raise SystemExit(main())
