"""TopK: its case record, the DirectML answer (oracle), the dialects' variants, graph builders
(ONNX, native OpenVINO, DirectML operator descriptions) and profiles, and the judge of its
rules."""
