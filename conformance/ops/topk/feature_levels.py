"""DirectML feature levels whose tensor-support tables admit a case: the tables of
DML_TOP_K_OPERATOR_DESC and DML_TOP_K1_OPERATOR_DESC, as the documents print them.

Each table holds "for DML_FEATURE_LEVEL_x and above"; a level admits a case when the
input's dimension count and data type, and the index tensor's data type, are in its
table. TOP_K1 was introduced in DML_FEATURE_LEVEL_2_1 (its document has no 2.0 table);
TOP_K in 2.0."""

from __future__ import annotations

from dataclasses import dataclass

_SMALL_TYPES = frozenset({"float32", "float16", "int32", "int16", "int8", "uint32", "uint16", "uint8"})


@dataclass(frozen=True)
class Table:
    level: str  # "2.0", "2.1", "3.1", "5.0"
    ranks: tuple[int, int]  # supported dimension counts, inclusive
    dtypes: frozenset[str]  # InputTensor / OutputValueTensor, as numpy names
    index_dtypes: frozenset[str]  # OutputIndexTensor, as numpy names


_LEVEL_5_0 = Table("5.0", (1, 8), _SMALL_TYPES | {"int64", "uint64"}, frozenset({"uint32", "uint64"}))
_LEVEL_3_1 = Table("3.1", (1, 8), _SMALL_TYPES, frozenset({"uint32"}))
_LEVEL_2_1 = Table("2.1", (4, 4), _SMALL_TYPES, frozenset({"uint32"}))
_LEVEL_2_0 = Table("2.0", (4, 4), frozenset({"float32", "float16"}), frozenset({"uint32"}))

TABLES: dict[str, tuple[Table, ...]] = {
    # DML_TOP_K_OPERATOR_DESC (seed 003): 5.0, 3.1, 2.1, 2.0.
    "TOP_K": (_LEVEL_2_0, _LEVEL_2_1, _LEVEL_3_1, _LEVEL_5_0),
    # DML_TOP_K1_OPERATOR_DESC (seed 000): introduced in 2.1; tables 5.0, 3.1, 2.1.
    "TOP_K1": (_LEVEL_2_1, _LEVEL_3_1, _LEVEL_5_0),
}


def directml_index_dtype(index_type: str | None) -> str:
    """The index tensor DirectML gets for a case's `index_type` (as the suite's DirectML
    graphs build it): UINT32 by default, UINT64 for int64, INT32 literally for int32."""
    return {None: "uint32", "int64": "uint64"}.get(index_type, index_type or "uint32")


def admitting_levels(dtype: str, rank: int, index_type: str | None = None) -> dict[str, list[str]]:
    """Per operator (TOP_K, TOP_K1), the feature levels whose table admits the case."""
    index = directml_index_dtype(index_type)
    return {
        operator: [
            t.level for t in tables
            if t.ranks[0] <= rank <= t.ranks[1] and dtype in t.dtypes and index in t.index_dtypes
        ]
        for operator, tables in TABLES.items()
    }


def describe_levels(levels: dict[str, list[str]]) -> str:
    """'TOP_K 2.0+, TOP_K1 2.1+' (every level from the lowest up), or the levels listed; 'none'."""
    parts = []
    for operator, found in levels.items():
        if not found:
            continue
        every = [t.level for t in TABLES[operator]]
        upward = found == every[every.index(found[0]):]
        parts.append(f"{operator} {found[0]}+" if upward else f"{operator} {', '.join(found)}")
    return ", ".join(parts) if parts else "none"
