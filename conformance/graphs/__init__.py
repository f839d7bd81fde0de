"""Graphs: the ways one case becomes a runnable graph (variants), and a builder per
dialect (ONNX, native OpenVINO)."""
