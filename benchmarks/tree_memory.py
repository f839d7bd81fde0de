"""The peak memory of a command's whole process tree (Linux: /proc), sampled while it runs.

`getrusage(RUSAGE_CHILDREN)` gives the largest single process only; the suite runs a main
process and a worker per backend, so what a machine must hold is their sum. Each sample
adds up the proportional set size (PSS: a page shared by n processes counts 1/n in each,
so the shared libraries every process maps count once) of the command and every
descendant; the peak is the largest sum. A sample every 10 ms sees any allocation that
lives longer than that; the suite's big arrays live for seconds."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Peak:
    returncode: int
    pss: int  # bytes: the largest summed PSS of the tree
    rss: int  # bytes: the largest summed RSS (shared pages counted in every process)
    processes: int  # the most processes seen at once
    seconds: float


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            found += [int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
    except OSError:
        pass  # the process ended between two reads
    return found


def _tree(pid: int) -> list[int]:
    pending, tree = [pid], []
    while pending:
        current = pending.pop()
        tree.append(current)
        pending += _children(current)
    return tree


def _memory(pid: int) -> tuple[int, int]:
    pss = rss = 0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                pss = int(line.split()[1]) * 1024
            elif line.startswith("Rss:"):
                rss = int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return pss, rss


def peak_of(command: Sequence[str], cwd: Path, env: dict[str, str], log: Path, interval: float = 0.01) -> Peak:
    """Run `command` (its stdout and stderr to `log`) and sample its tree until it ends."""
    if not Path("/proc/self/smaps_rollup").exists():
        raise SystemExit("benchmark: the process-tree memory figure needs Linux's /proc/PID/smaps_rollup")
    started = time.perf_counter()
    with log.open("wb") as output:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                   stdout=output, stderr=subprocess.STDOUT)
        pss = rss = most = 0
        while process.poll() is None:
            samples = [_memory(pid) for pid in _tree(process.pid)]
            pss = max(pss, sum(p for p, _ in samples))
            rss = max(rss, sum(r for _, r in samples))
            most = max(most, len(samples))
            time.sleep(interval)
    return Peak(process.returncode, pss, rss, most, time.perf_counter() - started)
