"""A test case, as loaded and checked from a case file."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from conformance.ops.topk.oracle import Answer, Order, directml_answer, in_order, nan_rows


@dataclass(frozen=True)
class Case:
    id: str
    source: str
    file: Path
    x: np.ndarray[Any, Any]
    axis: int  # as written: negative counts from the back (graphs keep it that way)
    k: int
    largest: bool = True
    sort: Order = "value"
    stable: bool | None = None  # None: OpenVINO graphs are built both ways
    index_type: str | None = None  # None: each dialect's default
    tags: tuple[str, ...] = ()
    expected: Answer | None = None
    expected_any: tuple[Answer, ...] = ()
    expect_error: bool = False
    graphs: tuple[str, ...] = ()  # graph names or prefixes the case is limited to; () = all
    repeat: int = 1  # runs of the same built graph on the same input, each judged
    input_spec: dict[str, Any] = field(default_factory=dict, compare=False)  # for repro notes
    op: str = "topk"  # the operator (contract section 6)
    attributes: str = "all"  # all | minimal: which attributes its ONNX graphs write (section 7)

    @property
    def axis_index(self) -> int:
        return self.axis % self.x.ndim

    @property
    def n(self) -> int:
        return int(self.x.shape[self.axis_index])

    @property
    def dtype_name(self) -> str:
        return str(self.input_spec.get("dtype", self.x.dtype))

    def reference(self, order: Order) -> Answer:
        """The answer an output in `order` is compared with: the case's own `expected`
        (written in the case's `sort` order) where the source prints one, else the DirectML
        answer from the oracle, put in that order."""
        if self.uses_expected(order):
            assert self.expected is not None
            return self.expected
        return in_order(self.directml_answer, self.axis, order)

    def uses_expected(self, order: Order) -> bool:
        """Whether `reference(order)` is the case's own `expected` (else the DirectML answer)."""
        return self.expected is not None and order in (self.sort, "none")

    def reference_source(self, order: Order) -> str:
        """What `reference(order)` is, for messages."""
        return "the case's expected output" if self.uses_expected(order) else "the DirectML answer"

    @cached_property
    def directml_answer(self) -> Answer:
        """Computed once per case, however many graphs and backends are judged against it
        (with the NaN test per sequence the judge needs too: one pass over the input for
        both)."""
        return directml_answer(self.x, self.axis, self.k, self.largest, self.nan_rows)

    @cached_property
    def nan_rows(self) -> np.ndarray[Any, Any]:
        """Per sequence (as `sequences.as_rows` numbers them), whether it holds a NaN; found
        once per case, in the input's own type."""
        return nan_rows(self.x, self.axis_index)
