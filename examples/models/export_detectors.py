"""Export torchvision's detectors to ONNX, untrained (weights=None: nothing is downloaded), as
users export them: the classic TorchScript-based exporter, opset 17, a 320 x 320 image. Each
file is what `topk-conformance model` then judges (see README.md here).

    python export_detectors.py OUT_DIR [NAME ...]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import torch
import torchvision

# name -> builder; small ones first. The first two carry the most selection nodes per second
# of export: SSDlite's 90 TopKs, Faster R-CNN's RPN (TopK, then NonMaxSuppression inside an If).
DETECTORS = {
    "ssdlite320_mobilenet_v3_large": torchvision.models.detection.ssdlite320_mobilenet_v3_large,
    "fasterrcnn_mobilenet_v3_large_320_fpn": torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn,
    "retinanet_resnet50_fpn": torchvision.models.detection.retinanet_resnet50_fpn,
    "fcos_resnet50_fpn": torchvision.models.detection.fcos_resnet50_fpn,
    "ssd300_vgg16": torchvision.models.detection.ssd300_vgg16,
}
SIDE = 320


def export(name: str, out: Path) -> Path:
    torch.manual_seed(0)  # untrained weights, the same on every run
    model = DETECTORS[name](weights=None, weights_backbone=None).eval()
    image = torch.rand(1, 3, SIDE, SIDE)
    path = out / f"{name}.onnx"
    began = time.monotonic()
    torch.onnx.export(model, (image,), str(path), opset_version=17, input_names=["images"], dynamo=False)
    print(f"{path}: exported in {time.monotonic() - began:.1f} s, {path.stat().st_size / 1e6:.0f} MB "
          f"(torch {torch.__version__}, torchvision {torchvision.__version__})")
    return path


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    for name in argv[1:] or list(DETECTORS):
        export(name, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
