"""Loading a big case file, as ratios against peers measured in the same run on the same file.

    python benchmarks/load_cases.py [--repeat N] [--cases 16] [--rows 128] [--columns 1000] [--old]

Writes a case file like one that spells out big inputs in `data` (by default 16 cases of
128x1000 float32 written as short numbers, expected omitted: about 7.8 MB) to a temporary
folder, then prints the median seconds of:

- `load_file`: what the suite does (YAML, schema, tensors, checks);
- `yaml CSafeLoader`: PyYAML's plain libyaml safe loading of the same file (YAML only; the
  suite's loader does more, and is still expected to be faster);
- `json.loads`: the same document as JSON (a floor: C all the way);
- with --old, `yaml SafeLoader`: PyYAML's pure-Python loading, which the suite used before
  (about 50 s for the default file; run with --repeat 1).

and each one's ratio to `load_file`. Absolute times depend on the machine; the ratios less so."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.clock import median_seconds
from conformance.cases.loader import load_file
from conformance.ops.topk.case import Case


def case_file(cases: int, rows: int, columns: int) -> str:
    rng = np.random.default_rng(0)
    lines = ["cases:"]
    for number in range(cases):
        data = rng.integers(0, 100, (rows, columns))
        text = ", ".join("[" + ", ".join(map(str, row)) + "]" for row in data.tolist())
        lines += [
            f"  - id: big-{number}",
            "    source: benchmarks/load_cases.py",
            f"    input: {{dtype: float32, shape: [{rows}, {columns}], data: [{text}]}}",
            "    axis: 1",
            "    k: 5",
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cases", type=int, default=16)
    parser.add_argument("--rows", type=int, default=128)
    parser.add_argument("--columns", type=int, default=1000)
    parser.add_argument("--old", action="store_true", help="also time PyYAML's pure-Python SafeLoader")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.yaml"
        path.write_text(case_file(args.cases, args.rows, args.columns), encoding="utf-8")
        text = path.read_text(encoding="utf-8")

        def suite() -> None:
            items = load_file(path)
            assert len(items) == args.cases and all(isinstance(item, Case) for item in items), items[:1]

        as_json = json.dumps(yaml.load(text, Loader=yaml.CSafeLoader))
        peers: dict[str, Callable[[], object]] = {
            "load_file": suite,
            "yaml CSafeLoader": lambda: yaml.load(text, Loader=yaml.CSafeLoader),
            "json.loads": lambda: json.loads(as_json),
        }
        if args.old:
            peers["yaml SafeLoader (before)"] = lambda: yaml.load(text, Loader=yaml.SafeLoader)
        size = path.stat().st_size
        print(f"{args.cases} cases of {args.rows}x{args.columns} float32 in `data`: "
              f"{size / 1e6:.1f} MB; median of {args.repeat}")
        seconds = {name: median_seconds(run, args.repeat) for name, run in peers.items()}
    ours = seconds["load_file"]
    for name, value in seconds.items():
        print(f"  {name:26} {value:8.3f} s   {value / ours:6.2f} x load_file")


if __name__ == "__main__":
    main()
