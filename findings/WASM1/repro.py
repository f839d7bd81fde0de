"""WASM1: ONNX Runtime Web (WebAssembly provider) traps on a TopK input with a zero-sized dimension.

Standalone: Python's standard library, Node.js and the npm package onnxruntime-web (in a
node_modules folder beside this file: `npm install onnxruntime-web@1.30.0` here). Runs
`node repro.mjs` (the one-node ONNX model is written by onnx_model.mjs) and relays what it
prints. Last line: REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2).
"""
import json
import platform
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
VERDICTS = {0: "REPRODUCED", 1: "NOT REPRODUCED", 2: "CANNOT RUN"}


def cpu():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cannot_run(why):
    print(f"CANNOT RUN: {why}")
    sys.exit(2)


def main():
    print(f"Python {sys.version.split()[0]}; {platform.platform()}; CPU {cpu()}")
    node = shutil.which("node")
    if not node:
        cannot_run("node (Node.js) is not installed")
    package = HERE / "node_modules" / "onnxruntime-web" / "package.json"
    if not package.is_file():
        cannot_run("onnxruntime-web is not installed beside this script (npm install onnxruntime-web@1.30.0)")
    print(f"onnxruntime-web {json.loads(package.read_text()).get('version')} (node_modules/onnxruntime-web/package.json)")
    try:
        node_version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=20).stdout.strip()
        print(f"Node.js {node_version}")
        run = subprocess.run([node, "repro.mjs"], cwd=HERE, capture_output=True, text=True, timeout=45)
    except subprocess.TimeoutExpired:
        print("node repro.mjs did not finish within 45 s: the repro itself is broken")
        sys.exit(3)
    lines = run.stdout.rstrip().splitlines()
    print("\n".join(lines))
    last = lines[-1] if lines else ""
    if run.returncode not in VERDICTS or not last.startswith(VERDICTS[run.returncode]):
        print(run.stderr.strip()[-2000:])
        print(f"node repro.mjs exited with status {run.returncode}: the repro itself is broken")
        sys.exit(3)
    sys.exit(run.returncode)


if __name__ == "__main__":
    main()
