"""What a run gives back and what the judge makes of it, for every operator."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

Verdict = Literal["pass", "divergent", "fail", "error", "crash", "skip"]
VERDICTS: tuple[Verdict, ...] = ("pass", "divergent", "fail", "error", "crash", "skip")
Domain = Literal["defined", "undefined"]
# The rules every operator shares (contract sections 2 and 6); an operator adds its own.
COMMON_RULES = ("shape", "dtype", "index-range", "error")


@dataclass(frozen=True, eq=False)
class Outputs(Mapping[str, np.ndarray[Any, Any]]):
    """The arrays a backend returned, by the names the operator gives its outputs (TopK:
    values and indices; ArgMax: indices)."""

    named: Mapping[str, np.ndarray[Any, Any]]

    def __getitem__(self, name: str) -> np.ndarray[Any, Any]:
        return self.named[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.named)

    def __len__(self) -> int:
        return len(self.named)


@dataclass(frozen=True)
class Raised:
    message: str


Outcome = Outputs | Raised


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    rules: tuple[str, ...] = ()
    domain: Domain = "defined"
    message: str = ""
    discrepancy: dict[str, Any] | None = field(default=None, compare=False)


def error_rule(outcome: Outcome, expect_error: bool, domain: Domain, outputs: str) -> Judgement:
    """The judgement of a raise, or of outputs where the case expects an error (the `error`
    rule, the same for every operator): a raise passes where an error is expected and is the
    verdict `error` where it is not; outputs (`outputs` says what they were) break the rule."""
    if isinstance(outcome, Raised):
        if expect_error:
            return Judgement("pass", (), domain, f"raised as expected: {outcome.message}")
        return Judgement("error", (), domain, outcome.message)
    return Judgement("fail", ("error",), domain, f"expected an error, got {outputs}")
