"""Text from case files and runtimes on its way to a terminal: control characters shown
escaped, never sent raw (an escape sequence in a case id must not drive the terminal)."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """One line, with every control character (newlines included) written as an escape."""
    return _CONTROL.sub(lambda found: found.group().encode("unicode_escape").decode("ascii"), text)
