"""Float elements by bit pattern in case files: "0x..." strings of the element type's width,
"-nan" and "nan", loaded bit for bit (NaN payloads and signs included), refused with the
field and the width where they are wrong, and told apart by the judge's gather rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from conformance.cases.loader import CaseSet, load_cases
from conformance.core.dtypes import to_jsonable
from conformance.ops.topk import profiles
from conformance.ops.topk.judge import judge, topk_outputs


def load(tmp_path: Path, dtype: str, data: str, rest: str = "") -> CaseSet:
    count = data.count(",") + 1
    text = f"""\
cases:
  - id: bits
    source: test
    input: {{dtype: {dtype}, shape: [{count}], data: {data}}}
    axis: 0
    k: 1
{rest}  - id: good
    source: a well-formed neighbour
    input: {{dtype: int8, shape: [2], data: [1, 2]}}
    axis: 0
    k: 1
"""
    (tmp_path / "a.yaml").write_text(text, encoding="utf-8")
    return load_cases([tmp_path])


def loaded_x(tmp_path: Path, dtype: str, data: str) -> np.ndarray[Any, Any]:
    loaded = load(tmp_path, dtype, data)
    assert [str(e) for e in loaded.errors] == []
    x = loaded.cases[0].x
    assert x.dtype == np.dtype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype)
    return x


def bits_of(a: np.ndarray[Any, Any]) -> list[int]:
    return np.ascontiguousarray(a).view(np.dtype(f"u{a.dtype.itemsize}")).ravel().tolist()


# dtype: (a NaN with a payload, a signalling NaN, another pattern, default NaN, its negative)
PATTERNS = {
    "float16": (0x7E01, 0x7C01, 0x8001, 0x7E00, 0xFE00),
    "bfloat16": (0x7FC1, 0xFF81, 0x0001, 0x7FC0, 0xFFC0),
    "float32": (0x7FC0_0001, 0x7F80_0001, 0x8000_0001, 0x7FC0_0000, 0xFFC0_0000),
    "float64": (0x7FF8_0000_0000_0001, 0xFFF0_0000_0000_0001, 0x0000_0000_0000_0001,
                0x7FF8_0000_0000_0000, 0xFFF8_0000_0000_0000),
}


@pytest.mark.parametrize("dtype", list(PATTERNS))
def test_bit_patterns_and_nan_signs_survive_loading(tmp_path: Path, dtype: str) -> None:
    payload, signalling, other, nan, minus_nan = PATTERNS[dtype]
    width = 2 * np.dtype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype).itemsize
    hexes = [f'"0x{p:0{width}x}"' for p in (payload, signalling, other)]
    data = f'[{", ".join(hexes)}, "nan", "-nan", .nan, "0X{payload:0{width}X}", 1.5]'
    x = loaded_x(tmp_path, dtype, data)
    one_and_a_half = bits_of(np.array([1.5], dtype=x.dtype))[0]
    # YAML's .nan is the default quiet NaN too, whatever NaN this machine's arithmetic makes.
    assert bits_of(x) == [payload, signalling, other, nan, minus_nan, nan, payload, one_and_a_half]


@pytest.mark.parametrize("dtype, width", [("float16", 4), ("bfloat16", 4), ("float32", 8), ("float64", 16)])
def test_bit_pattern_of_the_wrong_width_names_field_and_width(tmp_path: Path, dtype: str, width: int) -> None:
    wrong = "0x" + "7" * (width * 2 if width < 16 else 8)
    loaded = load(tmp_path, dtype, f'[1, 2, "{wrong}"]')
    assert len(loaded.errors) == 1
    error = loaded.errors[0]
    assert (error.case, error.field) == ("bits", "input.data[2]")
    assert f"{width} hex digits" in error.message and dtype in error.message
    assert [case.id for case in loaded.cases] == ["good"]


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint64"])
def test_bit_pattern_in_an_integer_tensor_is_an_error(tmp_path: Path, dtype: str) -> None:
    loaded = load(tmp_path, dtype, '[1, "0x01", 2]')
    assert [(e.case, e.field) for e in loaded.errors] == [("bits", "input.data[1]")]
    assert "float types only" in loaded.errors[0].message


def test_unquoted_hex_in_a_float_tensor_is_an_error_not_a_number(tmp_path: Path) -> None:
    # YAML reads 0x7fc00001 unquoted as the integer 2143289345; a float tensor refuses it
    # rather than hold 2.1e9 where a NaN was meant. Integer tensors keep YAML's hex ints.
    loaded = load(tmp_path, "float32", "[1, 0x7fc00001]")
    assert [(e.case, e.field) for e in loaded.errors] == [("bits", "input.data[1]")]
    assert 'quote it ("0x7fc00001")' in loaded.errors[0].message
    assert loaded_x(tmp_path, "int32", "[1, 0x7f, -0x10]").tolist() == [1, 127, -16]


def test_bit_patterns_in_expected_values(tmp_path: Path) -> None:
    rest = '    expected: {values: ["0x7fc00001"], indices: [0]}\n'
    loaded = load(tmp_path, "float32", '["0x7fc00001", 1.0]', rest)
    assert [str(e) for e in loaded.errors] == []
    case = loaded.cases[0]
    assert case.expected is not None
    assert bits_of(case.expected.values) == [0x7FC0_0001]


def test_gather_tells_nan_payloads_apart(tmp_path: Path) -> None:
    loaded = load(tmp_path, "float32", '["0x7fc00001", "0x7fc00002", 1.0]')
    assert [str(e) for e in loaded.errors] == []
    case = loaded.cases[0]
    profile = profiles.onnx(True)

    def values(*patterns: int) -> np.ndarray[Any, Any]:
        return np.array(patterns, dtype=np.uint32).view(np.float32)

    same = judge(case, profile, topk_outputs(values(0x7FC0_0001), np.array([0])))
    assert "gather" not in same.rules
    other_payload = judge(case, profile, topk_outputs(values(0x7FC0_0002), np.array([0])))
    assert "gather" in other_payload.rules
    default_nan = judge(case, profile, topk_outputs(values(0x7FC0_0000), np.array([0])))
    assert "gather" in default_nan.rules
    # The report shows which NaN is which.
    assert default_nan.discrepancy is not None
    assert default_nan.discrepancy["input"][:2] == ["0x7fc00001", "0x7fc00002"]
    assert default_nan.discrepancy["values"] == ["nan"]


def test_nan_payloads_are_written_back_as_bit_patterns(tmp_path: Path) -> None:
    x = np.array([0x7FC0_0001, 0xFFC0_0000, 0x7FC0_0000, 0x3FC0_0000], dtype=np.uint32).view(np.float32)
    written = to_jsonable(x)
    assert written == ["0x7fc00001", "-nan", "nan", 1.5]
    back = loaded_x(tmp_path, "float32", "[" + ", ".join(f'"{v}"' if isinstance(v, str) else str(v)
                                                     for v in written) + "]")
    assert bits_of(back) == bits_of(x)
