"""Safe YAML with limits: what reading one file may cost is bounded (`Limits`: its size,
nesting depth, alias uses and what they expand to, nodes made one by one), every limit
named with the environment variable that raises it (TOPK_MAX_FILE_BYTES, ...;
docs/broken-input.md). Case files, baselines and every other YAML file the tools read go
through `read_text` and `parse`; a mapping that gives a key twice is recorded (`Parsed.repeated`)
for the caller to report, never last-wins."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from yaml.composer import Composer, ComposerError
from yaml.constructor import SafeConstructor
from yaml.events import AliasEvent, ScalarEvent, SequenceEndEvent, SequenceStartEvent
from yaml.nodes import MappingNode, ScalarNode, SequenceNode
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import Resolver
from yaml.scanner import Scanner

from conformance.core.dtypes import HexInt


class FileRefused(Exception):
    """A file not read at all: not a regular file, or larger than its limit."""


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
    # Characters of one string (a case's text is shown on every row of the report, twice:
    # the longest source of the shipped corpus has 783), and of the strings the aliases
    # stand for, expanded, in all (an alias repeats a string at no cost in the file).
    text_chars: int = 10_000
    alias_chars: int = 1_000_000
    error_chars: int = 1_000  # characters of one error line; longer messages are cut

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Limits:
        values: dict[str, int] = {}
        for name, variable in LIMIT_VARIABLES.items():
            value = limit_from_environment(variable, environ)
            if value is not None:
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
    "text_chars": "TOPK_MAX_TEXT_CHARS",
    "alias_chars": "TOPK_MAX_ALIAS_CHARS",
    "error_chars": "TOPK_MAX_ERROR_CHARS",
}


class LimitsError(ValueError):
    """An environment variable of LIMIT_VARIABLES that is not a whole number >= 1."""


def limit_from_environment(variable: str, environ: Mapping[str, str] | None = None) -> int | None:
    """A limit's environment variable: None where unset or blank; LimitsError where it is
    not a whole number of at least 1 (never a silent default)."""
    text = (os.environ if environ is None else environ).get(variable)
    if text is None or not text.strip():
        return None
    try:
        value = int(text.strip())
    except ValueError:
        value = 0
    if value < 1:
        raise LimitsError(f"{variable}={text!r} is not a whole number of at least 1")
    return value


def clip(text: str, most: int) -> str:
    """`text`, cut to about `most` characters with a note of how much was cut."""
    if len(text) <= most:
        return text
    keep = max(most - 40, 10)
    return f"{text[:keep]}… ({len(text) - keep} more characters cut)"


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
# A line of the items joined by newlines that is not one such number. A search for one
# (not a fullmatch of a repeated group, whose backtracking stack costs about 200 bytes an
# item: 75 times the file's size for a list of one-digit numbers) takes no memory of its own.
_NOT_AN_INT_LINE = re.compile(f"^(?!{_DECIMAL_INT}$)", re.MULTILINE)
_NOT_A_FLOAT_LINE = re.compile(f"^(?!{_DECIMAL_FLOAT}$)", re.MULTILINE)


class _Resolver(Resolver):
    pass


_Resolver.add_implicit_resolver("tag:yaml.org,2002:float", _EXPONENT_FLOAT, list("-+0123456789."))


_NOTHING_QUOTED: frozenset[int] = frozenset()


class _PlainSequenceNode(SequenceNode):
    """A sequence whose items are all untagged, unanchored scalars, kept as their text. Its
    item nodes are made only if something asks for them (a merge key's value, say)."""

    _nodes: list[Any] | None

    def __init__(self, tag: str, texts: list[str], quoted: AbstractSet[int], start_mark: Any, end_mark: Any,
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


class Refused(yaml.YAMLError):
    """A file beyond a limit that must stop its loading at once (depth, aliases)."""


class Problem:
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
    and before libyaml spends time quadratic in the depth on the rest), and so do more alias
    uses than limits.aliases. Where a node would cost more than its limit it is left as a
    Problem (the error of the case and field it is in; the other cases load): a string longer
    than limits.text_chars; an alias whose expansion would take the nodes or characters the
    aliases stand for, in all, beyond limits.alias_nodes or limits.alias_chars (so that a
    "billion laughs", or one long string aliased as the source of a thousand cases, costs
    nothing); an alias inside `data`, `values` or `indices`, or one that refers to a node that
    contains it."""

    def __init__(self) -> None:
        Composer.__init__(self)
        self.limits = Limits()
        self.nodes_note = ""  # how a caller with its own node limit names it (else TOPK_MAX_NODES)
        self.problems = 0  # Problem nodes made
        self._depth = 0  # collections open around the node being composed
        self._in_tensor = False  # inside the value of a `data`, `values` or `indices` key
        self._alias_uses = 0
        self._alias_nodes = 0
        self._alias_chars = 0
        self._nodes = 0  # nodes composed so far, aliases counted expanded
        self._chars = 0  # characters of the strings composed so far, aliases counted expanded
        self._made = 0  # nodes made one by one (limits.nodes)
        self._sizes: dict[Any, tuple[int, int]] = {}  # per finished anchor, the nodes and characters it stands for

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
        before, before_chars = self._nodes, self._chars
        self._nodes += 1
        self._made += 1
        if self._made > self.limits.nodes:
            self._made_more(0, event)
        this.descend_resolver(parent, index)
        if kind is ScalarEvent:
            node = this.compose_scalar_node(anchor)
            node = self._long_string(node, anchor) if len(node.value) > self.limits.text_chars else node
            self._chars += len(node.value)
        elif self._depth >= self.limits.depth:
            # At once: libyaml takes time quadratic in the depth to parse the rest of it.
            raise Refused(f"YAML nested deeper than {self.limits.depth} levels at {_at(event.start_mark)}; "
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
            self._sizes[anchor] = (self._nodes - before, self._chars - before_chars)
        return node

    def _long_string(self, node: ScalarNode, anchor: Any) -> ScalarNode:
        """A Problem in place of a string longer than limits.text_chars (its aliases too)."""
        self._nodes -= 1  # _problem counts it
        problem = self._problem(f"a string of {len(node.value)} characters at {_at(node.start_mark)}, more than "
                                f"the {self.limits.text_chars} one string may have; {self.limits.note('text_chars')}",
                                node)
        if anchor is not None:
            self.anchors[anchor] = problem
        return problem

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
            raise Refused(f"more than {limits.aliases} YAML aliases (the last at {_at(event.start_mark)}); "
                           f"{limits.note('aliases')}")
        tensor = self._in_tensor or self._tensor_key(parent, index)
        size = self._sizes.get(anchor)
        if tensor or size is None:
            why = ("data, values and indices take no YAML aliases; write the values out or use a generator"
                   if tensor else "it refers to a node that contains it")
            return self._problem(f"the alias *{anchor} at {_at(event.start_mark)}: {why}", event)
        nodes, chars = size
        if self._alias_nodes + nodes > limits.alias_nodes:
            return self._problem(f"the alias *{anchor} at {_at(event.start_mark)}: the YAML aliases up to it stand "
                                 f"for {self._alias_nodes + nodes} nodes, more than {limits.alias_nodes}; "
                                 f"{limits.note('alias_nodes')}", event)
        if self._alias_chars + chars > limits.alias_chars:
            return self._problem(f"the alias *{anchor} at {_at(event.start_mark)}: the YAML aliases up to it stand "
                                 f"for {self._alias_chars + chars} characters of strings and numbers, more than "
                                 f"{limits.alias_chars}; {limits.note('alias_chars')}", event)
        self._alias_nodes += nodes
        self._alias_chars += chars
        self._nodes += nodes
        self._chars += chars
        return self.anchors[anchor]

    def _made_more(self, count: int, event: Any) -> None:
        """Counts nodes made one by one, which cost about 10 us each (a list of plain
        numbers costs about a tenth of that per number, and is bounded by the file's size)."""
        self._made += count
        if self._made > self.limits.nodes:
            raise Refused(f"more than {self.limits.nodes} YAML nodes (mappings, lists, strings, and numbers outside "
                           f"plain lists of numbers), the last at {_at(event.start_mark)}; "
                           f"{self.nodes_note or self.limits.note('nodes')}")

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
        most = self.limits.text_chars
        while type(event) is ScalarEvent and event.anchor is None and event.tag is None and len(event.value) <= most:
            get()
            if not event.implicit[0]:
                quoted.add(len(texts))
            texts.append(event.value)
            event = peek()
        self._nodes += len(texts)
        self._chars += sum(map(len, texts))
        node: SequenceNode
        if type(event) is SequenceEndEvent:
            # Most lists quote nothing: one shared empty set, not 216 bytes a list (a row of `data`).
            node = _PlainSequenceNode(tag, texts, quoted or _NOTHING_QUOTED, start.start_mark, None, start.flow_style)
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
    of keeping the last value; and turns the composer's refused nodes into Problem objects."""

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

    def construct_problem(self, node: ScalarNode) -> Problem:
        return Problem(str(node.value))

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
            if _NOT_AN_INT_LINE.search(joined) is None:
                return list(map(int, texts))
            if _NOT_A_FLOAT_LINE.search(joined) is None:
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


class PurePythonLoader(Reader, Scanner, Parser, _Composer, _Constructor, _Resolver):
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
    YAML_LOADER = PurePythonLoader


@dataclass
class Parsed:
    document: Any
    # id(dict) -> (the dict, [(key, message)]): mappings that give a key twice
    repeated: dict[int, tuple[dict[Any, Any], list[tuple[Any, str]]]]
    problems: int  # Problem objects left in the document

    @property
    def suspect(self) -> bool:
        return bool(self.repeated or self.problems)


def parse(text: str, loader: type | None = None, limits: Limits | None = None, nodes_note: str = "") -> Parsed:
    instance = (loader or YAML_LOADER)(text)
    instance.limits = limits or Limits()
    instance.nodes_note = nodes_note
    try:
        document = instance.get_single_data()
        return Parsed(document, instance.repeated, instance.problems)
    finally:
        instance.dispose()


def read_yaml(text: str, loader: type | None = None, limits: Limits | None = None) -> Any:
    """One YAML document, safely: the loader case files are read with. Repeated keys and
    refused nodes are left for load_file to report."""
    return parse(text, loader, limits).document


def read_bytes(path: Path, most: int, note: str) -> bytes:
    """The file's bytes, refusing what is not a regular file (a FIFO would block, a device
    never end) or is larger than `most` (`note`: how the limit is named and raised), before
    reading it. OSError where it cannot be read."""
    info = path.stat()
    if stat.S_ISDIR(info.st_mode):
        raise FileRefused("cannot read: it is a folder")
    if not stat.S_ISREG(info.st_mode):
        raise FileRefused("cannot read: not a regular file")
    if info.st_size > most:
        raise FileRefused(f"the file is {info.st_size} bytes, more than {most}; {note}")
    with path.open("rb") as stream:
        data = stream.read(most + 1)
    if len(data) > most:
        raise FileRefused(f"the file is more than {most} bytes; {note}")
    return data


def read_text(path: Path, limits: Limits) -> str:
    """A case file's text (read_bytes within limits.file_bytes), UTF-8."""
    return read_bytes(path, limits.file_bytes, limits.note("file_bytes")).decode("utf-8")


def join_field(parent: str, child: str) -> str:
    return f"{parent}.{child}" if parent else child


def find_problem(value: Any, where: str, parsed: Parsed) -> tuple[str, str] | None:
    """The first repeated key or refused node in `value`, as (field, message)."""
    if type(value) is Problem:
        return where, value.message
    if isinstance(value, dict):
        repeated = parsed.repeated.get(id(value))
        if repeated is not None:
            key, message = repeated[1][0]
            return join_field(where, str(key)), message
        for key, item in value.items():
            found = find_problem(item, join_field(where, str(key)), parsed)
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if type(item) in (int, float, str):
                continue
            found = find_problem(item, f"{where}[{index}]", parsed)
            if found is not None:
                return found
    return None


def yaml_message(exc: Exception) -> str:
    text = " ".join(str(exc).split()).replace(' in "<unicode string>",', ",")
    if "integer string conversion" in text:  # Python reads no int of more than 4300 digits
        return "an integer of more than 4300 digits"
    return text

