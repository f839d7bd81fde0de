"""Reading case files: safe YAML, the shipped JSON Schema, then types, shapes and values
checked against each other. Every problem is one line naming file, case and field; a bad
case or file never stops the others: whatever goes wrong while loading one file (an
exception of any kind included) becomes that file's or that case's error.

What one file may cost is bounded (`Limits`): its size, YAML nesting depth, alias uses and
what they expand to, its number of cases, elements per case, and the length of an error line. Each limit has an
environment variable that raises it (TOPK_MAX_FILE_BYTES, ...; see docs/broken-input.md)."""

from __future__ import annotations

import dataclasses
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
from conformance.core.keys import has_nan
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
from conformance.core.sequences import output_shape
from conformance.core.tool_input import field_path, strict_integer
from conformance.ops.topk import profiles
from conformance.ops.topk.case import Case
from conformance.ops.topk.judge import Judgement, Outputs, judge
from conformance.ops.topk.oracle import Answer
from conformance.ops.topk.variants import known_graph_names, unknown_graph_entries


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



_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
NOT_YET_BUILT = ("argmax", "argmin")  # contract section 6's other operators (issue 18)



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



@cache
def _case_validator() -> jsonschema.protocols.Validator:
    schema = case_schema()
    base = jsonschema.Draft202012Validator
    strict = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        base, type_checker=base.TYPE_CHECKER.redefine("integer", strict_integer)
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
        except _Bad as bad:
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


def _build_case(raw: Any, path: Path, limits: Limits, parsed: Parsed) -> Case:
    if parsed.suspect:
        found = find_problem(raw, "", parsed)
        if found is not None:
            raise _Bad(*found)
    if not isinstance(raw, dict):
        raise _Bad("case", f"a case is a mapping (id, source, input, axis, k, ...), not a {_kind(raw)}")
    op = raw.get("op", "topk")
    if isinstance(op, str) and op not in ("topk", *NOT_YET_BUILT):
        raise _Bad("op", f"{op!r} names no operator of the contract (topk, {', '.join(NOT_YET_BUILT)})")
    if op in NOT_YET_BUILT:
        raise _Bad("op", f"{op!r} is an operator of the contract (section 6) that this version does not run yet; "
                   "its cases cannot be loaded")
    _check_schema(raw)
    for position, entry in enumerate(raw.get("graphs", ())):
        if unknown_graph_entries([entry]):
            raise _Bad(f"graphs[{position}]", f"{entry!r} names no graph the suite builds (names: "
                       f"{', '.join(sorted(known_graph_names()))}; a prefix ending at a dash selects several)")
    spec = raw["input"]
    dtype = DTYPES[spec["dtype"]]
    shape = tuple(spec["shape"])
    _check_size(shape, limits)
    axis, k = raw["axis"], raw["k"]
    if not -len(shape) <= axis < len(shape):
        raise _Bad("axis", f"{axis} is out of range for rank {len(shape)} (valid: {-len(shape)}..{len(shape) - 1})")
    if not _INT64_MIN <= k <= _INT64_MAX:  # the schema says so too; K is made an int64 tensor below
        raise _Bad("k", f"{k} is outside int64 ({_INT64_MIN}..{_INT64_MAX}); K is an int64 in every graph")
    if "data" in spec:
        x = _tensor(spec["data"], shape, dtype, "input.data")
    else:
        try:
            x = generate(spec["generator"], dtype, shape, axis)
        except GeneratorError as exc:
            raise _Bad("input.generator" + (f".{exc.field}" if exc.field else ""), str(exc)) from None
    n = shape[axis]
    expect_error = raw.get("expect_error", False)
    if not 0 <= k <= n and not expect_error:
        raise _Bad("k", f"{k} is outside [0, {n}] for axis {axis}; a case that wants an error says expect_error: true")
    out_shape = output_shape(shape, axis % len(shape), k)
    expected = _answer(raw["expected"], out_shape, x, axis, "expected") if "expected" in raw else None
    expected_any = tuple(
        _answer(answer, out_shape, x, axis, f"expected_any[{i}]")
        for i, answer in enumerate(raw.get("expected_any", []))
    )
    case = Case(
        id=raw["id"], source=raw["source"], file=path, x=x, axis=axis, k=k,
        largest=raw.get("largest", True), sort=raw.get("sort", "value"),
        stable=raw.get("stable"), index_type=raw.get("index_type"),
        tags=tuple(raw.get("tags", [])), expected=expected, expected_any=expected_any,
        expect_error=expect_error, graphs=tuple(raw.get("graphs", ())), repeat=raw.get("repeat", 1),
        input_spec=dict(spec),
    )
    _check_expected(case)
    return case


def _check_size(shape: tuple[int, ...], limits: Limits) -> None:
    """Refuses a shape of more than limits.elements elements (or a dimension of more, as in
    [0, 2**63]) before anything is allocated; the product is a Python int, which never wraps."""
    most = limits.elements
    for position, size in enumerate(shape):
        if size > most:
            raise _Bad(f"input.shape[{position}]", f"{size} is more than the {most} elements a case may have; "
                       f"{limits.note('elements')}")
    count = math.prod(shape)
    if count > most:
        raise _Bad("input.shape", f"{' x '.join(map(str, shape))} is {count} elements, more than the {most} "
                   f"a case may have; {limits.note('elements')}")


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
        return {key: ([] if key in keys and isinstance(value, list) else value) for key, value in holder.items()}

    if "input" in view:
        view["input"] = emptied(view["input"], ("data",))
    if "expected" in view:
        view["expected"] = emptied(view["expected"], ("values", "indices"))
    if isinstance(view.get("expected_any"), list):
        view["expected_any"] = [emptied(answer, ("values", "indices")) for answer in view["expected_any"]]
    return view


def _check_schema(raw: Any) -> None:
    error = jsonschema.exceptions.best_match(_case_validator().iter_errors(_schema_view(raw)))
    if error is None:
        return
    where = field_path(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = set(error.schema.get("properties", {}))
        unknown = sorted(str(key) for key in error.instance if key not in known)
        raise _Bad(join_field(where, unknown[0]), "unknown field")
    if error.validator == "required":
        missing = str(error.message).split("'")[1]
        raise _Bad(join_field(where, missing), "required field is missing")
    if error.validator == "oneOf" and where == "input":
        raise _Bad("input", "give exactly one of 'data' and 'generator'")
    if error.validator == "not":
        raise _Bad("expected_any", "give either 'expected' or 'expected_any', not both")
    if error.validator in ("minimum", "maximum") and where in ("k", "axis"):
        raise _Bad(where, f"{error.instance} is outside int64 ({_INT64_MIN}..{_INT64_MAX}); "
                   f"{'K' if where == 'k' else 'the axis'} is an int64 in every graph")
    raise _Bad(where or "case", error.message)



def _tensor(data: Any, shape: tuple[int, ...], dtype: np.dtype[Any], where: str) -> np.ndarray[Any, Any]:
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


def _answer(raw: dict[str, Any], shape: tuple[int, ...], x: np.ndarray[Any, Any], axis: int, where: str) -> Answer:
    """An expected output. Without `values` (the source checks the indices only) the values
    are the input's at the indices, so that comparing them adds nothing to the indices and
    the gather rule."""
    n = x.shape[axis]
    indices = _tensor(raw["indices"], shape, np.dtype(np.int64), f"{where}.indices")
    if indices.size and not ((indices >= 0) & (indices < n)).all():
        raise _Bad(f"{where}.indices", f"an index outside [0, {n})")
    if "values" not in raw:
        return Answer(np.take_along_axis(x, indices, axis=axis), indices, values_given=False)
    return Answer(_tensor(raw["values"], shape, x.dtype, f"{where}.values"), indices)


# --- a case's own expected outputs, judged as if a backend had produced them ---------------


def _check_expected(case: Case) -> None:
    """`expected` must be the DirectML answer in the case's own sort order (by value, ties by
    ascending index; by ascending index; the same selection for sort: none), and each of
    `expected_any` a valid output under the loosest of the three documents' rules (OpenVINO
    stable=false in the case's sort order). The DirectML rule defines nothing for an input
    with NaN, and a case that expects an error has no output: those are not checked."""
    with np.errstate(invalid="ignore"):  # a signalling NaN widened to float64 is no error
        nan = has_nan(case.x)
    if case.expect_error or nan:
        return
    # The same case without its answers: the judge then compares with the DirectML answer.
    bare = dataclasses.replace(case, expected=None, expected_any=())
    if case.expected is not None:
        strict = {
            "value": profiles.directml(),
            "index": profiles.openvino("index", stable=True),
            "none": profiles.onnx(sorted_=False),  # lowest-indexed ties selected, no order
        }[case.sort]
        _check_answer(bare, case.expected, strict, "expected", "the DirectML rule", strict=True)
    loose = profiles.openvino(case.sort, stable=False)
    for i, answer in enumerate(case.expected_any):
        _check_answer(bare, answer, loose, f"expected_any[{i}]", loose.label, strict=False)


def _check_answer(case: Case, answer: Answer, profile: profiles.Profile, where: str, rule: str, strict: bool) -> None:
    def verdict_ok(judgement: Judgement) -> bool:
        return judgement.verdict == "pass" or (not strict and judgement.verdict == "divergent")

    indices = answer.indices.astype(profile.index_dtype)
    whole = judge(case, profile, Outputs(answer.values, indices))
    if verdict_ok(whole):
        return
    # Which field is wrong: the indices if they fail on their own (with the input's values
    # at them), else the values.
    gathered = np.take_along_axis(case.x, answer.indices, axis=case.axis_index)
    alone = judge(case, profile, Outputs(gathered, indices))
    if not verdict_ok(alone):
        raise _Bad(f"{where}.indices", _broken(alone, "indices", rule, strict, case.sort))
    raise _Bad(f"{where}.values", _broken(whole, "values", rule, strict, case.sort))


def _broken(judgement: Judgement, field: str, rule: str, strict: bool, sort: str) -> str:
    note = judgement.discrepancy or {}
    sequence = note.get("sequence")
    where = f"sequence {sequence}" if sequence else "the sequence"  # [] for a 1-D input
    what = f"{', '.join(judgement.rules)} broken" if judgement.rules else "not the DirectML answer"
    text = f"{where}: {what} under {rule}"
    if not strict:
        text += " (the loosest of the three documents' rules)"
    if field == "values":
        text += f": values {note.get('values')} are not the input's at indices {note.get('indices')}"
    else:
        text += f"; got indices {note.get('indices')}"
    if strict and field == "values":
        text += f"; the DirectML answer (sort={sort}) has values {note.get('expected_values')}"
    elif strict and sort == "none":
        text += f", the DirectML answer selects {sorted(note.get('expected_indices', []))} (sort=none: in any order)"
    elif strict:
        text += f", the DirectML answer (sort={sort}) is {note.get('expected_indices')}"
    return text
