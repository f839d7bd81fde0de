"""Argument types shared by the commands: argparse refuses a bad number with a usage error
(exit 2) naming the option, instead of a run that never times out or ends at once."""

from __future__ import annotations

import argparse
import math

MOST_JOBS = 256  # worker processes of a run: each holds a runtime (100-300 MB)


def jobs(text: str) -> int:
    """A number of parallel workers: 1 to MOST_JOBS (a huge one would start a process per
    unit of work)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"want a whole number, not {text!r}") from None
    if not 1 <= value <= MOST_JOBS:
        raise argparse.ArgumentTypeError(f"must be 1 to {MOST_JOBS}, not {value}")
    return value


MOST_PACK = 1024
DEFAULT_PACK = 1  # each graph alone; benchmarks/packs.py measures packing against it


def pack_size(text: str) -> int:
    """Graphs per pack: 1 (each graph alone) to MOST_PACK."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"want a whole number, not {text!r}") from None
    if not 1 <= value <= MOST_PACK:
        raise argparse.ArgumentTypeError(f"must be 1 to {MOST_PACK}, not {value}")
    return value


def positive_seconds(text: str) -> float:
    """A time in seconds: a finite number above 0 (not nan, inf, 0 or -1)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"want a number of seconds, not {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds above 0, not {text!r}")
    return value
