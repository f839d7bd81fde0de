"""The operator record: everything the stages ask of one operator, named in one place (in the
spirit of PyTorch's OpInfo). Each operator's folder under conformance/ops/ makes one;
conformance/ops/registry.py lists them. The stages consult a record and never import an
operator's folder."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np

from conformance.operator.graph import Graph
from conformance.operator.interfaces import Case, Variant
from conformance.operator.node import NodeCall
from conformance.operator.outcome import Judgement, Outcome
from conformance.operator.report import ReportAspects

if TYPE_CHECKING:  # hypothesis, which the fuzzer needs, is imported only when fuzzing
    from conformance.operator.fuzzing import FuzzSupport

C = TypeVar("C", bound=Case)
V = TypeVar("V", bound=Variant)


class CaseFieldError(Exception):
    """A case field is wrong: the loader reports it naming file, case and `field`."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def checked_axes(written: object, axes: tuple[int, ...], rank: int, expect_error: bool) -> list[int]:
    """The case's axes folded into 0..rank-1, each named once. An axis out of range is a
    CaseFieldError naming `axis` (or `axis[i]` in a list), except in a case that expects an
    error, where it is left out (never folded onto a valid axis)."""
    for position, axis in enumerate(axes):
        where = f"axis[{position}]" if isinstance(written, list) else "axis"
        if not -rank <= axis < rank and not expect_error:
            raise CaseFieldError(where, f"{axis} is out of range for rank {rank} (valid: {-rank}..{rank - 1})")
    valid = [axis % rank for axis in axes if -rank <= axis < rank]
    if len(set(valid)) != len(valid):
        raise CaseFieldError("axis", f"{list(axes)} names one axis twice")
    return valid


@dataclass(frozen=True)
class CaseSource:
    """One case of a case file as the loader hands it to the operator: the raw mapping,
    already checked against the schema (the common fields and the operator's), and the
    fields every case has, read. `make_input(axis)` builds X from `input` (its data, or its
    generator along `axis`); `tensor(data, shape, dtype, field)` reads a nested list such as
    an expected output. Both raise CaseFieldError naming the field."""

    raw: Mapping[str, Any]
    id: str
    source: str
    file: Path
    tags: tuple[str, ...]
    expect_error: bool
    graphs: tuple[str, ...]
    repeat: int
    input_spec: dict[str, Any]
    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    make_input: Callable[[int], np.ndarray[Any, Any]]
    tensor: Callable[[Any, tuple[int, ...], np.dtype[Any], str], np.ndarray[Any, Any]]
    attributes: str = "all"  # the `attributes` field, common to every operator (contract section 7)
    # An operator with several input tensors (NonMaxSuppression's boxes and scores): each
    # built from its field by name, its generator along the last axis.
    named_input: Callable[[str], np.ndarray[Any, Any]] = field(default=lambda name: np.zeros(0))


@dataclass(frozen=True)
class Operator(Generic[C, V]):
    """One operator: its case fields, graph variants, builders, judge and rules."""

    name: str  # the case field `op` and the result field `op`
    outputs: tuple[str, ...]  # its outputs' names, in the order its graphs give them
    rules: tuple[str, ...]  # every rule its judge may name, in the order results list them
    # Its case fields: JSON Schema properties (beside the common ones) and those required.
    case_fields: Mapping[str, Any]
    required_fields: tuple[str, ...]
    load_case: Callable[[CaseSource], C]  # raises CaseFieldError
    variants: Callable[[], list[V]]  # every graph variant, in the order results are given
    build: Callable[[C, V], Graph]  # raises GraphBuildError, CheckerRejected, RuntimeRefused
    judge: Callable[[C, Any, Outcome], Judgement]  # (case, variant.profile(case), outcome)
    # Inputs with a known answer that a backend must reproduce before it gives any result
    # (the Wine bridge's proof), with the variants of a dialect (`kind`) to run them through.
    proof: Callable[[str], list[tuple[C, V]]] = field(default=lambda kind: [])
    # What the fuzzer draws and writes for it (None: it is not fuzzed); imports hypothesis.
    fuzz: Callable[[], FuzzSupport] | None = None
    # The case's own fields as text, for repro notes ("axis 1, k 3, ...").
    describe: Callable[[C], str] = field(default=lambda case: "")
    # DirectML: the input types its documents' tensor-support table lists, and the index
    # type a case's DirectML graph gives (numpy names), for the device's own answers.
    directml_dtypes: frozenset[str] = frozenset()
    directml_index_type: Callable[[C], str] = field(default=lambda case: "")
    # What the HTML report shows of its cases and results beyond the fields every one has.
    report: ReportAspects[C, V] = field(default_factory=ReportAspects)
    # The case fields holding its input tensors (each as `input` is for TopK: dtype, shape,
    # data or a generator); the first is what `input_spec`, `shape` and `dtype` describe.
    tensor_inputs: tuple[str, ...] = ("input",)
    # A node of a user's model (the `model` command): the ONNX op type its nodes have, and the
    # case fields that node was (its inputs as tensors, K and the attributes as it had them),
    # raising NodeUnreadable where it cannot be one. "" / None: not judged inside models.
    onnx_op_type: str = ""
    from_node: Callable[[NodeCall], dict[str, Any]] | None = None

    @cached_property
    def graph_names(self) -> tuple[str, ...]:
        """Every value the `graph` field of its results can take: what a case's `graphs`
        entries are matched against."""
        return tuple(dict.fromkeys(variant.graph for variant in self.variants()))
