"""Text from case files, runtimes and plugins on its way to a terminal or a result:
control characters shown escaped, never sent raw (an escape sequence in a case id must not
drive the terminal); values and exceptions cut short, never raising."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """One line, with every control character (newlines included) written as an escape."""
    return _CONTROL.sub(lambda found: found.group().encode("unicode_escape").decode("ascii"), text)


def short_repr(value: object, limit: int = 80) -> str:
    """A value in a message (a backend's answer): its repr, cut to `limit` characters (never raises)."""
    try:
        text = repr(value)
    except Exception:
        text = f"<a {type(value).__name__} whose repr() raised>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def exception_text(exc: BaseException, limit: int = 500) -> str:
    """`Type: message` on one line, cut to `limit` characters (never raises)."""
    try:
        message = " ".join(str(exc).split())
    except Exception:
        message = "<its str() raised>"
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return text if len(text) <= limit else text[:limit - 3] + "..."
