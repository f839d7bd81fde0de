"""A DirectML operator, described generically: its DML_OPERATOR_TYPE and the members of its
desc struct in declaration order, each tagged by what it is. What any DirectML backend
needs to create and run the operator, whichever operator it is: an operator's builder
(conformance/ops/<op>/directml.py) makes one, and the Wine bridge lays the struct out from
it without knowing the operator.

Member names are DirectML's (`InputTensor`, `OutputIndexTensor`, `AxisDirection`, ...).
Enums (DML_AXIS_DIRECTION, DML_REDUCE_FUNCTION, ...) are UINT-sized: give them as `UInt`.
A `UIntArray` stands for DirectML's pair of members `UINT <Count>; const UINT* <Values>;`
(DML_ARGMAX_OPERATOR_DESC's AxisCount and Axes): it is named by the array member and
carries the count member's name."""

from __future__ import annotations

from dataclasses import dataclass

UINT_MAX = 2**32 - 1
INT_MIN, INT_MAX = -(2**31), 2**31 - 1


@dataclass(frozen=True)
class InputTensor:
    """A `const DML_TENSOR_DESC*` member bound to an input: the graph feed `feed` (its type and
    shape are the feed's)."""

    name: str
    feed: str


@dataclass(frozen=True)
class OutputTensor:
    """A `const DML_TENSOR_DESC*` member bound to an output, returned under `output`."""

    name: str
    output: str  # the output's name ("values", "indices")
    dtype: str  # numpy name of the element type ("uint32")
    shape: tuple[int, ...]


@dataclass(frozen=True)
class UInt:
    """A UINT member, or an enum (DML_AXIS_DIRECTION, ...): 4 bytes, unsigned."""

    name: str
    value: int

    def __post_init__(self) -> None:
        if not 0 <= self.value <= UINT_MAX:
            raise ValueError(f"{self.name} is a UINT; {self.value} does not fit")


@dataclass(frozen=True)
class Int:
    """An INT member: 4 bytes, signed."""

    name: str
    value: int

    def __post_init__(self) -> None:
        if not INT_MIN <= self.value <= INT_MAX:
            raise ValueError(f"{self.name} is an INT; {self.value} does not fit")


@dataclass(frozen=True)
class Float:
    """A FLOAT member: 4 bytes, IEEE single precision."""

    name: str
    value: float


@dataclass(frozen=True)
class UIntArray:
    """DirectML's `UINT <count_name>; const UINT* <name>;` pair (two members of the struct)."""

    name: str  # the array member ("Axes")
    count_name: str  # the count member before it ("AxisCount")
    values: tuple[int, ...]

    def __post_init__(self) -> None:
        for value in self.values:
            if not 0 <= value <= UINT_MAX:
                raise ValueError(f"{self.name} holds UINTs; {value} does not fit")


Member = InputTensor | OutputTensor | UInt | Int | Float | UIntArray


@dataclass(frozen=True)
class DirectMLDescription:
    """One DirectML operator: `operator` is DirectML's name ("DML_OPERATOR_TOP_K1"),
    `type` its DML_OPERATOR_TYPE number, `members` its desc struct's members in declaration
    order."""

    operator: str
    type: int
    members: tuple[Member, ...]

    def __post_init__(self) -> None:
        names = [m.name for m in self.members]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.operator}: a member name appears twice in {names}")
        outputs = [m.output for m in self.outputs]
        if len(set(outputs)) != len(outputs):
            raise ValueError(f"{self.operator}: an output name appears twice in {outputs}")

    @property
    def inputs(self) -> tuple[InputTensor, ...]:
        return tuple(m for m in self.members if isinstance(m, InputTensor))

    @property
    def outputs(self) -> tuple[OutputTensor, ...]:
        return tuple(m for m in self.members if isinstance(m, OutputTensor))

    def member(self, name: str) -> Member:
        for member in self.members:
            if member.name == name:
                return member
        raise KeyError(f"{self.operator} has no member {name}")
