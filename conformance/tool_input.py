"""Files the tools read besides case files (baselines, results files, fuzz databases): read
within limits, checked against a JSON Schema in `conformance/schemas/`, and refused with one
InputError naming the file, the field and what is wrong (the command exits 2). Limits are
read from the environment as the case loader's are (docs/broken-input.md)."""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Iterable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema.exceptions import best_match

from conformance.safe_yaml import clip

# name -> (environment variable, default)
TOOL_LIMITS: dict[str, tuple[str, int]] = {
    "results_bytes": ("TOPK_MAX_RESULTS_BYTES", 512 * 1024 * 1024),
    "baseline_bytes": ("TOPK_MAX_BASELINE_BYTES", 64 * 1024 * 1024),
    "baseline_nodes": ("TOPK_MAX_BASELINE_NODES", 1_000_000),
    "fuzz_entry_bytes": ("TOPK_MAX_FUZZ_ENTRY_BYTES", 16 * 1024 * 1024),
}
MESSAGE_CHARS = 300  # of a schema message, which quotes the value it refused


class InputError(ValueError):
    """A file a tool cannot use: `str()` is "file: field: message" (no field where the
    file as a whole is refused)."""

    def __init__(self, file: Path | str, field: str, message: str) -> None:
        self.file, self.field, self.message = str(file), field, message
        super().__init__(f"{self.file}: {field}: {message}" if field else f"{self.file}: {message}")


def limit(name: str) -> int:
    """A limit of TOOL_LIMITS, from its environment variable where set."""
    variable, default = TOOL_LIMITS[name]
    text = os.environ.get(variable, "").strip()
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise InputError(variable, "", f"{text!r} is not a whole number of at least 1")
    return value


def limit_note(name: str) -> str:
    variable, _ = TOOL_LIMITS[name]
    return f"the limit is {variable}={limit(name)}; set that environment variable higher to allow more"


def read_bytes(path: Path, limit_name: str) -> bytes:
    """The file's bytes: a regular file (a FIFO would block, a device never end), no larger
    than its limit, checked before reading it."""
    try:
        info = path.stat()
    except OSError as exc:
        raise InputError(path, "", f"cannot read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(path, "", "cannot read: it is a folder")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(path, "", "cannot read: not a regular file")
    most = limit(limit_name)
    if info.st_size > most:
        raise InputError(path, "", f"the file is {info.st_size} bytes, more than {most}; {limit_note(limit_name)}")
    try:
        with path.open("rb") as stream:
            data = stream.read(most + 1)
    except OSError as exc:
        raise InputError(path, "", f"cannot read: {exc.strerror or exc}") from None
    if len(data) > most:
        raise InputError(path, "", f"the file is more than {most} bytes; {limit_note(limit_name)}")
    return data


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


def _integer(checker: Any, instance: Any) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


def _number(checker: Any, instance: Any) -> bool:
    # NaN and infinities pass JSON Schema's "number" (and "minimum": NaN < 0 is false).
    return _integer(checker, instance) or (isinstance(instance, float) and math.isfinite(instance))


@cache
def validator(schema_name: str) -> jsonschema.protocols.Validator:
    """The schema `conformance/schemas/<schema_name>`: integers are ints (not 2.0, not
    true), numbers finite."""
    text = resources.files("conformance").joinpath(f"schemas/{schema_name}").read_text(encoding="utf-8")
    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine_many({"integer": _integer, "number": _number})
    strict = jsonschema.validators.extend(base, type_checker=checker)  # type: ignore[no-untyped-call]
    made: jsonschema.protocols.Validator = strict(json.loads(text))
    return made


def field_path(parts: Iterable[Any]) -> str:
    """["results", 3, "verdict"] as results[3].verdict."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def check(path: Path, document: Any, schema_name: str, prefix: Iterable[Any] = ()) -> None:
    """Raises InputError naming the field of the first problem the schema finds."""
    error = best_match(validator(schema_name).iter_errors(document))
    if error is None:
        return
    where = field_path([*prefix, *error.absolute_path]) or "the top level"
    raise InputError(path, where, clip(error.message, MESSAGE_CHARS))
