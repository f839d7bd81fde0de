"""A run's output folder: one run at a time (a lock, taken before the run does any work, its
file removed as the run leaves the folder),
results streamed to disk as they arrive (`results.jsonl`, one JSON object a line, flushed),
and the final `results.json` and `report.html` written atomically (conformance/core/atomic_files.py),
so that a kill at any moment leaves every finished result readable and never half a file.
Nothing here writes through a symbolic link: the lock file and the stream are refused or
replaced where one stands, never followed."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
from dataclasses import asdict
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from conformance.core.atomic_files import WriteError, reason

if TYPE_CHECKING:
    from conformance.results.records import Result

STREAM_NAME = "results.jsonl"
# What a run writes when it ends (or is stopped by a signal it can catch).
FINISHED_NAMES = ("results.json", "report.html")
LOCK_NAME = ".topk-conformance.lock"


class FolderInUse(RuntimeError):
    """Another run holds the output folder."""


class StreamFailed(WriteError):
    """The results stream could not take a result (a full disk): the run stops; the stream
    keeps every result written before, each on a whole line."""


class OutputFolder:
    """Held for the whole run: the lock from the start, the results stream from `header()`
    on (so that a run refused before it starts leaves the previous run's files as they were)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._lock: int | None = None
        self._stream: int | None = None
        self.streamed = 0  # results on whole lines in the stream

    def __enter__(self) -> OutputFolder:
        return self._enter(retries=3)

    def _enter(self, retries: int) -> OutputFolder:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise WriteError(f"cannot use {self.folder} as the output folder: a file stands there "
                             "(or where one of its parents should be)") from None
        except OSError as exc:
            raise WriteError(f"cannot make the output folder {self.folder}: {reason(exc)}") from None
        lock_path = self.folder / LOCK_NAME
        try:
            lock = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            why = "it is a symbolic link; remove it" if exc.errno == errno.ELOOP else reason(exc)
            raise WriteError(f"cannot lock {self.folder}: {lock_path}: {why}") from None
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(lock, 32, 0).decode("ascii", "replace").strip() or "?"
            os.close(lock)
            raise FolderInUse(
                f"{self.folder} is in use by another run (pid {holder}); give this run its own --out"
            ) from None
        if not _still_there(lock, lock_path):
            # A run that finished removed the file between our open and our lock: the lock we
            # hold is on a file no other run will open. Take the one at the path now.
            os.close(lock)
            if retries:
                return self._enter(retries - 1)
            raise FolderInUse(f"{self.folder}: its lock file keeps being replaced; give this run its own --out")
        try:
            os.ftruncate(lock, 0)
            os.pwrite(lock, str(os.getpid()).encode(), 0)
        except OSError:
            pass  # the pid is for the message of a run refused; the lock holds without it
        self._lock = lock
        free = _free_bytes(self.folder)
        if free is not None and free < MIN_FREE_BYTES:
            # A full disk found now costs nothing; found at the first result, it costs every
            # backend's start.
            self.__exit__(None, None, None)
            raise WriteError(f"cannot write in {self.folder}: {free} bytes free on its device (a run needs at least "
                             f"{MIN_FREE_BYTES // 2**20} MiB to start); nothing was run")
        return self

    def header(self, environment: dict[str, Any], backends: dict[str, Any], case_errors: list[str]) -> None:
        """Start the stream (replacing the previous run's) with the run's header line. The
        previous run's results.json and report.html go first: a run killed before it writes its
        own must not leave another run's files looking like its results."""
        path = self.folder / STREAM_NAME
        try:
            for name in FINISHED_NAMES:
                (self.folder / name).unlink(missing_ok=True)
            path.unlink(missing_ok=True)  # a link there goes, its target stays as it was
            self._stream = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise StreamFailed(f"cannot write {path}: {reason(exc)}") from None
        self._write({"environment": environment, "backends": backends, "case_errors": case_errors})

    def add(self, result: Result) -> None:
        self._write({"result": asdict(result)})
        self.streamed += 1

    def _write(self, record: dict[str, Any]) -> None:
        """One whole line or nothing: a line cut short (a full disk) is cut off again."""
        assert self._stream is not None
        line = (json.dumps(record) + "\n").encode("utf-8", errors="backslashreplace")
        at = os.lseek(self._stream, 0, os.SEEK_END)
        try:
            written = 0
            while written < len(line):
                written += os.write(self._stream, line[written:])
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(self._stream, at)
            raise StreamFailed(f"cannot write {self.folder / STREAM_NAME}: {reason(exc)}") from None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self._stream is not None:
            os.close(self._stream)
        if self._lock is not None:
            # Removed while still held, so that a finished run leaves no trace of its lock in
            # the folder; a run that opened it meanwhile sees it gone (_still_there) and retries.
            with contextlib.suppress(OSError):
                if _still_there(self._lock, self.folder / LOCK_NAME):
                    (self.folder / LOCK_NAME).unlink()
            os.close(self._lock)  # releases the lock
            self._lock = None


MIN_FREE_BYTES = 2**20


def _free_bytes(folder: Path) -> int | None:
    """The bytes this user may still write on the folder's device (None where it cannot be told)."""
    try:
        stats = os.statvfs(folder)
    except (OSError, AttributeError):
        return None
    return stats.f_bavail * stats.f_frsize


def _still_there(lock: int, path: Path) -> bool:
    """Whether the open lock file is still the file at its path (not removed, not replaced)."""
    try:
        held, there = os.fstat(lock), os.lstat(path)
    except OSError:
        return False
    return (held.st_dev, held.st_ino) == (there.st_dev, there.st_ino)
