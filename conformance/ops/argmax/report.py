"""What the HTML report shows of an ArgMax / ArgMin case (Operator.report): the DirectML
feature levels whose tensor-support tables admit it, for DML_ARGMAX / DML_ARGMIN and for
DML_REDUCE with the ARGMAX / ARGMIN function, as the documents print them.

DML_ARGMAX / DML_ARGMIN (introduced in 3.0): at 3.0, 1 to 8 dimensions, FLOAT32, FLOAT16,
INT32, INT16, INT8, UINT32, UINT16, UINT8 in and INT64, INT32, UINT64, UINT32 out; 4.1 adds
INT64 and UINT64 inputs. DML_REDUCE with ARGMAX / ARGMIN: at 1.0, 4 dimensions, FLOAT32 and
FLOAT16 in, UINT32 out; 2.1 adds the 32, 16 and 8 bit integer inputs; 3.0 and 4.1 as
DML_ARGMAX."""

from __future__ import annotations

from dataclasses import dataclass

from conformance.operator.report import ReportAspects
from conformance.ops.argmax.case import Case
from conformance.ops.argmax.variants import Variant, directml_index_type


@dataclass(frozen=True)
class Table:
    level: str
    ranks: tuple[int, int]  # supported dimension counts, inclusive
    dtypes: frozenset[str]  # InputTensor, as numpy names
    index_dtypes: frozenset[str]  # OutputTensor, as numpy names


_FLOATS = frozenset({"float32", "float16"})
_SMALL_TYPES = _FLOATS | {"int32", "int16", "int8", "uint32", "uint16", "uint8"}
_INDICES = frozenset({"int64", "int32", "uint64", "uint32"})
_LEVEL_3_0 = Table("3.0", (1, 8), _SMALL_TYPES, _INDICES)
_LEVEL_4_1 = Table("4.1", (1, 8), _SMALL_TYPES | {"int64", "uint64"}, _INDICES)

TABLES: dict[str, tuple[Table, ...]] = {
    "ARG": (_LEVEL_3_0, _LEVEL_4_1),  # DML_ARGMAX / DML_ARGMIN: named after the case's operator
    "REDUCE": (Table("1.0", (4, 4), _FLOATS, frozenset({"uint32"})),
               Table("2.1", (4, 4), _SMALL_TYPES, frozenset({"uint32"})), _LEVEL_3_0, _LEVEL_4_1),
}


def levels(case: Case) -> str:
    """'ARGMAX 3.0+, REDUCE 1.0+' (every level from the lowest up), or the levels listed; 'none'."""
    rank, index = case.x.ndim, directml_index_type(case)
    parts = []
    for operator, tables in TABLES.items():
        found = [t.level for t in tables
                 if t.ranks[0] <= rank <= t.ranks[1] and case.dtype_name in t.dtypes and index in t.index_dtypes]
        if not found:
            continue
        every = [t.level for t in tables]
        name = case.op.upper() if operator == "ARG" else operator
        upward = found == every[every.index(found[0]):]
        parts.append(f"{name} {found[0]}+" if upward else f"{name} {', '.join(found)}")
    return ", ".join(parts) if parts else "none"


REPORT: ReportAspects[Case, Variant] = ReportAspects(
    levels=levels,
    levels_tables="DML_ARGMAX / DML_ARGMIN / DML_REDUCE",
)
