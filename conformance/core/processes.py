"""Child processes that must not outlive the process that started them."""

from __future__ import annotations

import ctypes
import os
import signal
import sys


def die_with_parent() -> None:
    """Have the kernel kill this process when its parent dies (Linux PR_SET_PDEATHSIG), so a
    SIGKILLed run or worker leaves no hung worker, Wine process or X server behind. Also
    usable as Popen's preexec_fn."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def alive(pid: int) -> bool:
    """Whether a process of that id runs (one of another user's counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
