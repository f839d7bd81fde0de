"""ONNX Runtime Web's WebAssembly execution provider drops a box whose score equals score_threshold in
ONNX NonMaxSuppression (opsets 10 and 11). ONNX: "Bounding boxes with score less than score_threshold
are removed", so a score equal to it stays. Three disjoint boxes, scores [0.9, 0.5, 0.5], threshold
0.5: ONNX keeps all three, ONNX Runtime Web only the first.

Needs Python 3.10 or newer, Node.js, and beside this script repro.mjs and nms_model.mjs (which
writes the one-node ONNX model) and onnxruntime-web in a node_modules folder (`npm install
onnxruntime-web@1.30.0` here). It runs `node repro.mjs` and prints what that prints. The last
line is REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import platform
import shutil
import subprocess
import sys
from pathlib import Path

FILES = ["repro.mjs", "nms_model.mjs", "node_modules/onnxruntime-web"]  # beside this script
HERE = Path(__file__).resolve().parent
VERDICTS = {0: "REPRODUCED", 1: "NOT REPRODUCED", 2: "CANNOT RUN"}  # by exit status

print(f"Python {platform.python_version()}, {platform.platform()}")
node = shutil.which("node")
missing = ["Node.js (node)"] if not node else [name for name in FILES if not (HERE / name).exists()]
if missing:
    print(f"CANNOT RUN: {missing[0]} is missing" + (" beside this script" if node else ""))
    sys.exit(2)
try:
    run = subprocess.run([node, "repro.mjs"], cwd=HERE, capture_output=True, text=True, timeout=45)
except subprocess.TimeoutExpired:
    print("node repro.mjs did not finish within 45 s: the repro itself is broken")
    sys.exit(3)
print(run.stdout.rstrip())
last = (run.stdout.strip().splitlines() or [""])[-1]
if run.returncode not in VERDICTS or not last.startswith(VERDICTS[run.returncode]):
    print(run.stderr.strip()[-2000:])
    print(f"node repro.mjs exited with status {run.returncode}: the repro itself is broken")
    sys.exit(3)
sys.exit(run.returncode)
