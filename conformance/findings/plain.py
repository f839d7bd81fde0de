"""What a reader outside the suite could not follow in a report, and how long a repro is.

A report goes to a runtime's tracker, whose maintainers never saw the suite: its case ids, the
names of its backends, rules and outcomes, and the ids of its other findings mean nothing there.
`suite_words` lists those it finds in a text; a test runs it over every finding's report. The
repros are meant to be read in the issue itself, so `working_lines` counts what a reader must
read in one (not its docstring, comments or blank lines)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from conformance.findings.records import ID_PATTERN
from conformance.ops.registry import OPERATORS

WORKING_LINES = 40  # the most a repro.py's working part may take
_RULES = sorted({rule for operator in OPERATORS.values() for rule in operator.rules})
# A rule or outcome name is an ordinary word ("order", "error"), so only its marked-up use counts;
# the hyphenated ones and `divergent` read as the suite's own anywhere.
_MARKED = re.compile(r"`(" + "|".join(map(re.escape, [*_RULES, "pass", "fail", "divergent", "crash", "timeout"]))
                     + r")`")
_PHRASES = re.compile(r"\b(divergent|tie-order|nan-order|index-range|index-unique|dialects?|baselines?|its section"
                      r"|cases/[\w/.-]*)\b|\(W\d+\)", re.IGNORECASE)
_CASE_ID = re.compile(r"^\s*-?\s*id:\s*['\"]?([A-Za-z0-9_.+-]+)", re.MULTILINE)


@dataclass(frozen=True)
class Vocabulary:
    """The suite's own names: every case id under cases/ and every backend name."""

    case_ids: frozenset[str]
    backends: frozenset[str]

    @classmethod
    def of(cls, cases: Path, backends: Iterable[str]) -> Vocabulary:
        ids = {match for path in sorted(cases.rglob("*.yaml"))
               for match in _CASE_ID.findall(path.read_text(encoding="utf-8", errors="replace"))}
        return cls(frozenset(ids), frozenset(backends))

    def suite_words(self, text: str) -> list[str]:
        """Each of the suite's words the text uses, once, in the order they first appear."""
        found: dict[str, None] = {}
        for match in _MARKED.finditer(text):
            found.setdefault(f"rule or outcome {match[0]}", None)
        for match in _PHRASES.finditer(text):
            found.setdefault(f"suite word '{match[0]}'", None)
        for match in ID_PATTERN.finditer(text):
            found.setdefault(f"finding id {match[0]}", None)
        for token in set(re.findall(r"[A-Za-z0-9_.+-]+", text)):
            token = token.strip(".")
            if token in self.case_ids and "-" in token:
                found.setdefault(f"case id {token}", None)
            elif token in self.backends and "-" in token:  # not "tract", the runtime's own name
                found.setdefault(f"backend name {token}", None)
        return list(found)


def working_lines(source: str) -> int:
    """A Python file's lines less its docstrings, comments and blank lines."""
    tree = ast.parse(source)
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                skipped.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return sum(1 for number, line in enumerate(source.splitlines(), start=1)
               if line.strip() and not line.strip().startswith("#") and number not in skipped)
