"""The whole corpus through `topk-conformance run`, as ratios against peers measured in the
same run of this script on this machine.

    python benchmarks/corpus.py [--cases PATH ...] [--backend NAME ...]

Three runs of the command line (defaults: cases/ on ort-cpu and openvino-cpu): graph reuse
on with --jobs 1, graph reuse off with --jobs 1, graph reuse on with --jobs 2. One line
per figure:

- execution share: time inside the runtimes' own execution calls (`run_seconds`, summed)
  over the wall time of the run (reuse on, --jobs 1); target at least 0.5;
- compilations per graph run (`compilations` over graph runs, a repeated case's runs each
  counted; reuse on); target at most 0.2;
- graph reuse: wall time off over on (a speed-up factor);
- jobs: wall time at --jobs 1 over --jobs 2 (a speed-up factor);
- results whose verdict, rules or domain differ between the three runs: target 0.

Wall time is the whole command (start, loading the cases, workers, report). The last line
is `benchmark: ok` when every target holds, else `benchmark: short` and the figures that
missed. The machine's load average is printed before and after: other work on it slows
every run, the speed-ups included."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.figures import Figure, conclude  # noqa: E402

EXECUTION_SHARE_TARGET = 0.5
COMPILATIONS_TARGET = 0.2


@dataclass
class Run:
    wall: float
    results: list[dict[str, Any]]

    def ran(self) -> list[dict[str, Any]]:
        return [r for r in self.results if r["verdict"] != "skip"]

    def verdicts(self) -> dict[tuple[str, ...], tuple[Any, ...]]:
        return {(r["case"], r["backend"], r["graph"], r["k_source"]): (r["verdict"], tuple(r["rules"]), r["domain"])
                for r in self.results}

    @property
    def execution(self) -> float:
        return sum(r["run_seconds"] or 0.0 for r in self.ran())

    @property
    def backend_time(self) -> float:
        return float(sum(r["seconds"] for r in self.ran()))

    @property
    def compilations(self) -> int:
        return sum(r["compilations"] or 0 for r in self.ran())

    @property
    def graph_runs(self) -> int:
        """Runs of graphs that reached their backend (not those refused as they were built)."""
        return sum(max(1, len(r["runs"])) for r in self.ran() if r["compile_seconds"] is not None)


def run(cases: list[str], backends: list[str], *options: str) -> Run:
    with tempfile.TemporaryDirectory(prefix="topk-benchmark-") as folder:
        command = [sys.executable, "-m", "conformance", "run", "--out", folder, *options]
        for path in cases:
            command += ["--cases", path]
        for name in backends:
            command += ["--backend", name]
        env = dict(os.environ, CI="true")
        started = time.perf_counter()
        completed = subprocess.run(command, cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                                   capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        if completed.returncode != 0:
            sys.exit(f"benchmark: `{' '.join(command)}` exited {completed.returncode}:\n{completed.stderr}")
        results = json.loads((Path(folder) / "results.json").read_text())["results"]
    return Run(wall, results)


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def differing(base: Run, *others: Run) -> int:
    """Results of `base` whose (verdict, rules, domain) another run gives differently, or not at all."""
    theirs = [other.verdicts() for other in others]
    return sum(1 for key, verdict in base.verdicts().items() if any(t.get(key) != verdict for t in theirs))


def figures(cases: list[str], backends: list[str]) -> list[Figure]:
    """The corpus figures: three runs of the command line, then one figure per line."""
    print(f"benchmark: {', '.join(cases)} on {', '.join(backends)}; before: {load()}", flush=True)
    reuse = run(cases, backends, "--jobs", "1")
    no_reuse = run(cases, backends, "--jobs", "1", "--no-graph-reuse")
    jobs2 = run(cases, backends, "--jobs", "2")
    print(f"benchmark: after: {load()}", flush=True)
    return [
        Figure(f"execution share (reuse on, --jobs 1): {reuse.execution:.2f} s in the runtimes' execution "
               f"calls / {reuse.wall:.2f} s wall (the backends' whole time, compilation included: "
               f"{reuse.backend_time:.2f} s = {reuse.backend_time / reuse.wall:.3f})",
               reuse.execution / reuse.wall, EXECUTION_SHARE_TARGET, most=False, unit=""),
        Figure(f"compilations per graph run (reuse on): {reuse.compilations} / {reuse.graph_runs} (reuse off: "
               f"{no_reuse.compilations} / {no_reuse.graph_runs} = "
               f"{no_reuse.compilations / max(1, no_reuse.graph_runs):.3f})",
               reuse.compilations / max(1, reuse.graph_runs), COMPILATIONS_TARGET, unit=""),
        Figure(f"graph reuse speed-up: {no_reuse.wall:.2f} s off / {reuse.wall:.2f} s on", no_reuse.wall / reuse.wall),
        Figure(f"results whose verdict, rules or domain differ with reuse off or --jobs 2 (of {len(reuse.results)}"
               f"{'' if len(reuse.results) == len(no_reuse.results) == len(jobs2.results) else ', unequal counts'})",
               differing(reuse, no_reuse, jobs2), 0, unit=""),
        Figure(f"jobs speed-up: {reuse.wall:.2f} s at --jobs 1 / {jobs2.wall:.2f} s at --jobs 2",
               reuse.wall / jobs2.wall),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", action="append", metavar="PATH", help="case files or folders (default: cases/)")
    parser.add_argument("--backend", action="append", metavar="NAME",
                        help="backends (default: ort-cpu and openvino-cpu)")
    args = parser.parse_args()
    found = figures(args.cases or [str(REPO / "cases")], args.backend or ["ort-cpu", "openvino-cpu"])
    for figure in found:
        print(figure.line())
    return conclude(found)


if __name__ == "__main__":
    raise SystemExit(main())
