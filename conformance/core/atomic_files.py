"""Files the tools write, written whole or not at all: a temporary file beside the target,
flushed to disk and renamed over it, so that a reader (or a kill, or a full disk) sees the
old file or the new one, never part of one. The rename replaces a symbolic link at the
target's path; it never writes through it to the link's target. A failure is a WriteError:
one line naming the file and the reason, for the command to print with what it kept."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


class WriteError(Exception):
    """A file that could not be written: `str()` is one line naming it and why."""


def reason(error: OSError) -> str:
    """An OSError as a short reason ("No space left on device"), without the path."""
    return error.strerror or type(error).__name__


def _mode() -> int:
    # mkstemp makes the file 0600; give it the mode any other file written here gets (0666
    # less the umask), so that a CI job's artifact upload or a web server can read it.
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write_bytes(path: Path, data: bytes) -> None:
    misplaced = f"cannot write {path}: a file stands where its folder {path.parent} should be"
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            raise WriteError(f"cannot write {path}: it is a folder")
    except FileNotFoundError:
        pass
    except NotADirectoryError:
        raise WriteError(misplaced) from None
    except OSError as exc:
        raise WriteError(f"cannot write {path}: {reason(exc)}") from None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise WriteError(misplaced) from None
    except OSError as exc:
        raise WriteError(f"cannot make the folder {path.parent}: {reason(exc)}") from None
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise WriteError(f"cannot write {path}: {reason(exc)}") from None
    try:
        os.chmod(temporary, _mode())
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise WriteError(f"cannot write {path}: {reason(exc)}") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    """UTF-8; a lone surrogate (from a JSON file's `\\ud800`) is written escaped, not refused."""
    atomic_write_bytes(path, text.encode("utf-8", errors="backslashreplace"))
