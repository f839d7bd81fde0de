"""Big case files (128x1000 inputs written out in `data`) load in bulk, not element by element,
with error messages as precise as ever; and the libyaml and pure-Python YAML paths read every
file the same. The load time itself is measured by benchmarks/load_cases.py, not here."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
import yaml

import conformance.cases.loader as loader_module
import conformance.core.safe_yaml as safe_yaml
from conformance.cases.loader import load_cases, load_file
from conformance.core.dtypes import DTYPES, array_from_flat, convert_scalar, fast_array
from conformance.core.safe_yaml import PurePythonLoader, read_yaml
from conformance.ops.topk.case import Case

REPO = Path(__file__).resolve().parent.parent
ROWS, COLUMNS = 128, 1000


def big_rows(seed: int, *, as_float: bool = False) -> list[list[Any]]:
    values = np.random.default_rng(seed).integers(-50, 50, (ROWS, COLUMNS))
    if as_float:
        return (values / 4).tolist()
    return values.tolist()


def big_case(case_id: str, dtype: str, rows: list[list[Any]], rest: str = "") -> str:
    def cell(v: Any) -> str:
        return f'"{v}"' if isinstance(v, str) else repr(v)

    data = ", ".join("[" + ", ".join(cell(v) for v in row) + "]" for row in rows)
    return (f"  - id: {case_id}\n    source: test\n    input:\n      dtype: {dtype}\n"
            f"      shape: [{ROWS}, {COLUMNS}]\n      data: [{data}]\n    axis: 1\n    k: 5\n{rest}")


def write(tmp_path: Path, *cases: str) -> Path:
    path = tmp_path / "big.yaml"
    path.write_text("cases:\n" + "".join(cases), encoding="utf-8")
    return path


def bits_of(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return np.ascontiguousarray(a).view(np.dtype(f"u{a.dtype.itemsize}"))


# --- errors deep inside a big array name their exact element --------------------------------


BAD_ELEMENTS: dict[str, tuple[str, Any, str]] = {
    # name: (dtype, bad value, what the message says)
    "uint8-out-of-range": ("uint8", 300, "not representable in uint8"),
    "int32-fraction": ("int32", 1.5, "not an integer"),
    "int64-too-big": ("int64", 2**63, "not representable in int64"),
    "float16-overflow": ("float16", 70000.0, "not representable in float16"),
    "float32-word": ("float32", "big", "is not a number"),
    "float32-bool": ("float32", True, "is not a number"),
    "float32-short-bit-pattern": ("float32", "0x7fc1", "8 hex digits"),
    "float64-int-beyond-range": ("float64", 2**1024, "not representable in float64"),
}


@pytest.mark.parametrize("name", list(BAD_ELEMENTS))
def test_error_deep_in_a_big_array_names_its_index(tmp_path: Path, name: str) -> None:
    dtype, bad, said = BAD_ELEMENTS[name]
    rows = big_rows(1) if not dtype.startswith("uint") else [[abs(v) for v in row] for row in big_rows(1)]
    rows[77][613] = bad
    text = big_case("bad", dtype, rows).replace("True", "true")
    path = write(tmp_path, text, big_case("good", "float32", big_rows(2)))
    items = load_file(path)
    errors = [item for item in items if not isinstance(item, Case)]
    assert [(e.case, e.field) for e in errors] == [("bad", "input.data[77][613]")]
    assert said in errors[0].message
    assert [item.id for item in items if isinstance(item, Case)] == ["good"]


def test_ragged_row_deep_in_a_big_array_is_named(tmp_path: Path) -> None:
    rows = big_rows(3)
    rows[101] = rows[101][:-1]
    items = load_file(write(tmp_path, big_case("bad", "float32", rows)))
    assert [(e.case, e.field) for e in items if not isinstance(e, Case)] == [("bad", "input.data[101]")]


def test_error_deep_in_big_expected_values_is_named(tmp_path: Path) -> None:
    rows = big_rows(4)
    expected_rows = [sorted(row, reverse=True)[:5] for row in rows]
    expected_rows[90][3] = "x"
    values = ", ".join("[" + ", ".join(repr(v) if not isinstance(v, str) else f'"{v}"' for v in row) + "]"
                       for row in expected_rows)
    indices = ", ".join("[" + ", ".join("0" for _ in row) + "]" for row in expected_rows)
    rest = f"    expected: {{values: [{values}], indices: [{indices}]}}\n"
    items = load_file(write(tmp_path, big_case("bad", "int16", rows, rest)))
    assert [(e.case, e.field) for e in items if not isinstance(e, Case)] == [("bad", "expected.values[90][3]")]


# --- the big array loads exactly, in bulk -----------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64", "int8", "int64", "uint64"])
def test_big_array_loads_exactly(tmp_path: Path, dtype: str) -> None:
    as_float = dtype.startswith(("float", "bfloat"))
    rows = big_rows(5, as_float=as_float)
    if dtype == "uint64":
        rows = [[abs(v) for v in row] for row in rows]
        rows[0][0] = 2**64 - 1
    if dtype == "int64":
        rows[0][0], rows[0][1] = -(2**63), 2**53 + 1
    if as_float:
        rows[5][6], rows[5][7], rows[5][8] = "nan", "-0.0", "0x" + "7" + "f" * (np.dtype(
            ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype).itemsize * 2 - 1)
    (case,) = load_file(write(tmp_path, big_case("big", dtype, rows)))
    assert isinstance(case, Case)
    want = array_from_flat([convert_scalar(v, DTYPES[dtype]) for row in rows for v in row], DTYPES[dtype])
    assert case.x.shape == (ROWS, COLUMNS)
    assert (bits_of(case.x).ravel() == bits_of(want)).all()


def test_big_array_is_converted_in_bulk_not_per_element(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading a 128x1000 input makes neither a YAML node nor a conversion call per element
    (PyYAML's composer makes a node, a resolver call and a constructor call for each of its
    128000 numbers; that took about 50 s for a 7.8 MB file)."""
    calls = {"convert": 0, "node": 0}
    real_convert = loader_module.convert_scalar
    real_node_init = yaml.nodes.ScalarNode.__init__

    def counting_convert(value: Any, dtype: Any) -> Any:
        calls["convert"] += 1
        return real_convert(value, dtype)

    def counting_node_init(self: Any, *args: Any, **kwargs: Any) -> None:
        calls["node"] += 1
        real_node_init(self, *args, **kwargs)

    monkeypatch.setattr(loader_module, "convert_scalar", counting_convert)
    monkeypatch.setattr(yaml.nodes.ScalarNode, "__init__", counting_node_init)
    path = write(tmp_path, big_case("a", "float32", big_rows(6)), big_case("b", "int32", big_rows(7)))
    items = load_file(path)
    assert all(isinstance(item, Case) for item in items)
    assert calls["convert"] == 0
    assert calls["node"] < 100, calls


def test_libyaml_is_used_where_installed() -> None:
    if not yaml.__with_libyaml__:
        pytest.skip("this PyYAML has no libyaml")
    assert any(base.__name__ == "CParser" for base in safe_yaml.YAML_LOADER.__mro__)


# --- the fast paths change nothing ---------------------------------------------------------------

TRICKY_YAML = """\
plain: [1, -2, +3, 0, -0, 3.5, -0.0, 1e3, 6e-08, 1.5E+1, 1., .5, -.5, 012, 0o17, 0x1F, 0b101,
        1_000, 1:30, 1:30.5, .nan, .inf, -.Inf, yes, No, on, ~, null, "", 2001-12-14, abc, '7',
        "8", !!str 9, !!float 10, &a 11, *a, 1e, 1.2.3, +.5e3, 1e+400]
nested: [[1, 2], [3, [4, 5]], [], [[]], {k: v}]
anchored: &s [1, 2, 3]
alias: *s
merge: {<<: {a: 1, b: 2}, b: 3}
multiline:
  - 1
  - 2.5
  - "x"
tagged: !!seq [1, 2]
"""


class _OldLoader(yaml.SafeLoader):
    """What case files were read with before: PyYAML's pure safe loader and one resolver."""


_OldLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."),
)


def test_yaml_paths_read_tricky_yaml_as_before() -> None:
    before = yaml.load(TRICKY_YAML, Loader=_OldLoader)
    assert repr(read_yaml(TRICKY_YAML)) == repr(before)
    assert repr(read_yaml(TRICKY_YAML, PurePythonLoader)) == repr(before)
    # And as PyYAML itself, but for exponents without a dot or sign (strings in YAML 1.1).
    plain = yaml.load(TRICKY_YAML, Loader=yaml.SafeLoader)
    differ = [(a, b) for a, b in zip(plain["plain"], before["plain"], strict=True) if repr(a) != repr(b)]
    assert differ == [("1e3", 1000.0), ("6e-08", 6e-08), ("+.5e3", 500.0), ("1e+400", float("inf"))]


@pytest.mark.parametrize("path", sorted((REPO / "cases").rglob("*.yaml")), ids=lambda p: p.name)
def test_yaml_paths_read_every_shipped_file_the_same(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    fast, pure = read_yaml(text), read_yaml(text, PurePythonLoader)
    assert repr(fast) == repr(pure)


@pytest.mark.parametrize("text", ["cases: [1, 2\n", "a: *nowhere\n", "---\na: 1\n---\nb: 2\n",
                                  "a: [&x 1, &x 2]\n", "a: {<<: [1, 2]}\n", "a: [2001-13-45]\n"])
def test_yaml_paths_refuse_what_pyyaml_refuses(text: str) -> None:
    with pytest.raises(Exception) as before:
        yaml.load(text, Loader=_OldLoader)
    for loader in (None, PurePythonLoader):
        with pytest.raises(type(before.value)):
            read_yaml(text, loader)


def test_impossible_date_is_a_file_error_not_a_crash(tmp_path: Path) -> None:
    # PyYAML raises ValueError (not a YAMLError) for a date that does not exist.
    (tmp_path / "a.yaml").write_text("cases: []\nwhen: 2001-13-45\n", encoding="utf-8")
    (tmp_path / "b.yaml").write_text(big_case("fine", "int8", [[1] * COLUMNS] * ROWS).join(["cases:\n", ""]))
    loaded = load_cases([tmp_path])
    assert [(Path(e.file).name, e.case) for e in loaded.errors] == [("a.yaml", None)]
    assert "not valid YAML" in loaded.errors[0].message and "month" in loaded.errors[0].message
    assert [case.id for case in loaded.cases] == ["fine"]


@pytest.mark.parametrize("seed", range(8))
def test_fast_array_is_the_element_walk(seed: int) -> None:
    """Whatever fast_array builds is what converting element by element builds, bit for bit;
    where an element is wrong it declines (and the walk names the element)."""
    rng = np.random.default_rng(seed)
    pool: list[Any] = [0, 1, -1, 2**53 + 1, 2**63, -(2**63), 2**64 - 1, 2**64, 2**1024, 0.1, -0.0, 1e300,
                       65504.0, 65520.0, 3.4e38, 1e-45, 1e-310, "nan", "-nan", "inf", "-inf", "-0.0",
                       "0x7e01", "0x7fc00001", "0x7ff8000000000001", "x", True, None, 1.5, float("nan")]
    for name, dtype in DTYPES.items():
        flat = [pool[i] for i in rng.integers(0, len(pool), 24)]
        nested = [flat[:12], flat[12:]]
        try:
            walked = array_from_flat([convert_scalar(v, dtype) for v in flat], dtype).reshape(2, 12)
        except ValueError:
            walked = None
        fast = fast_array(nested, (2, 12), dtype)
        if walked is None:
            assert fast is None, (name, flat)
        elif fast is not None:
            assert (bits_of(fast) == bits_of(walked)).all(), (name, flat)


def test_whole_shipped_corpus_loads() -> None:
    loaded = load_cases([REPO / "cases"])
    assert [str(error) for error in loaded.errors] == []


def test_without_libyaml_the_same_cases_load(monkeypatch: pytest.MonkeyPatch) -> None:
    with_libyaml = load_cases([REPO / "cases"])
    monkeypatch.setattr(safe_yaml, "YAML_LOADER", PurePythonLoader)
    pure = load_cases([REPO / "cases"])
    assert [str(e) for e in pure.errors] == [str(e) for e in with_libyaml.errors] == []
    assert [case.id for case in pure.cases] == [case.id for case in with_libyaml.cases]
    for a, b in zip(pure.cases, with_libyaml.cases, strict=True):
        assert a.x.dtype == b.x.dtype and (bits_of(a.x) == bits_of(b.x)).all(), a.id
        assert (a.expected is None) == (b.expected is None), a.id
        if a.expected is not None and b.expected is not None:
            if a.op == "topk":
                assert (bits_of(a.expected.values) == bits_of(b.expected.values)).all(), a.id
                assert (a.expected.indices == b.expected.indices).all(), a.id
            else:  # ArgMax / ArgMin: the indices alone
                assert (a.expected == b.expected).all(), a.id
