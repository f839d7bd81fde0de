"""A run's output folder: one run at a time (a lock), results streamed to disk as they
arrive (`results.jsonl`, one JSON object a line, flushed), and the final `results.json`
and `report.html` written atomically, so a kill at any moment leaves every finished
result readable and never half a file."""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from dataclasses import asdict
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from conformance.results.records import Result

STREAM_NAME = "results.jsonl"
LOCK_NAME = ".topk-conformance.lock"


class FolderInUse(RuntimeError):
    """Another run holds the output folder."""


def atomic_write_text(path: Path, text: str) -> None:
    """Write a temporary file beside `path` and rename it over `path`: readers see the old
    file or the new one, never part of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # mkstemp makes the file 0600; give it the mode any other file written here gets
        # (0666 less the umask), so that a CI job's artifact upload or a web server can read it.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


class OutputFolder:
    """Held for the whole run: the lock and the results stream."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._lock: IO[str] | None = None
        self._stream: IO[str] | None = None

    def __enter__(self) -> OutputFolder:
        self.folder.mkdir(parents=True, exist_ok=True)
        lock = (self.folder / LOCK_NAME).open("a+", encoding="utf-8")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            holder = lock.read().strip() or "?"
            lock.close()
            raise FolderInUse(
                f"{self.folder} is in use by another run (pid {holder}); give this run its own --out"
            ) from None
        lock.seek(0)
        lock.truncate()
        lock.write(str(os.getpid()))
        lock.flush()
        self._lock = lock
        self._stream = (self.folder / STREAM_NAME).open("w", encoding="utf-8")
        return self

    def header(self, environment: dict[str, Any], backends: dict[str, Any], case_errors: list[str]) -> None:
        self._write({"environment": environment, "backends": backends, "case_errors": case_errors})

    def add(self, result: Result) -> None:
        self._write({"result": asdict(result)})

    def _write(self, record: dict[str, Any]) -> None:
        assert self._stream is not None
        self._stream.write(json.dumps(record) + "\n")
        self._stream.flush()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self._stream is not None:
            self._stream.close()
        if self._lock is not None:
            self._lock.close()  # releases the lock
