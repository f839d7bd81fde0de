"""topk-conformance: a conformance suite for the TopK operator across ONNX Runtime,
OpenVINO and DirectML."""

__version__ = "0.2.0"
