"""Reading case files: safe YAML, the shipped JSON Schema, then types, shapes and values
checked against each other. Every problem is one line naming file, case and field; a bad
case or file never stops the others: whatever goes wrong while loading one file (an
exception of any kind included) becomes that file's or that case's error.

What one file may cost is bounded (`Limits`): its size, YAML nesting depth, alias uses and
what they expand to (nodes and characters), the length of one string, its number of cases,
elements per case, and the length of an error line. Each limit has an
environment variable that raises it (TOPK_MAX_FILE_BYTES, ...; see docs/broken-input.md)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import yaml

from conformance.cases.generators import GeneratorError, generate
from conformance.core.dtypes import DTYPES, ValueError_, array_from_flat, convert_scalar, fast_array
from conformance.core.safe_yaml import (
    FileRefused,
    Limits,
    LimitsError,
    Parsed,
    Problem,
    Refused,
    clip,
    find_problem,
    join_field,
    parse,
    read_text,
    yaml_message,
)
from conformance.core.tool_input import field_path, strict_integer
from conformance.operator.attributes import ALL, MINIMAL, is_minimal_graph
from conformance.operator.graph import unknown_graph_entries
from conformance.operator.interfaces import Case
from conformance.operator.record import CaseFieldError, CaseSource, Operator
from conformance.ops.registry import DEFAULT, OPERATORS


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



_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
NOT_YET_BUILT: tuple[str, ...] = ()  # operators of the contract this version does not run



def _error(file: str, case: str | None, field: str, message: str, limits: Limits) -> CaseError:
    """A CaseError whose line stays within limits.error_chars (short of a very long path):
    the case id and field cut to a quarter of it each, the message to what is left."""
    most = limits.error_chars
    if case is not None:
        case = clip(case, max(most // 4, 20))
    field = clip(field, max(most // 4, 20))
    room = most - len(str(CaseError(file, case, field, "")))
    return CaseError(file, case, field, clip(message, max(room, 60)))



@cache
def case_schema() -> dict[str, Any]:
    text = resources.files("conformance.cases").joinpath("schema/case.schema.json").read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema



def operator_case_schema(operator: Operator[Any, Any]) -> dict[str, Any]:
    """The schema of one operator's cases: the shipped schema's definitions, its case
    holding the common fields and the operator's own."""
    defs = dict(case_schema()["$defs"])
    common = dict(defs["common"]["properties"])
    common["op"] = {"const": operator.name}
    tensor = common.pop("input")
    common.update({name: tensor for name in operator.tensor_inputs})
    defs["case"] = {
        "type": "object",
        "required": sorted({"id", "source", *operator.tensor_inputs, *operator.required_fields}),
        "additionalProperties": False,
        "properties": {**common, **operator.case_fields},
        "not": {"required": ["expected", "expected_any"]},
    }
    return {"$ref": "#/$defs/case", "$defs": defs}


@cache
def _case_validator(op: str) -> jsonschema.protocols.Validator:
    base = jsonschema.Draft202012Validator
    strict = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        base, type_checker=base.TYPE_CHECKER.redefine("integer", strict_integer)
    )
    validator: jsonschema.protocols.Validator = strict(operator_case_schema(OPERATORS[op]))
    return validator


def case_files(paths: Iterable[Path]) -> list[Path]:
    """The YAML files named, and those under the folders named, in a stable order."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            try:
                found += sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml"))
            except OSError:  # an unreadable folder: loading it says why
                found.append(path)
        else:
            found.append(path)
    return found


def load_cases(paths: Sequence[Path], limits: Limits | None = None) -> CaseSet:
    """Every case of every file; a file or case that cannot be loaded is an error in the
    result, never an exception."""
    result = CaseSet()
    first_seen: dict[str, str] = {}
    if limits is None:
        try:
            limits = Limits.from_environment()
        except LimitsError:
            limits = None  # each file then says what is wrong with the variable
    for path in case_files(paths):
        for item in load_file(path, limits):
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


def load_file(path: Path, limits: Limits | None = None) -> list[Case | CaseError]:
    """The cases of one file, and an error for each that cannot be loaded (a file-level
    error, case None, where the file as a whole cannot). Never raises."""
    shown = str(path)
    try:
        shown = _shown(path)
        limits = limits or Limits.from_environment()
        return _load_file(path, shown, limits)
    except Exception as exc:  # whatever it is, it is this file's error, not the run's end
        return [_error(shown, None, "", _crash(exc), limits or Limits())]


def _crash(exc: BaseException) -> str:
    if isinstance(exc, LimitsError):
        return str(exc)
    if isinstance(exc, MemoryError):
        return "could not be loaded: out of memory"
    return f"could not be loaded: {type(exc).__name__}: {exc}"


def _load_file(path: Path, shown: str, limits: Limits) -> list[Case | CaseError]:
    def file_error(message: str, field: str = "") -> list[Case | CaseError]:
        return [_error(shown, None, field, message, limits)]

    try:
        text = read_text(path, limits)
    except FileRefused as refused:
        return file_error(str(refused))
    except UnicodeDecodeError as exc:
        return file_error(f"not UTF-8 text ({exc.reason} at byte {exc.start}); case files are UTF-8")
    except OSError as exc:
        return file_error(f"cannot read: {exc.strerror or exc}")
    try:
        parsed = parse(text, limits=limits)
    except Refused as exc:
        return file_error(str(exc))
    except (yaml.YAMLError, ValueError) as exc:  # ValueError: a date like 2001-13-45
        return file_error(f"not valid YAML: {yaml_message(exc)}")
    document = parsed.document
    structure = _file_structure(document)
    if structure:
        return file_error(structure, "cases")
    if id(document) in parsed.repeated:
        return [_error(shown, None, str(key), message, limits) for key, message in parsed.repeated[id(document)][1]]
    if len(document["cases"]) > limits.cases:
        return file_error(f"{len(document['cases'])} cases, more than {limits.cases} in one file; "
                          f"{limits.note('cases')}", "cases")
    items: list[Case | CaseError] = []
    extra = sorted((str(key) for key in document if key != "cases"), key=str)
    if extra:
        items.append(_error(shown, None, extra[0], "unknown top-level field (the only one is 'cases')", limits))
    for position, raw in enumerate(document["cases"]):
        case_id = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else None
        label = case_id if case_id is not None else f"#{position + 1}"
        try:
            items.append(_build_case(raw, path, limits, parsed))
        except CaseFieldError as bad:
            items.append(_error(shown, label, bad.field, bad.message, limits))
        except Exception as exc:  # a case that breaks the loader is that case's error
            items.append(_error(shown, label, "", _crash(exc), limits))
    return items



def _file_structure(document: Any) -> str:
    """What is wrong with the file's top level, or ""."""
    if document is None:
        return "the file holds no YAML document; a case file is a mapping with a list 'cases'"
    if not isinstance(document, dict):
        return f"the file is a {_kind(document)}, not a mapping with a list 'cases'"
    if "cases" not in document:
        return "no 'cases': a case file is a mapping with a list 'cases'"
    cases = document["cases"]
    if isinstance(cases, Problem):
        return cases.message
    if not isinstance(cases, list):
        return f"'cases' is a {_kind(cases)}; the file must be a mapping with a list 'cases'"
    return ""


def _kind(value: Any) -> str:
    names = {dict: "mapping", list: "list", str: "string", bool: "boolean", int: "number", float: "number",
             type(None): "null (nothing)"}
    return names.get(type(value), "number" if isinstance(value, int) else type(value).__name__)



def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


def case_from_mapping(raw: dict[str, Any], path: Path, limits: Limits | None = None) -> Case:
    """One case from a mapping as a case file holds it, its tensors' `data` given as numpy
    arrays or lists (the `model` command's node inputs, before any is written): checked as a
    case file's is; raises CaseFieldError naming the field."""
    return _build_case(raw, path, limits or Limits(), Parsed(raw, {}, 0))


def _build_case(raw: Any, path: Path, limits: Limits, parsed: Parsed) -> Case:
    if parsed.suspect:
        found = find_problem(raw, "", parsed)
        if found is not None:
            raise CaseFieldError(*found)
    if not isinstance(raw, dict):
        raise CaseFieldError("case", f"a case is a mapping (id, source, input, ...), not a {_kind(raw)}")
    op = raw.get("op", DEFAULT)
    if isinstance(op, str) and op in NOT_YET_BUILT:
        raise CaseFieldError("op", f"{op!r} is an operator of the contract (section 6) that this version does "
                             "not run yet; its cases cannot be loaded")
    if not isinstance(op, str) or op not in OPERATORS:
        known = ", ".join([*OPERATORS, *NOT_YET_BUILT])
        raise CaseFieldError("op", f"{op!r} names no operator of the contract ({known})")
    operator = OPERATORS[op]
    _check_schema(raw, op)
    unknown = unknown_graph_entries(raw.get("graphs", ()), operator.graph_names)
    if unknown:
        position = list(raw["graphs"]).index(unknown[0])
        names = ", ".join(sorted(operator.graph_names))
        raise CaseFieldError(f"graphs[{position}]", f"{unknown[0]!r} names no graph the suite builds (names: "
                             f"{names}; a prefix ending at a dash selects several)")
    attributes = raw.get("attributes", ALL)
    _check_minimal_graphs(raw.get("graphs", ()), attributes)
    first = operator.tensor_inputs[0]
    spec = raw[first]
    dtype = DTYPES[spec["dtype"]]
    shape = tuple(spec["shape"])
    for name in operator.tensor_inputs:
        _check_size(tuple(raw[name]["shape"]), limits, name)

    def make_tensor(name: str, axis: int) -> np.ndarray[Any, Any]:
        given = raw[name]
        given_shape, given_dtype = tuple(given["shape"]), DTYPES[given["dtype"]]
        if "data" in given:
            return _tensor(given["data"], given_shape, given_dtype, f"{name}.data")
        try:
            return generate(given["generator"], given_dtype, given_shape, axis % max(len(given_shape), 1))
        except GeneratorError as exc:
            raise CaseFieldError(f"{name}.generator" + (f".{exc.field}" if exc.field else ""), str(exc)) from None

    def make_input(axis: int) -> np.ndarray[Any, Any]:
        return make_tensor(first, axis)

    source = CaseSource(
        raw=raw, id=raw["id"], source=raw["source"], file=path, tags=tuple(raw.get("tags", [])),
        expect_error=raw.get("expect_error", False), graphs=tuple(raw.get("graphs", ())),
        repeat=raw.get("repeat", 1), input_spec=dict(spec), shape=shape, dtype=dtype,
        make_input=make_input, tensor=_tensor, attributes=attributes,
        named_input=lambda name: make_tensor(name, -1),
    )
    case: Case = operator.load_case(source)
    return case


def _check_minimal_graphs(entries: Sequence[str], attributes: str) -> None:
    """A case whose ONNX graphs write every attribute has no `-minimal` graph: an entry
    naming one would select nothing (contract section 7)."""
    for position, entry in enumerate(entries):
        if attributes != MINIMAL and is_minimal_graph(entry):
            raise CaseFieldError(f"graphs[{position}]", f"{entry!r} is a graph of cases with 'attributes: minimal'; "
                                 f"this case has attributes: {attributes} (its ONNX graphs write every attribute)")


def _check_size(shape: tuple[int, ...], limits: Limits, field: str = "input") -> None:
    """Refuses a shape of more than limits.elements elements (or a dimension of more, as in
    [0, 2**63]) before anything is allocated; the product is a Python int, which never wraps."""
    most = limits.elements
    for position, size in enumerate(shape):
        if size > most:
            raise CaseFieldError(f"{field}.shape[{position}]", f"{size} is more than the {most} elements a case "
                                 f"may have; {limits.note('elements')}")
    count = math.prod(shape)
    if count > most:
        raise CaseFieldError(f"{field}.shape", f"{' x '.join(map(str, shape))} is {count} elements, more than the "
                             f"{most} a case may have; {limits.note('elements')}")


def _schema_view(raw: Any) -> Any:
    """The case as the schema checks it. The schema checks tensors (data, values, indices)
    only to be lists, so they are left empty here: a schema message, which spells out the
    instance it is about, then never spells out a tensor."""
    if not isinstance(raw, dict):
        return raw
    view = dict(raw)

    def emptied(holder: Any, keys: tuple[str, ...]) -> Any:
        if not isinstance(holder, dict):
            return holder
        return {key: ([] if key in keys and isinstance(value, (list, np.ndarray)) else value)
                for key, value in holder.items()}

    for name in ("input", "boxes", "scores"):
        if name in view:
            view[name] = emptied(view[name], ("data",))
    if "expected" in view:
        view["expected"] = emptied(view["expected"], ("values", "indices", "selected_indices"))
    if isinstance(view.get("expected_any"), list):
        view["expected_any"] = [emptied(answer, ("values", "indices", "selected_indices"))
                                for answer in view["expected_any"]]
    return view


def _check_schema(raw: Any, op: str) -> None:
    error = jsonschema.exceptions.best_match(_case_validator(op).iter_errors(_schema_view(raw)))
    if error is None:
        return
    where = field_path(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = set(error.schema.get("properties", {}))
        unknown = sorted(str(key) for key in error.instance if key not in known)
        raise CaseFieldError(join_field(where, unknown[0]), "unknown field")
    if error.validator == "required":
        missing = str(error.message).split("'")[1]
        raise CaseFieldError(join_field(where, missing), "required field is missing")
    if error.validator == "oneOf" and where in ("input", "boxes", "scores"):
        raise CaseFieldError(where, "give exactly one of 'data' and 'generator'")
    if error.validator == "not":
        raise CaseFieldError("expected_any", "give either 'expected' or 'expected_any', not both")
    if error.validator in ("maxItems", "maxLength") and where.split("[")[0] in ("id", "tags"):
        # id, tags: each is on every row of the results and the report, so few and short.
        what = "items" if error.validator == "maxItems" else "characters"
        raise CaseFieldError(where, f"{len(error.instance)} {what}, more than the {error.validator_value} it may have")
    if error.validator in ("minimum", "maximum") and error.schema.get(error.validator) in (_INT64_MIN, _INT64_MAX):
        raise CaseFieldError(where, f"{error.instance} is outside int64 ({_INT64_MIN}..{_INT64_MAX}); "
                             f"'{where}' is an int64 in every graph")
    raise CaseFieldError(where or "case", error.message)



def _tensor(data: Any, shape: tuple[int, ...], dtype: np.dtype[Any], where: str) -> np.ndarray[Any, Any]:
    if isinstance(data, np.ndarray) and data.shape == shape and data.dtype == dtype:
        return data  # a tensor a model's node was given (case_from_mapping): already what it stands for
    fast = fast_array(data, shape, dtype)
    if fast is not None:
        return fast
    # Something is off, or unusual: the walk builds the same array, or names the element.
    flat: list[Any] = []
    _flatten(data, shape, dtype, where, flat)
    return array_from_flat(flat, dtype).reshape(shape)


def _flatten(data: Any, shape: tuple[int, ...], dtype: np.dtype[Any], where: str, out: list[Any]) -> None:
    if not shape:
        if isinstance(data, list):
            raise CaseFieldError(where, "a list where the shape puts a single value")
        try:
            out.append(convert_scalar(data, dtype))
        except ValueError_ as exc:
            raise CaseFieldError(where, str(exc)) from None
        return
    if not isinstance(data, list):
        raise CaseFieldError(where, f"a single value where the shape wants a list of {shape[0]}")
    if len(data) != shape[0]:
        raise CaseFieldError(where, f"{len(data)} elements where the shape wants {shape[0]}")
    for i, item in enumerate(data):
        _flatten(item, shape[1:], dtype, f"{where}[{i}]", out)
