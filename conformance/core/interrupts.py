"""SIGINT and SIGTERM as an exception the commands catch to write what is done."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator


class Interrupted(BaseException):
    """SIGINT or SIGTERM during a run or a fuzz: it stops, writes what is done, and exits
    128+N. A BaseException, as KeyboardInterrupt is: no `except Exception` on the way (nor
    hypothesis, which would take it for the test failing) catches it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
        self.name = signal.Signals(signum).name


class _Held:
    """Statements a signal must not split (held()): how deep, and the signal that came."""

    depth = 0
    pending: int | None = None


@contextlib.contextmanager
def held() -> Iterator[None]:
    """A few statements a signal must not split (a result added to the run's list and to its
    stream on disk: results.json and results.jsonl must hold the same results): a signal
    during them raises Interrupted as they end."""
    _Held.depth += 1
    try:
        yield
    finally:
        _Held.depth -= 1
    if _Held.depth == 0 and _Held.pending is not None:
        signum, _Held.pending = _Held.pending, None
        raise Interrupted(signum)


class Received:
    """The signal received, if any: for code under a library that may swallow the
    exception (hypothesis, raised into while it draws data, reports a flaky strategy)."""

    signum: int | None = None


@contextlib.contextmanager
def interruptible(at_once: bool = True) -> Iterator[Received]:
    """SIGINT and SIGTERM raise Interrupted (`at_once`), or are only recorded in what this
    yields, for code that checks it where it is safe to stop (a handler that raises can
    land anywhere: in a library's garbage-collection callback, which prints it and goes on)."""
    received = Received()

    def stop(signum: int, frame: object) -> None:
        if received.signum is None:  # once: a second signal must not cut the workers' clean-up short
            received.signum = signum
            if at_once and _Held.depth:
                _Held.pending = signum
            elif at_once:
                raise Interrupted(signum)

    previous = {number: signal.signal(number, stop) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield received
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
