"""Files the tools read besides case files (baselines, results files, fuzz databases): read
within limits, checked against a JSON Schema in `conformance/schemas/`, and refused with one
InputError naming the file, the field and what is wrong (the command exits 2). Limits are
read from the environment as the case loader's are (docs/broken-input.md)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema.exceptions import best_match

from conformance.core import safe_yaml
from conformance.core.safe_yaml import LimitsError, clip, limit_from_environment

# name -> (environment variable, default)
TOOL_LIMITS: dict[str, tuple[str, int]] = {
    "results_bytes": ("TOPK_MAX_RESULTS_BYTES", 512 * 1024 * 1024),
    "baseline_bytes": ("TOPK_MAX_BASELINE_BYTES", 64 * 1024 * 1024),
    "baseline_nodes": ("TOPK_MAX_BASELINE_NODES", 1_000_000),
    "fuzz_entry_bytes": ("TOPK_MAX_FUZZ_ENTRY_BYTES", 16 * 1024 * 1024),
}
MESSAGE_CHARS = 300  # of a schema message, which quotes the value it refused
# Collections nested in one another, as the case loader's YAML allows (TOPK_MAX_DEPTH's
# default). The suite writes results files 4 deep, and each merge of merged files adds 2.
# Deeper, jsonschema's validator (a few frames a level; an environment inside
# environment.merged takes 200 levels to exhaust them) and dataclasses.asdict end in a
# RecursionError.
MOST_DEPTH = 64


class InputError(ValueError):
    """A file a tool cannot use: `str()` is "file: field: message" (no field where the
    file as a whole is refused)."""

    def __init__(self, file: Path | str, field: str, message: str) -> None:
        self.file, self.field, self.message = str(file), field, message
        super().__init__(f"{self.file}: {field}: {message}" if field else f"{self.file}: {message}")


def limit(name: str) -> int:
    """A limit of TOOL_LIMITS, from its environment variable where set."""
    variable, default = TOOL_LIMITS[name]
    try:
        value = limit_from_environment(variable)
    except LimitsError as exc:
        raise InputError(variable, "", str(exc)) from None
    return default if value is None else value


def limit_note(name: str) -> str:
    variable, _ = TOOL_LIMITS[name]
    return f"the limit is {variable}={limit(name)}; set that environment variable higher to allow more"


def read_bytes(path: Path, limit_name: str) -> bytes:
    """The file's bytes: a regular file (a FIFO would block, a device never end), no larger
    than its limit, checked before reading it."""
    try:
        return safe_yaml.read_bytes(path, limit(limit_name), limit_note(limit_name))
    except safe_yaml.FileRefused as exc:
        raise InputError(path, "", str(exc)) from None
    except OSError as exc:
        raise InputError(path, "", f"cannot read: {exc.strerror or exc}") from None


def read_text(path: Path, limit_name: str) -> str:
    data = read_bytes(path, limit_name)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, "", f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _not_json_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_json(path: Path, text: str, where: str = "") -> Any:
    """One JSON document: NaN and Infinity (Python's extension) refused, nesting bounded by
    Python's recursion limit (an error, not a crash)."""
    try:
        return json.loads(text, parse_constant=_not_json_constant)
    except RecursionError:
        raise InputError(path, where, "not JSON this tool reads: nested too deep") from None
    except ValueError as exc:  # JSONDecodeError, an integer of more than 4300 digits, NaN
        raise InputError(path, where, f"not JSON: {clip(' '.join(str(exc).split()), MESSAGE_CHARS)}") from None


def strict_integer(checker: Any, instance: Any) -> bool:
    # JSON Schema counts 2.0 (and true) as an integer; YAML's 2.0 is a float, which would
    # crash as a shape, axis or K. Only true ints are integers here.
    return isinstance(instance, int) and not isinstance(instance, bool)


def _number(checker: Any, instance: Any) -> bool:
    # NaN and infinities pass JSON Schema's "number" (and "minimum": NaN < 0 is false).
    return strict_integer(checker, instance) or (isinstance(instance, float) and math.isfinite(instance))


@cache
def validator(schema_name: str) -> jsonschema.protocols.Validator:
    """The schema `conformance/schemas/<schema_name>`: integers are ints (not 2.0, not
    true), numbers finite."""
    text = resources.files("conformance").joinpath(f"schemas/{schema_name}").read_text(encoding="utf-8")
    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine_many({"integer": strict_integer, "number": _number})
    strict = jsonschema.validators.extend(base, type_checker=checker)  # type: ignore[no-untyped-call]
    made: jsonschema.protocols.Validator = strict(json.loads(text))
    return made


def field_path(parts: Iterable[Any]) -> str:
    """["results", 3, "verdict"] as results[3].verdict."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def nested_too_deep(document: Any, most: int = MOST_DEPTH) -> list[Any] | None:
    """The path to the first collection nested deeper than `most` collections, or None. A
    walk with a stack of its own: it never recurses, however deep the document."""
    # (collection, its depth, its path as a chain of (parent chain, key) pairs)
    stack: list[tuple[Any, int, Any]] = [(document, 1, None)]
    while stack:
        value, depth, chain = stack.pop()
        if depth > most:
            path: list[Any] = []
            while chain is not None:
                chain, key = chain
                path.append(key)
            return path[::-1]
        items = value.items() if isinstance(value, dict) else enumerate(value)
        stack.extend((item, depth + 1, (chain, key)) for key, item in reversed(list(items))
                     if isinstance(item, (dict, list)))
    return None


def check(path: Path, document: Any, schema_name: str, prefix: Iterable[Any] = ()) -> None:
    """Raises InputError naming the field of the first problem the schema finds, or the
    field nested too deep (before validating: the validator would recurse past Python's
    limit)."""
    if isinstance(document, (dict, list)):
        deep = nested_too_deep(document)
        if deep is not None:
            # The field it goes deep in (the whole path would be as long as the nesting).
            where = field_path([*prefix, *deep][:4]) + ("…" if len(deep) > 4 else "")
            raise InputError(path, where, f"nested more than {MOST_DEPTH} levels deep (lists and objects in one "
                             "another, counted from the top of the file); a file of this kind is a few levels deep")
    error = best_match(validator(schema_name).iter_errors(document))
    if error is None:
        return
    where = field_path([*prefix, *error.absolute_path]) or "the top level"
    raise InputError(path, where, clip(error.message, MESSAGE_CHARS))
