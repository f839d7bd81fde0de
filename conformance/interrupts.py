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


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    raised: list[int] = []

    def stop(signum: int, frame: object) -> None:
        if not raised:  # once: a second signal must not cut the workers' clean-up short
            raised.append(signum)
            raise Interrupted(signum)

    previous = {number: signal.signal(number, stop) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
