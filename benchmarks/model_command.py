"""`topk-conformance model` on a detector, as a ratio against running the untouched model once
on each of the same backends, both measured in the same run on the same machine.

    python benchmarks/model_command.py MODEL.onnx [--backend NAME ...] [--fill random]

MODEL.onnx is one of the detectors examples/models/export_detectors.py exports (torchvision's,
untrained); the backends default to ort-cpu, openvino-cpu and mnn-cpu.

- **The command**: `topk-conformance model MODEL --fill F --seed 0 --backend ...` as a user runs
  it, wall time from start to exit: the backends asked in their workers, the copy (every
  selection node's tensors as outputs) and the untouched model run on each, every node judged on
  each, each pair classed, the case files, results.json and report.html written.
- **The peer**: for each backend, a fresh Python process that makes the same inputs, loads the
  backend's adapter and runs the untouched model once through it (session made and run, nothing
  judged), wall time from start to exit; the three added.

Target: command / peer at most 2x; printed with whether it holds (the exit status says nothing
of it). The load averages before and after are printed: others' work skews every figure."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET = 2.0
ONE_RUN = """
import sys
from pathlib import Path
from conformance.backends.registry import by_name
from conformance.models.running import model_graph
from conformance.models.source import filled_inputs, read_model
source = read_model(Path(sys.argv[1]))
feeds = filled_inputs(source, sys.argv[3], 0, {})
(backend,) = by_name([sys.argv[2]])
outputs = tuple(value.name for value in source.model.graph.output)
execution = backend.run(model_graph(source.model, source.opset, feeds, outputs))
assert execution.outputs, "no outputs"
"""


def _timed(command: list[str]) -> float:
    began = time.monotonic()
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False,
                          env=dict(os.environ, CI="true"), stdin=subprocess.DEVNULL)
    seconds = time.monotonic() - began
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])}... exited {done.returncode}:\n{done.stdout[-2000:]}"
                         f"{done.stderr[-2000:]}")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", type=Path)
    parser.add_argument("--backend", action="append", metavar="NAME")
    parser.add_argument("--fill", default="random")
    args = parser.parse_args()
    backends = args.backend or ["ort-cpu", "openvino-cpu", "mnn-cpu"]
    print(f"{args.model.name} ({args.model.stat().st_size / 1e6:.0f} MB) on {', '.join(backends)}, --fill {args.fill}; "
          f"load {os.getloadavg()[0]:.2f}")
    peers = {}
    for backend in backends:
        peers[backend] = _timed([sys.executable, "-c", ONE_RUN, str(args.model), backend, args.fill])
        print(f"  peer, {backend}: the untouched model once in a fresh process: {peers[backend]:.1f} s")
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "conformance", "model", str(args.model), "--fill", args.fill, "--seed", "0",
                   "--out", out]
        for backend in backends:
            command += ["--backend", backend]
        seconds = _timed(command)
    peer = sum(peers.values())
    ratio = seconds / peer
    print(f"  the command: {seconds:.1f} s; the peer: {peer:.1f} s; command / peer = {ratio:.2f}x "
          f"(target at most {TARGET:g}x: {'met' if ratio <= TARGET else 'NOT met'}); load {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
