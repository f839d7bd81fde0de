"""What loading one hostile case file costs in memory, for each shape of file.

    python benchmarks/case_file_memory.py [--megabytes 8] [--shape NAME ...] [--tree DIR]

Writes one case file of each shape (about --megabytes in size; the alias shapes are as small
as their trick allows) to a temporary folder, loads it with `load_file` in a fresh process,
and prints that process's peak resident memory above what it held before loading (the
imports; 0 where loading stays below the peak the imports reached), as megabytes and as a
multiple of the file's size, its CPU seconds, and the first error line. The
figures in docs/broken-input.md ("Limits: what one file may cost") come from here. --tree
loads with the `conformance` package of another checkout (an older commit, for a before and
after)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CASE = "  - id: {id}\n    source: {source}\n    input: {{dtype: {dtype}, shape: [{shape}], data: [{data}]}}\n" \
       "    axis: 0\n    k: 1\n"


def _numbers(size: int, item: str, dtype: str = "int32") -> str:
    count = size // (len(item) + 2)
    return "cases:\n" + _case(id="big", source="x", shape=count, data=", ".join([item] * count), dtype=dtype)


def _case(**fields: object) -> str:
    return CASE.format(**{"dtype": "int32", **fields})


def _rows(size: int, width: int) -> str:
    row = "[" + ", ".join(["7"] * width) + "]"
    count = size // (len(row) + 2)
    return "cases:\n" + _case(id="rows", source="x", shape=f"{count}, {width}", data=", ".join([row] * count))


def _long_string(size: int) -> str:
    return "cases:\n" + _case(id="long", source="x" * size, shape=1, data=1)


def _aliased_string(size: int) -> str:
    """The issue's probe: one string anchored once, its alias the source of 899 more cases."""
    text = "cases:\n" + _case(id="c0", source="&s " + "x" * (1 << 20), shape=1, data=1)
    return text + "".join(_case(id=f"c{n}", source="*s", shape=1, data=1) for n in range(1, 900))


def _aliased_short_strings(size: int) -> str:
    """Strings short enough to be sources, aliased: what the aliases stand for counts."""
    text = "cases:\n" + _case(id="c0", source="&s " + "x" * 9000, shape=1, data=1)
    return text + "".join(_case(id=f"c{n}", source="*s", shape=1, data=1) for n in range(1, 900))


def _billion_laughs(size: int) -> str:
    lines = ["anchors:", '  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"  {name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
    return "\n".join(lines) + "\ncases:\n" + _case(id="laughs", source="*i", shape=1, data=1)


def _strings(size: int) -> str:
    count = size // 12
    return "cases:\n" + _case(id="tags", source="x", shape=1, data=1).replace(
        "    axis", "    tags: [" + ", ".join(f"t{n:08d}" for n in range(count)) + "]\n    axis", 1)


def _many_cases(size: int) -> str:
    one = _case(id="c{n}", source="x", shape=2, data="1, 2")
    count = size // len(one)
    return "cases:\n" + "".join(one.replace("{n}", str(n)) for n in range(count))


def _mappings(size: int) -> str:
    return "cases: []\nx: [" + ", ".join(["{}"] * (size // 4)) + "]\n"


def _deep(size: int) -> str:
    depth = size // 2
    return "cases:\n" + _case(id="deep", source="x", shape=1, data="[" * depth + "1" + "]" * depth)


SHAPES: dict[str, Callable[[int], str]] = {
    "ints-1-digit": lambda size: _numbers(size, "7"),
    "ints-6-digits": lambda size: _numbers(size, "123456"),
    "floats": lambda size: _numbers(size, "0.4375", "float32"),
    "rows-of-1": lambda size: _rows(size, 1),
    "rows-of-10": lambda size: _rows(size, 10),
    "rows-of-80": lambda size: _rows(size, 80),
    "one-long-string": _long_string,
    "strings-in-a-list": _strings,
    "many-cases": _many_cases,
    "mappings": _mappings,
    "deep": _deep,
    "aliased-1mb-string": _aliased_string,
    "aliased-9000-chars": _aliased_short_strings,
    "billion-laughs": _billion_laughs,
}

_MEASURE = """
import json, resource, sys, time
from pathlib import Path
from conformance.cases.loader import load_file
from conformance.core.safe_yaml import Limits
before, started = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, time.process_time()
items = load_file(Path(sys.argv[1]), Limits(file_bytes=1 << 30))
after, seconds = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, time.process_time() - started
errors = [str(item) for item in items if not hasattr(item, "op")]
first = errors[0][:150] if errors else ""
print(json.dumps({"kib": after - before, "seconds": seconds, "errors": len(errors), "first": first}))
"""


def measure(path: Path, tree: Path) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(path)], capture_output=True, text=True, cwd=tree,
                          check=True)
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=float, default=8)
    parser.add_argument("--shape", action="append", choices=sorted(SHAPES), help="default: every shape")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose loader is measured")
    args = parser.parse_args()
    size = int(args.megabytes * 1e6)
    with tempfile.TemporaryDirectory() as folder:
        for name in args.shape or SHAPES:
            path = Path(folder) / f"{name}.yaml"
            path.write_text(SHAPES[name](size))
            found = measure(path, args.tree)
            mib = path.stat().st_size / 2**20
            peak = int(found["kib"]) / 1024  # type: ignore[call-overload]
            print(f"{name:20} {mib:8.2f} MiB file  {peak:8.1f} MiB peak  {peak / mib:6.1f}x  "
                  f"{found['seconds']:6.1f} s CPU  "
                  f"{found['errors']} errors  {found['first']}", flush=True)


if __name__ == "__main__":
    main()
