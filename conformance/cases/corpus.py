"""Where the cases are when nobody names them, and `topk-conformance cases`.

The repository's `cases/` is the single source of the corpus. A wheel carries a copy of it
as `conformance/corpus/`, made at build time by the `build_py` hook in `setup.py`; a
checkout (or an editable install of one) reads `cases/` beside the package instead.

The default case root, for `topk-conformance run` and for the pytest plugin, is:

1. `cases/` in the current directory (the CLI) or under pytest's rootdir (the plugin), when
   that folder exists: running from a checkout runs the checkout's cases, edits included;
2. otherwise the corpus shipped with the installed package (`shipped_corpus()`).

`--cases PATH` replaces the default; to run your own files beside the shipped ones, name
both: `--cases "$(topk-conformance cases --path)" --cases my-cases/`."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from conformance.cases.loader import case_files, load_cases
from conformance.core.text import printable

_PACKAGE = Path(__file__).resolve().parent.parent  # conformance/
# Inside an installed wheel: the copy of cases/ the build made.
PACKAGED_CORPUS = _PACKAGE / "corpus"
# In a checkout (or an editable install of one): the repository's own cases/.
CHECKOUT_CASES = _PACKAGE.parent / "cases"
SCHEMA = Path(__file__).resolve().parent / "schema" / "case.schema.json"


def shipped_corpus() -> Path | None:
    """The corpus that came with this installation, or None if there is none."""
    if PACKAGED_CORPUS.is_dir():
        return PACKAGED_CORPUS
    if CHECKOUT_CASES.is_dir() and (_PACKAGE.parent / "pyproject.toml").is_file():
        return CHECKOUT_CASES
    return None


def default_case_roots(base: Path | None = None) -> list[Path]:
    """`cases/` under `base` (default: the current directory) when it exists, as the
    relative path `cases`; else the shipped corpus; else `cases` (which then finds nothing,
    and the caller says so)."""
    local = (base or Path.cwd()) / "cases"
    if local.is_dir():
        return [Path("cases")]
    shipped = shipped_corpus()
    return [shipped] if shipped is not None else [Path("cases")]


def add_parser(commands: Any) -> None:
    """The `cases` subcommand, added to the CLI's subparsers."""
    cases = commands.add_parser(
        "cases", help="list the cases (the shipped corpus by default), or print where the corpus is",
        description="List the cases a run would take: id, source and tags, one case a line (a table "
        "on a terminal). Case file errors are listed on stderr. Exit status: 0 all cases load; 1 a "
        "case file has an error; 2 no case found, or no corpus shipped (--path).",
    )
    cases.add_argument("--cases", type=Path, action="append", metavar="PATH",
                       help="case file or folder (repeatable; default: cases/ if present, else the shipped corpus)")
    cases.add_argument("--list", action="store_true", help="list every case: id, source, tags, file (the default)")
    cases.add_argument("--path", action="store_true",
                       help="print the folder of the corpus shipped with this installation, and nothing else")
    cases.add_argument("--schema", action="store_true",
                       help="print the path of the case files' JSON Schema (for an editor's YAML language server)")


def main(args: argparse.Namespace, console: Console) -> int:
    if args.schema:
        print(SCHEMA)
        return 0
    if args.path:
        shipped = shipped_corpus()
        if shipped is None:
            print("topk-conformance: this installation ships no corpus", file=sys.stderr)
            return 2
        print(shipped)
        return 0
    roots = args.cases or default_case_roots()
    loaded = load_cases(roots)
    for error in loaded.errors:
        print(f"case error: {printable(str(error))}", file=sys.stderr)
    if not loaded.cases:
        print(f"topk-conformance: no case found in {', '.join(map(str, roots))}", file=sys.stderr)
        return 2
    rows = [(case.id, case.source, ", ".join(case.tags), _shown(case.file, roots)) for case in loaded.cases]
    if console.is_terminal:
        table = Table(title=f"{len(rows)} cases in {', '.join(map(str, roots))}")
        for column in ("id", "source", "tags", "file"):
            table.add_column(column, overflow="fold")
        for row in rows:
            table.add_row(*map(printable, row))
        console.print(table)
    else:
        # One case a line, tab-separated: id, source, tags (comma-separated), file.
        try:
            for row in rows:
                print("\t".join(printable(field) for field in row))
            sys.stdout.flush()
        except BrokenPipeError:  # `cases --list | head`
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
    files = len(case_files(roots))
    print(f"{len(rows)} cases in {files} files ({', '.join(map(str, roots))})"
          + (f"; {len(loaded.errors)} case file errors" if loaded.errors else ""), file=sys.stderr)
    return 1 if loaded.errors else 0


def _shown(file: Path, roots: list[Path]) -> str:
    for root in roots:
        try:
            return str(file.resolve().relative_to(root.resolve().parent))
        except ValueError:
            continue
    return str(file)
