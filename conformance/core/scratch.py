"""Temporary files and folders of the suite's own, in the temporary folder, named after the
process that owns them (`topk-scratch-PID-KIND-...`): removed as that process exits, and,
where it was killed before it could, by the next process that calls remove_orphans() (a run
does, as it ends, once its workers have stopped)."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
from pathlib import Path

from conformance.core.processes import alive

PREFIX = "topk-scratch-"


def _prefix(kind: str) -> str:
    return f"{PREFIX}{os.getpid()}-{''.join(c for c in kind if c.isalnum() or c == '-')}-"


def folder(kind: str) -> Path:
    """A new folder, removed as this process exits."""
    made = Path(tempfile.mkdtemp(prefix=_prefix(kind)))
    atexit.register(shutil.rmtree, made, True)
    return made


def file(kind: str, suffix: str = "") -> str:
    """A new empty file, removed as this process exits ("" where none can be made)."""
    try:
        fd, path = tempfile.mkstemp(prefix=_prefix(kind), suffix=suffix)
    except OSError:
        return ""
    os.close(fd)
    atexit.register(_unlink, path)
    return path


def remove_orphans() -> None:
    """The scratch files and folders whose owner is no longer running."""
    for path in Path(tempfile.gettempdir()).glob(f"{PREFIX}*"):
        owner = path.name.removeprefix(PREFIX).split("-", 1)[0]
        if not owner.isdigit() or alive(int(owner)):
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            _unlink(str(path))


def _unlink(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
