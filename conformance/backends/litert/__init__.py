"""LiteRT (TensorFlow Lite) after onnx2tf, in a Python environment of its own: `litert-cpu`."""
