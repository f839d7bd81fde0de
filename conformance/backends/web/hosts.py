"""What the backends ask of a host process (Node, or Chromium with its page)."""

from __future__ import annotations

from typing import Any, Protocol

from conformance.backends.base import BackendCrash


class Hung(BackendCrash):
    """The host gave no answer in time and was killed."""


class Host(Protocol):
    @property
    def alive(self) -> bool: ...

    def start(self) -> None: ...

    def call(self, request: dict[str, Any], seconds: float | None = None) -> tuple[dict[str, Any], list[str]]:
        """The reply to one request (protocol.request), and the log lines written meanwhile;
        Hung after `seconds` (None: the host's own limit)."""

    def close(self) -> None: ...
