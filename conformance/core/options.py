"""Argument types shared by the commands: argparse refuses a bad number with a usage error
(exit 2) naming the option, instead of a run that never times out or ends at once."""

from __future__ import annotations

import argparse
import math

MOST_JOBS = 256  # worker processes of a run: each holds a runtime (100-300 MB)


def _one_to(text: str, most: int) -> int:
    """A whole number from 1 to `most`, or the argument error naming what was wrong."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"want a whole number, not {text!r}") from None
    if not 1 <= value <= most:
        raise argparse.ArgumentTypeError(f"must be 1 to {most}, not {value}")
    return value


def jobs(text: str) -> int:
    """A number of parallel workers: 1 to MOST_JOBS (a huge one would start a process per
    unit of work)."""
    return _one_to(text, MOST_JOBS)


MOST_PACK = 1024
DEFAULT_PACK = 1  # each graph alone; benchmarks/packs.py measures packing against it


def pack_size(text: str) -> int:
    """Graphs per pack: 1 (each graph alone) to MOST_PACK."""
    return _one_to(text, MOST_PACK)


def positive_seconds(text: str) -> float:
    """A time in seconds: a finite number above 0 (not nan, inf, 0 or -1)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"want a number of seconds, not {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds above 0, not {text!r}")
    return value


MOST_SHARDS = 1000  # more machines than a CI matrix has (GitHub's holds 256 jobs)


def shard(text: str) -> tuple[int, int]:
    """A shard of a run, I/N: the I-th (1-based, as a CI matrix counts) of N, 1 <= I <= N."""
    index, slash, count = text.partition("/")
    try:
        value = (int(index), int(count)) if slash else None
    except ValueError:
        value = None
    if value is None:
        raise argparse.ArgumentTypeError(f"want I/N, such as 2/3 (the second of three; I from 1), not {text!r}")
    if not 1 <= value[1] <= MOST_SHARDS:
        raise argparse.ArgumentTypeError(f"N must be 1 to {MOST_SHARDS}, not {value[1]} (in {text!r})")
    if not 1 <= value[0] <= value[1]:
        raise argparse.ArgumentTypeError(f"I must be 1 to N ({value[1]}), counted from 1, not {value[0]} (in {text!r})")
    return value
