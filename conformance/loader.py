"""Reading case files: safe YAML, the shipped JSON Schema, then types, shapes and values
checked against each other. Every problem is one line naming file, case and field; a bad
case or file never stops the others."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import yaml

from conformance.case import Case
from conformance.dtypes import DTYPES, ValueError_, array_from_flat, convert_scalar
from conformance.generators import GeneratorError, generate
from conformance.oracle import Answer
from conformance.sequences import output_shape


@dataclass(frozen=True)
class CaseError:
    file: str
    case: str | None  # None when the problem is the file itself
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}: " + (f"case '{self.case}': " if self.case is not None else "")
        return f"{where}{self.field}: {self.message}" if self.field else where + self.message


@dataclass
class CaseSet:
    cases: list[Case] = field(default_factory=list)
    errors: list[CaseError] = field(default_factory=list)


class _Bad(Exception):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


class _YamlLoader(yaml.SafeLoader):
    """Safe YAML that also reads 6e-08 and 1.5e1 (exponents without a dot or a sign, as JSON
    and YAML 1.2 write numbers) as floats; PyYAML's YAML 1.1 rules would make them strings."""


_YamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."),
)


@cache
def case_schema() -> dict[str, Any]:
    text = resources.files("conformance").joinpath("schema/case.schema.json").read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


def _strict_integer(checker: Any, instance: Any) -> bool:
    # JSON Schema counts 2.0 as an integer; YAML's 2.0 is a float, which would crash as a
    # shape, axis or K. Only true ints are integers here.
    return isinstance(instance, int) and not isinstance(instance, bool)


@cache
def _case_validator() -> jsonschema.protocols.Validator:
    schema = case_schema()
    base = jsonschema.Draft202012Validator
    strict = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        base, type_checker=base.TYPE_CHECKER.redefine("integer", _strict_integer)
    )
    validator: jsonschema.protocols.Validator = strict(
        {"$ref": "#/$defs/case", "$defs": schema["$defs"]}
    )
    return validator


def case_files(paths: Iterable[Path]) -> list[Path]:
    """The YAML files named, and those under the folders named, in a stable order."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml"))
        else:
            found.append(path)
    return found


def load_cases(paths: Sequence[Path]) -> CaseSet:
    result = CaseSet()
    first_seen: dict[str, str] = {}
    for path in case_files(paths):
        for item in load_file(path):
            if isinstance(item, CaseError):
                result.errors.append(item)
            elif item.id in first_seen:
                result.errors.append(CaseError(
                    _shown(path), item.id, "id", f"duplicate id, first defined in {first_seen[item.id]}"
                ))
            else:
                first_seen[item.id] = _shown(path)
                result.cases.append(item)
    return result


def load_file(path: Path) -> list[Case | CaseError]:
    shown = _shown(path)
    try:
        document = yaml.load(path.read_text(encoding="utf-8"), Loader=_YamlLoader)
    except (OSError, UnicodeDecodeError) as exc:
        return [CaseError(shown, None, "", f"cannot read: {exc}")]
    except yaml.YAMLError as exc:
        return [CaseError(shown, None, "", f"not valid YAML: {' '.join(str(exc).split())}")]
    if not isinstance(document, dict) or not isinstance(document.get("cases"), list):
        return [CaseError(shown, None, "cases", "the file must be a mapping with a list 'cases'")]
    extra = sorted(set(document) - {"cases"})
    items: list[Case | CaseError] = []
    if extra:
        items.append(CaseError(shown, None, extra[0], "unknown top-level field"))
    for position, raw in enumerate(document["cases"]):
        case_id = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else None
        label = case_id if case_id is not None else f"#{position + 1}"
        try:
            items.append(_build_case(raw, path))
        except _Bad as bad:
            items.append(CaseError(shown, label, bad.field, bad.message))
    return items


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _build_case(raw: Any, path: Path) -> Case:
    _check_schema(raw)
    spec = raw["input"]
    dtype = DTYPES[spec["dtype"]]
    shape = tuple(spec["shape"])
    if "data" in spec:
        x = _tensor(spec["data"], shape, dtype, "input.data")
    else:
        try:
            x = generate(spec["generator"], dtype, shape)
        except GeneratorError as exc:
            raise _Bad(f"input.generator.{exc.field}", str(exc)) from None
    axis, k = raw["axis"], raw["k"]
    if not -len(shape) <= axis < len(shape):
        raise _Bad("axis", f"{axis} is out of range for rank {len(shape)} (valid: {-len(shape)}..{len(shape) - 1})")
    n = shape[axis]
    expect_error = raw.get("expect_error", False)
    if not 0 <= k <= n and not expect_error:
        raise _Bad("k", f"{k} is outside [0, {n}] for axis {axis}; a case that wants an error says expect_error: true")
    out_shape = output_shape(shape, axis % len(shape), k)
    expected = _answer(raw["expected"], out_shape, dtype, n, "expected") if "expected" in raw else None
    expected_any = tuple(
        _answer(answer, out_shape, dtype, n, f"expected_any[{i}]")
        for i, answer in enumerate(raw.get("expected_any", []))
    )
    return Case(
        id=raw["id"], source=raw["source"], file=path, x=x, axis=axis, k=k,
        largest=raw.get("largest", True), sort=raw.get("sort", "value"),
        stable=raw.get("stable"), index_type=raw.get("index_type"),
        tags=tuple(raw.get("tags", [])), expected=expected, expected_any=expected_any,
        expect_error=expect_error, graphs=tuple(raw.get("graphs", ())), repeat=raw.get("repeat", 1),
        input_spec=dict(spec),
    )


def _check_schema(raw: Any) -> None:
    error = jsonschema.exceptions.best_match(_case_validator().iter_errors(raw))
    if error is None:
        return
    where = _field_path(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = set(error.schema.get("properties", {}))
        unknown = sorted(str(key) for key in error.instance if key not in known)
        raise _Bad(_join(where, unknown[0]), "unknown field")
    if error.validator == "required":
        missing = str(error.message).split("'")[1]
        raise _Bad(_join(where, missing), "required field is missing")
    if error.validator == "oneOf" and where == "input":
        raise _Bad("input", "give exactly one of 'data' and 'generator'")
    if error.validator == "not":
        raise _Bad("expected_any", "give either 'expected' or 'expected_any', not both")
    raise _Bad(where or "case", error.message)


def _field_path(parts: Iterable[Any]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _join(parent: str, child: str) -> str:
    return f"{parent}.{child}" if parent else child


def _tensor(data: Any, shape: tuple[int, ...], dtype: np.dtype[Any], where: str) -> np.ndarray[Any, Any]:
    flat: list[Any] = []
    _flatten(data, shape, dtype, where, flat)
    return array_from_flat(flat, dtype).reshape(shape)


def _flatten(data: Any, shape: tuple[int, ...], dtype: np.dtype[Any], where: str, out: list[Any]) -> None:
    if not shape:
        if isinstance(data, list):
            raise _Bad(where, "a list where the shape puts a single value")
        try:
            out.append(convert_scalar(data, dtype))
        except ValueError_ as exc:
            raise _Bad(where, str(exc)) from None
        return
    if not isinstance(data, list):
        raise _Bad(where, f"a single value where the shape wants a list of {shape[0]}")
    if len(data) != shape[0]:
        raise _Bad(where, f"{len(data)} elements where the shape wants {shape[0]}")
    for i, item in enumerate(data):
        _flatten(item, shape[1:], dtype, f"{where}[{i}]", out)


def _answer(raw: dict[str, Any], shape: tuple[int, ...], dtype: np.dtype[Any], n: int, where: str) -> Answer:
    values = _tensor(raw["values"], shape, dtype, f"{where}.values")
    indices = _tensor(raw["indices"], shape, np.dtype(np.int64), f"{where}.indices")
    if indices.size and not ((indices >= 0) & (indices < n)).all():
        raise _Bad(f"{where}.indices", f"an index outside [0, {n})")
    return Answer(values, indices)
