"""Reading case files: safe YAML, the shipped JSON Schema, then types, shapes and values
checked against each other. Every problem is one line naming file, case and field; a bad
case or file never stops the others."""

from __future__ import annotations

import dataclasses
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
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.events import ScalarEvent, SequenceEndEvent
from yaml.nodes import ScalarNode, SequenceNode
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import Resolver
from yaml.scanner import Scanner

from conformance import profiles
from conformance.case import Case
from conformance.dtypes import DTYPES, HexInt, ValueError_, array_from_flat, convert_scalar, fast_array
from conformance.generators import GeneratorError, generate
from conformance.graphs.variants import known_graph_names, unknown_graph_entries
from conformance.judge import Judgement, Outputs, judge
from conformance.keys import has_nan
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


# --- YAML -----------------------------------------------------------------------------------
#
# Safe YAML only. libyaml (PyYAML's C parser) where it is installed, else PyYAML's pure
# parser; both feed the same composer, resolver and constructor below, so a file means the
# same either way. Case files hold long flat lists of numbers (a 128x1000 input is 128000
# scalars), which PyYAML would turn into a node, a resolver call and a constructor call
# each. The composer instead keeps a sequence of plain scalars as its raw strings, and the
# constructor turns those into numbers in bulk where they all look like decimal ints or
# floats, and otherwise resolves and constructs each one exactly as PyYAML does.

# Resolved as floats in addition to YAML 1.1's: 6e-08 and 1.5e1 (exponents without a dot
# or a sign, as JSON and YAML 1.2 write numbers); YAML 1.1's rules alone make them strings.
_EXPONENT_FLOAT = re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$")

# Plain scalars that the resolvers above certainly read as an int (decimal, no leading zero,
# which YAML 1.1 reads as octal) or a float (decimal point or exponent), and that int() and
# float() read the same way PyYAML's constructors do.
_DECIMAL_INT = r"[-+]?(?:0|[1-9][0-9]*)"
_DECIMAL_FLOAT = r"[-+]?[0-9]+(?:\.[0-9]*(?:[eE][-+]?[0-9]+)?|[eE][-+]?[0-9]+)"
_INT = re.compile(_DECIMAL_INT)
_FLOAT = re.compile(_DECIMAL_FLOAT)
_INTS = re.compile(f"(?:{_DECIMAL_INT}\n)*{_DECIMAL_INT}")
_FLOATS = re.compile(f"(?:{_DECIMAL_FLOAT}\n)*{_DECIMAL_FLOAT}")


class _Resolver(Resolver):
    pass


_Resolver.add_implicit_resolver("tag:yaml.org,2002:float", _EXPONENT_FLOAT, list("-+0123456789."))


class _PlainSequenceNode(SequenceNode):
    """A sequence whose items are all untagged, unanchored scalars, kept as their text. Its
    item nodes are made only if something asks for them (a merge key's value, say)."""

    _nodes: list[Any] | None

    def __init__(self, tag: str, texts: list[str], quoted: set[int], start_mark: Any, end_mark: Any,
                 flow_style: bool | None) -> None:
        self.texts = texts
        self.quoted = quoted  # positions of quoted scalars: strings, never resolved
        super().__init__(tag, [], start_mark, end_mark, flow_style)

    @property
    def value(self) -> list[Any]:
        if self._nodes is None:
            resolver: Any = _Resolver()
            self._nodes = [
                ScalarNode(resolver.resolve(ScalarNode, text, (i not in self.quoted, i in self.quoted)),
                           text, self.start_mark, self.end_mark)
                for i, text in enumerate(self.texts)
            ]
        return self._nodes

    @value.setter
    def value(self, nodes: list[Any]) -> None:
        self._nodes = nodes or None


class _Composer(Composer):
    """Mixed into a loader with a parser (check_event, peek_event, get_event) and a resolver."""

    def compose_sequence_node(self, anchor: Any) -> SequenceNode:
        this: Any = self  # the loader this is mixed into
        start = this.get_event()
        tag = start.tag
        if tag is None or tag == "!":
            tag = this.resolve(SequenceNode, None, start.implicit)
        texts: list[str] = []
        quoted: set[int] = set()
        peek, get = this.peek_event, this.get_event
        event = peek()
        while type(event) is ScalarEvent and event.anchor is None and event.tag is None:
            get()
            if not event.implicit[0]:
                quoted.add(len(texts))
            texts.append(event.value)
            event = peek()
        node: SequenceNode
        if type(event) is SequenceEndEvent:
            node = _PlainSequenceNode(tag, texts, quoted, start.start_mark, None, start.flow_style)
            if anchor is not None:
                self.anchors[anchor] = node
        else:
            # Something else among the items: PyYAML's own way, from where the scalars end.
            node = SequenceNode(tag, [], start.start_mark, None, flow_style=start.flow_style)
            if anchor is not None:
                self.anchors[anchor] = node
            for index, text in enumerate(texts):
                implicit = (index not in quoted, index in quoted)
                node.value.append(ScalarNode(
                    this.resolve(ScalarNode, text, implicit), text, start.start_mark, start.start_mark
                ))
            index = len(texts)
            while not this.check_event(SequenceEndEvent):
                node.value.append(self.compose_node(node, index))
                index += 1
        node.end_mark = get().end_mark
        return node


class _Constructor(SafeConstructor):
    def construct_yaml_seq(self, node: SequenceNode) -> Any:
        if isinstance(node, _PlainSequenceNode):
            return self._plain_items(node)
        return super().construct_yaml_seq(node)

    def construct_yaml_int(self, node: ScalarNode) -> int:
        value: int = super().construct_yaml_int(node)
        text = str(node.value).lstrip("+-")
        return HexInt(value) if text[:2] == "0x" else value

    def _plain_items(self, node: _PlainSequenceNode) -> list[Any]:
        texts = node.texts
        if not texts:
            return []
        if not node.quoted:
            joined = "\n".join(texts)
            if _INTS.fullmatch(joined):
                return list(map(int, texts))
            if _FLOATS.fullmatch(joined):
                return list(map(float, texts))
        items: list[Any] = []
        for index, text in enumerate(texts):
            if index in node.quoted:
                items.append(text)
            elif _INT.fullmatch(text):
                items.append(int(text))
            elif _FLOAT.fullmatch(text):
                items.append(float(text))
            else:
                tag = self.resolve(ScalarNode, text, (True, False))  # type: ignore[attr-defined]
                items.append(self.construct_object(ScalarNode(tag, text, node.start_mark, node.end_mark)))
        return items


_Constructor.add_constructor("tag:yaml.org,2002:seq", _Constructor.construct_yaml_seq)  # type: ignore[type-var]
_Constructor.add_constructor("tag:yaml.org,2002:int", _Constructor.construct_yaml_int)  # type: ignore[type-var]


class _YamlLoader(Reader, Scanner, Parser, _Composer, _Constructor, _Resolver):
    """PyYAML's pure-Python safe loading, with the composer and constructor above."""

    def __init__(self, stream: str) -> None:
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)
        _Composer.__init__(self)
        _Constructor.__init__(self)
        _Resolver.__init__(self)


_CParser: Any
try:
    from yaml._yaml import CParser as _CParser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _CParser = None

if _CParser is not None:

    class _CYamlLoader(_Composer, _CParser, _Constructor, _Resolver):  # type: ignore[misc]
        """libyaml's parser (events only), with the composer and constructor above; the
        composer comes first, so that libyaml's own (which makes a node per scalar) is unused."""

        def __init__(self, stream: str) -> None:
            _CParser.__init__(self, stream)
            _Composer.__init__(self)
            _Constructor.__init__(self)
            _Resolver.__init__(self)

    YAML_LOADER: type = _CYamlLoader
else:  # pragma: no cover - depends on how PyYAML was built
    YAML_LOADER = _YamlLoader


def read_yaml(text: str, loader: type | None = None) -> Any:
    """One YAML document, safely: the loader case files are read with."""
    return yaml.load(text, Loader=loader or YAML_LOADER)


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
        document = read_yaml(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return [CaseError(shown, None, "", f"cannot read: {exc}")]
    except (yaml.YAMLError, ValueError) as exc:  # ValueError: a date like 2001-13-45
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
    for position, entry in enumerate(raw.get("graphs", ())):
        if unknown_graph_entries([entry]):
            raise _Bad(f"graphs[{position}]", f"{entry!r} names no graph the suite builds (names: "
                       f"{', '.join(sorted(known_graph_names()))}; a prefix ending at a dash selects several)")
    spec = raw["input"]
    dtype = DTYPES[spec["dtype"]]
    shape = tuple(spec["shape"])
    axis, k = raw["axis"], raw["k"]
    if not -len(shape) <= axis < len(shape):
        raise _Bad("axis", f"{axis} is out of range for rank {len(shape)} (valid: {-len(shape)}..{len(shape) - 1})")
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
