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
import os
import re
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import yaml
from yaml.composer import Composer, ComposerError
from yaml.constructor import SafeConstructor
from yaml.events import AliasEvent, ScalarEvent, SequenceEndEvent, SequenceStartEvent
from yaml.nodes import MappingNode, ScalarNode, SequenceNode
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import Resolver
from yaml.scanner import Scanner

from conformance.cases.case import Case
from conformance.cases.dtypes import DTYPES, HexInt, ValueError_, array_from_flat, convert_scalar, fast_array
from conformance.cases.generators import GeneratorError, generate
from conformance.graphs.variants import known_graph_names, unknown_graph_entries
from conformance.judging import profiles
from conformance.judging.judge import Judgement, Outputs, judge
from conformance.judging.keys import has_nan
from conformance.judging.oracle import Answer
from conformance.judging.sequences import output_shape


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


# --- what one file may cost ---------------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    """What loading one case file may cost. Anything beyond is that file's or case's error,
    naming the limit and the environment variable that raises it (`LIMIT_VARIABLES`);
    `from_environment()` reads them, and load_cases/load_file use it when given no limits."""

    file_bytes: int = 64 * 1024 * 1024  # the file's size (loading costs about 20 times it in memory)
    cases: int = 10_000  # cases in the file (each costs a schema check, ~0.2-0.5 ms)
    nodes: int = 250_000  # YAML nodes made one by one (~10 us each): all but plain lists' numbers
    elements: int = 100_000_000  # elements of one case's input: a dimension, and their product
    depth: int = 64  # YAML collections nested in one another (a case needs about 13)
    aliases: int = 1_000  # YAML alias uses (*name) in the file
    alias_nodes: int = 100_000  # YAML nodes those aliases stand for, expanded, in all
    error_chars: int = 1_000  # characters of one error line; longer messages are cut

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Limits:
        environ = os.environ if environ is None else environ
        values: dict[str, int] = {}
        for name, variable in LIMIT_VARIABLES.items():
            text = environ.get(variable)
            if text is None or not text.strip():
                continue
            try:
                value = int(text.strip())
            except ValueError:
                value = 0
            if value < 1:
                raise LimitsError(f"{variable}={text!r} is not a whole number of at least 1")
            values[name] = value
        return cls(**values)

    def note(self, name: str) -> str:
        """How a message names the limit `name` and how to raise it."""
        variable = LIMIT_VARIABLES[name]
        return f"the limit is {variable}={getattr(self, name)}; set that environment variable higher to allow more"


LIMIT_VARIABLES: dict[str, str] = {
    "file_bytes": "TOPK_MAX_FILE_BYTES",
    "cases": "TOPK_MAX_CASES",
    "nodes": "TOPK_MAX_NODES",
    "elements": "TOPK_MAX_ELEMENTS",
    "depth": "TOPK_MAX_DEPTH",
    "aliases": "TOPK_MAX_ALIASES",
    "alias_nodes": "TOPK_MAX_ALIAS_NODES",
    "error_chars": "TOPK_MAX_ERROR_CHARS",
}


class LimitsError(ValueError):
    """An environment variable of LIMIT_VARIABLES that is not a whole number >= 1."""


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _clip(text: str, most: int) -> str:
    """`text`, cut to about `most` characters with a note of how much was cut."""
    if len(text) <= most:
        return text
    keep = max(most - 40, 10)
    return f"{text[:keep]}… ({len(text) - keep} more characters cut)"


def _error(file: str, case: str | None, field: str, message: str, limits: Limits) -> CaseError:
    """A CaseError whose line stays within limits.error_chars (short of a very long path):
    the case id and field cut to a quarter of it each, the message to what is left."""
    most = limits.error_chars
    if case is not None:
        case = _clip(case, max(most // 4, 20))
    field = _clip(field, max(most // 4, 20))
    room = most - len(str(CaseError(file, case, field, "")))
    return CaseError(file, case, field, _clip(message, max(room, 60)))


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


class _Refused(yaml.YAMLError):
    """A file beyond a limit that must stop its loading at once (depth, aliases)."""


class _Problem:
    """Where the YAML loader refused a node (an alias inside a tensor, or one that refers to
    a node containing it), it leaves one of these in the document, so that the error names the
    case and field it is in."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message

    def __repr__(self) -> str:
        return "<refused>"


_PROBLEM_TAG = "tag:topk-conformance.invalid,2025:refused"
_TENSOR_KEYS = frozenset({"data", "values", "indices"})


def _at(mark: Any) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else "somewhere"


class _Composer(Composer):
    """Mixed into a loader with a parser (check_event, peek_event, get_event) and a resolver.

    Besides keeping plain scalar sequences raw, it bounds what the file may cost (`Limits`):
    nesting deeper than limits.depth stops the file at once (before Python's recursion limit,
    and before libyaml spends time quadratic in the depth on the rest); every alias use
    counts, and so does every node it stands for, expanded, so that a "billion laughs" stops
    at once; and an alias inside `data`, `values` or `indices`, or one that refers to a node
    that contains it, is left as a _Problem (the case's error) instead of sharing a node."""

    def __init__(self) -> None:
        Composer.__init__(self)
        self.limits = Limits()
        self.problems = 0  # _Problem nodes made
        self._depth = 0  # collections open around the node being composed
        self._in_tensor = False  # inside the value of a `data`, `values` or `indices` key
        self._alias_uses = 0
        self._alias_nodes = 0
        self._nodes = 0  # nodes composed so far, aliases counted expanded
        self._made = 0  # nodes made one by one (limits.nodes)
        self._sizes: dict[Any, int] = {}  # per finished anchor, the nodes it stands for

    def compose_node(self, parent: Any, index: Any) -> Any:
        this: Any = self  # the loader this is mixed into
        event = this.peek_event()
        kind = type(event)
        if kind is AliasEvent:
            return self._alias(parent, index)
        anchor = event.anchor
        if anchor is not None and anchor in self.anchors:
            raise ComposerError(f"found duplicate anchor {anchor!r}; first occurrence", self.anchors[anchor].start_mark,
                                "second occurrence", event.start_mark)
        before = self._nodes
        self._nodes += 1
        self._made += 1
        if self._made > self.limits.nodes:
            self._made_more(0, event)
        this.descend_resolver(parent, index)
        if kind is ScalarEvent:
            node = this.compose_scalar_node(anchor)
        elif self._depth >= self.limits.depth:
            # At once: libyaml takes time quadratic in the depth to parse the rest of it.
            raise _Refused(f"YAML nested deeper than {self.limits.depth} levels at {_at(event.start_mark)}; "
                           f"{self.limits.note('depth')}")
        else:
            outer = self._in_tensor
            self._depth += 1
            self._in_tensor = outer or self._tensor_key(parent, index)
            if kind is SequenceStartEvent:
                node = this.compose_sequence_node(anchor)
            else:
                node = this.compose_mapping_node(anchor)
            self._depth -= 1
            self._in_tensor = outer
        this.ascend_resolver()
        if anchor is not None:
            self._sizes[anchor] = self._nodes - before
        return node

    @staticmethod
    def _tensor_key(parent: Any, index: Any) -> bool:
        """Whether the node composed is the value of a `data`, `values` or `indices` key."""
        return isinstance(parent, MappingNode) and isinstance(index, ScalarNode) and index.value in _TENSOR_KEYS

    def _alias(self, parent: Any, index: Any) -> Any:
        this: Any = self
        limits = self.limits
        event = this.get_event()
        anchor = event.anchor
        if anchor not in self.anchors:
            raise ComposerError(None, None, f"found undefined alias {anchor!r}", event.start_mark)
        self._alias_uses += 1
        if self._alias_uses > limits.aliases:
            raise _Refused(f"more than {limits.aliases} YAML aliases (the last at {_at(event.start_mark)}); "
                           f"{limits.note('aliases')}")
        tensor = self._in_tensor or self._tensor_key(parent, index)
        size = self._sizes.get(anchor)
        if tensor or size is None:
            why = ("data, values and indices take no YAML aliases; write the values out or use a generator"
                   if tensor else "it refers to a node that contains it")
            return self._problem(f"the alias *{anchor} at {_at(event.start_mark)}: {why}", event)
        self._alias_nodes += size
        if self._alias_nodes > limits.alias_nodes:
            raise _Refused(f"the YAML aliases up to *{anchor} at {_at(event.start_mark)} stand for "
                           f"{self._alias_nodes} nodes, more than {limits.alias_nodes}; {limits.note('alias_nodes')}")
        self._nodes += size
        return self.anchors[anchor]

    def _made_more(self, count: int, event: Any) -> None:
        """Counts nodes made one by one, which cost about 10 us each (a list of plain
        numbers costs about a tenth of that per number, and is bounded by the file's size)."""
        self._made += count
        if self._made > self.limits.nodes:
            raise _Refused(f"more than {self.limits.nodes} YAML nodes (mappings, lists, strings, and numbers outside "
                           f"plain lists of numbers), the last at {_at(event.start_mark)}; {self.limits.note('nodes')}")

    def _problem(self, message: str, event: Any) -> ScalarNode:
        self.problems += 1
        self._nodes += 1
        return ScalarNode(_PROBLEM_TAG, message, event.start_mark, event.end_mark)

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
        self._nodes += len(texts)
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
            self._made_more(len(texts), start)
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
    """Besides converting plain scalar sequences in bulk: records every mapping that gives a
    key twice (`repeated`, by the dict's id), which the loader reports naming the key instead
    of keeping the last value; and turns the composer's refused nodes into _Problem objects."""

    def __init__(self) -> None:
        SafeConstructor.__init__(self)
        self.repeated: dict[int, tuple[dict[Any, Any], list[tuple[Any, str]]]] = {}

    def construct_yaml_map(self, node: MappingNode) -> Any:
        data: dict[Any, Any] = {}
        yield data
        repeated = self._repeated_keys(node)
        data.update(self.construct_mapping(node))
        if repeated:
            self.repeated[id(data)] = (data, repeated)

    def _repeated_keys(self, node: MappingNode) -> list[tuple[Any, str]]:
        """The keys this mapping itself gives more than once (a merge key's values may be
        overridden: those are not counted)."""
        seen: dict[Any, Any] = {}
        repeated: list[tuple[Any, str]] = []
        for key_node, _ in node.value:
            if not isinstance(key_node, ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node)
            try:
                first = seen.setdefault(key, key_node)
            except TypeError:  # unhashable: construct_mapping says so
                continue
            if first is not key_node:
                earlier = self.construct_object(first)
                what = (f"the key {key!r} is given twice" if repr(earlier) == repr(key)
                        else f"the keys {earlier!r} and {key!r} are one key")
                repeated.append((key, f"{what} in one mapping ({_at(first.start_mark)} and "
                                      f"{_at(key_node.start_mark)}); a key may appear once, not last-wins"))
        return repeated

    def construct_problem(self, node: ScalarNode) -> _Problem:
        return _Problem(str(node.value))

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
        made: Any = self  # the loader, a _Composer too
        for index, text in enumerate(texts):
            if index in node.quoted:
                items.append(text)
            elif _INT.fullmatch(text):
                items.append(int(text))
            elif _FLOAT.fullmatch(text):
                items.append(float(text))
            else:
                made._made_more(1, node)
                tag = self.resolve(ScalarNode, text, (True, False))  # type: ignore[attr-defined]
                items.append(self.construct_object(ScalarNode(tag, text, node.start_mark, node.end_mark)))
        return items


_Constructor.add_constructor("tag:yaml.org,2002:seq", _Constructor.construct_yaml_seq)  # type: ignore[type-var]
_Constructor.add_constructor("tag:yaml.org,2002:int", _Constructor.construct_yaml_int)  # type: ignore[type-var]
_Constructor.add_constructor("tag:yaml.org,2002:map", _Constructor.construct_yaml_map)  # type: ignore[type-var]
_Constructor.add_constructor(_PROBLEM_TAG, _Constructor.construct_problem)  # type: ignore[type-var]


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


@dataclass
class _Parsed:
    document: Any
    # id(dict) -> (the dict, [(key, message)]): mappings that give a key twice
    repeated: dict[int, tuple[dict[Any, Any], list[tuple[Any, str]]]]
    problems: int  # _Problem objects left in the document

    @property
    def suspect(self) -> bool:
        return bool(self.repeated or self.problems)


def _parse(text: str, loader: type | None = None, limits: Limits | None = None) -> _Parsed:
    instance = (loader or YAML_LOADER)(text)
    instance.limits = limits or Limits()
    try:
        document = instance.get_single_data()
        return _Parsed(document, instance.repeated, instance.problems)
    finally:
        instance.dispose()


def read_yaml(text: str, loader: type | None = None, limits: Limits | None = None) -> Any:
    """One YAML document, safely: the loader case files are read with. Repeated keys and
    refused nodes are left for load_file to report."""
    return _parse(text, loader, limits).document


@cache
def case_schema() -> dict[str, Any]:
    text = resources.files("conformance.cases").joinpath("schema/case.schema.json").read_text()
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
        text = _read_text(path, limits)
    except _Bad as bad:
        return file_error(bad.message)
    except UnicodeDecodeError as exc:
        return file_error(f"not UTF-8 text ({exc.reason} at byte {exc.start}); case files are UTF-8")
    except OSError as exc:
        return file_error(f"cannot read: {exc.strerror or exc}")
    try:
        parsed = _parse(text, limits=limits)
    except _Refused as exc:
        return file_error(str(exc))
    except (yaml.YAMLError, ValueError) as exc:  # ValueError: a date like 2001-13-45
        return file_error(f"not valid YAML: {_yaml_message(exc)}")
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


def _read_text(path: Path, limits: Limits) -> str:
    """The file's text, refusing what is not a regular file (a FIFO would block, a device
    never end) or is larger than limits.file_bytes, before reading it."""
    info = path.stat()
    if stat.S_ISDIR(info.st_mode):
        raise _Bad("", "cannot read: it is a folder")
    if not stat.S_ISREG(info.st_mode):
        raise _Bad("", "cannot read: not a regular file")
    most = limits.file_bytes
    if info.st_size > most:
        raise _Bad("", f"the file is {info.st_size} bytes, more than {most}; {limits.note('file_bytes')}")
    with path.open("rb") as stream:
        data = stream.read(most + 1)
    if len(data) > most:
        raise _Bad("", f"the file is more than {most} bytes; {limits.note('file_bytes')}")
    return data.decode("utf-8")


def _yaml_message(exc: Exception) -> str:
    text = " ".join(str(exc).split()).replace(' in "<unicode string>",', ",")
    if "integer string conversion" in text:  # Python reads no int of more than 4300 digits
        return "an integer of more than 4300 digits"
    return text


def _file_structure(document: Any) -> str:
    """What is wrong with the file's top level, or ""."""
    if document is None:
        return "the file holds no YAML document; a case file is a mapping with a list 'cases'"
    if not isinstance(document, dict):
        return f"the file is a {_kind(document)}, not a mapping with a list 'cases'"
    if "cases" not in document:
        return "no 'cases': a case file is a mapping with a list 'cases'"
    cases = document["cases"]
    if isinstance(cases, _Problem):
        return cases.message
    if not isinstance(cases, list):
        return f"'cases' is a {_kind(cases)}; the file must be a mapping with a list 'cases'"
    return ""


def _kind(value: Any) -> str:
    names = {dict: "mapping", list: "list", str: "string", bool: "boolean", int: "number", float: "number",
             type(None): "null (nothing)"}
    return names.get(type(value), "number" if isinstance(value, int) else type(value).__name__)


def _find_problem(value: Any, where: str, parsed: _Parsed) -> tuple[str, str] | None:
    """The first repeated key or refused node in `value`, as (field, message)."""
    if type(value) is _Problem:
        return where, value.message
    if isinstance(value, dict):
        repeated = parsed.repeated.get(id(value))
        if repeated is not None:
            key, message = repeated[1][0]
            return _join(where, str(key)), message
        for key, item in value.items():
            found = _find_problem(item, _join(where, str(key)), parsed)
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if type(item) in (int, float, str):
                continue
            found = _find_problem(item, f"{where}[{index}]", parsed)
            if found is not None:
                return found
    return None


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


def _build_case(raw: Any, path: Path, limits: Limits, parsed: _Parsed) -> Case:
    if parsed.suspect:
        found = _find_problem(raw, "", parsed)
        if found is not None:
            raise _Bad(*found)
    if not isinstance(raw, dict):
        raise _Bad("case", f"a case is a mapping (id, source, input, axis, k, ...), not a {_kind(raw)}")
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
    if error.validator in ("minimum", "maximum") and where in ("k", "axis"):
        raise _Bad(where, f"{error.instance} is outside int64 ({_INT64_MIN}..{_INT64_MAX}); "
                   f"{'K' if where == 'k' else 'the axis'} is an int64 in every graph")
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
