"""Timing one call the same way in every benchmark."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_seconds(run: Callable[[], object], repeat: int, warm_up: bool = False) -> float:
    """The median wall time of `repeat` calls of `run`; with `warm_up`, after one untimed
    call (a first compilation or dispatch is not what is measured)."""
    if warm_up:
        run()
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)
