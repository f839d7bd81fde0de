"""Time per backend, summed from its results, and performance cliffs: what the run's
summary and the report show (no runtime is imported here)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace

from conformance.results.records import Result


@dataclass(frozen=True)
class BackendTime:
    """`total`: the backend's whole time for its results (`seconds`); `compile` and
    `execution`: the parts it timed itself (None where it does not time itself); `runs`:
    graph runs that reached it (a repeated case's runs each count); `compilations`:
    sessions opened or models compiled for them."""

    backend: str
    total: float
    compile: float | None
    execution: float | None
    runs: int
    compilations: int

    @property
    def per_run(self) -> float | None:
        """Compilations per graph run (None where nothing timed ran)."""
        return self.compilations / self.runs if self.runs else None


def backend_times(results: list[Result]) -> list[BackendTime]:
    """One entry per backend, in the order the results first name them."""
    rows: dict[str, list[Result]] = {}
    for result in results:
        rows.setdefault(result.backend, []).append(result)
    times = []
    for backend, own in rows.items():
        ran = [r for r in own if r.verdict != "skip"]
        timed = [r for r in ran if r.compile_seconds is not None]  # reached a backend that times itself
        times.append(BackendTime(
            backend, sum(r.seconds for r in ran),
            sum(r.compile_seconds or 0.0 for r in timed) if timed else None,
            sum(r.run_seconds or 0.0 for r in timed) if timed else None,
            sum(max(1, len(r.runs)) for r in timed), sum(r.compilations or 0 for r in timed),
        ))
    return times


CLIFF_RATIO = 20.0  # slower than the median of the other backends by more than this
# Below this, a backend's median execution on a case says more about the machine than
# about the runtime: on a loaded 2-core machine, OpenVINO's infer of a 4-element input took
# 1-2 ms at the median and 10-60 ms at the 90th-99th percentile.
CLIFF_MIN_SECONDS = 0.01


def flag_cliffs(results: Sequence[Result]) -> list[Result]:
    """The results with `cliff` set where a backend is more than CLIFF_RATIO times slower on
    a case than the other backends: its median execution time on the case (run_seconds, the
    runtime's own call, over the graphs that returned outputs) against the median of the
    other backends' medians there. Medians, so that one stalled call flags nothing; each of
    the backend's results on the case that is itself that much slower carries the flag:
    {"ratio": its run_seconds over the others' median, "run_seconds", "backend_median",
    "others_median", "others": the backends compared with}."""
    times: dict[tuple[str, str], list[float]] = {}
    for result in results:
        if result.verdict in ("pass", "divergent", "fail") and result.run_seconds is not None:
            times.setdefault((result.case, result.backend), []).append(result.run_seconds)
    medians = {key: statistics.median(values) for key, values in times.items()}
    per_case: dict[str, dict[str, float]] = {}
    for (case, backend), median in medians.items():
        per_case.setdefault(case, {})[backend] = median
    flagged = []
    for result in results:
        own = medians.get((result.case, result.backend))
        others = {name: m for name, m in per_case.get(result.case, {}).items() if name != result.backend}
        if own is None or not others or result.run_seconds is None or (result.case, result.backend) not in times:
            flagged.append(result)
            continue
        threshold = CLIFF_RATIO * statistics.median(others.values())
        if own >= CLIFF_MIN_SECONDS and own > threshold and result.run_seconds > threshold:
            others_median = statistics.median(others.values())
            result = replace(result, cliff={
                "ratio": round(result.run_seconds / others_median, 1) if others_median else None,
                "run_seconds": result.run_seconds, "backend_median": round(own, 6),
                "others_median": round(others_median, 6), "others": sorted(others),
            })
        flagged.append(result)
    return flagged


def cliffs(results: list[Result]) -> list[Result]:
    """The results flagged as performance cliffs (`cliff`), worst first."""
    return sorted((r for r in results if r.cliff), key=lambda r: -float((r.cliff or {}).get("ratio") or 0))
