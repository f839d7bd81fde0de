"""A benchmark figure with its target, and the last line every benchmark script prints."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    """One measured figure: a ratio against a peer measured in the same run (`x`), or a
    share or count (`unit` empty). `target` None: printed, with no target to meet."""

    name: str
    value: float
    target: float | None = None
    most: bool = True  # the target is a ceiling (else a floor)
    strictly: bool = False  # under the ceiling, not at it
    unit: str = "x"

    @property
    def met(self) -> bool:
        if self.target is None:
            return True
        if not self.most:
            return self.value >= self.target
        return self.value < self.target if self.strictly else self.value <= self.target

    def line(self) -> str:
        text = f"{self.value:8.3f}{self.unit:1}  {self.name}"
        if self.target is not None:
            bound = ("under" if self.strictly else "at most") if self.most else "at least"
            text += f"; target {bound} {self.target:g}{self.unit}"
        return text


def conclude(figures: Sequence[Figure]) -> int:
    """Print `benchmark: ok` when every target holds, else `benchmark: short` and the
    figures that missed; the exit status says the same."""
    missed = [figure for figure in figures if not figure.met]
    if not missed:
        print("benchmark: ok")
        return 0
    print("benchmark: short: " + "; ".join(f"{f.name.split(' (')[0].split(':')[0]} = {f.value:.3f}{f.unit}"
                                           for f in missed))
    return 1
