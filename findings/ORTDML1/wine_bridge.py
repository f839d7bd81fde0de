"""The Wine side of the repro beside it: bridge.exe, the small Windows program that
`topk-conformance setup directml` builds, runs ONNX Runtime's DirectML execution provider (the
onnxruntime-directml wheel's onnxruntime.dll and DirectML.dll) under Wine on Mesa lavapipe, and
answers requests in a binary framing on its standard input and output. On Windows none of this
is needed: repro_windows.py is the same check through onnxruntime's Python API."""
import platform
import struct
import subprocess
import sys

import numpy as np
import onnx

# Wine runs bridge.exe from the folder `topk-conformance setup directml` fills, on an Xvfb display of its own, with
# the patched wined3d.dll beside it and Mesa lavapipe as the only Vulkan driver.
WINE = ('cd "${TOPK_CONFORMANCE_CACHE:-$HOME/.cache/topk-conformance}/directml" && WINEPREFIX=$PWD/prefix '
        'WINEDLLOVERRIDES=wined3d=n VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json '
        'xvfb-run -a timeout 60 wine bin/bridge.exe')


def request(m, *inputs):
    """bridge.exe's OP_ORT_RUN (2) request: u32 magic "TKB2", u32 op, u64 payload length, then the payload: str
    session key ("": none kept; a str is u32 length + UTF-8), u64 length + the model, u32 count + (str name, u32
    ONNX element type, u32 rank, i64 dims, u64 size, bytes) per input, u32 count + (str name, u32 0: not
    preallocated, an empty tensor spec: 16 zero bytes) per output."""
    body = struct.pack("<IQ", 0, m.ByteSize()) + m.SerializeToString() + struct.pack("<I", len(m.graph.input))
    for i, x in zip(m.graph.input, inputs):
        body += struct.pack(f"<IsII{x.ndim}qQ", 1, i.name.encode(), i.type.tensor_type.elem_type, x.ndim, *x.shape,
                            x.nbytes) + x.tobytes()
    body += struct.pack("<I", len(m.graph.output)) + b"".join(struct.pack("<Is20x", 1, o.name.encode())
                                                              for o in m.graph.output)
    return struct.pack("<IIQ", 0x32424B54, 2, len(body)) + body


def bridge(runs):
    """Sends OP_ORT_INFO (1), OP_DML_INFO (3) and a request per run (a model in ONNX's textual syntax, its
    inputs), prints the versions and returns each run's reply: the error text where ONNX Runtime refused, else
    (the outputs, ONNX Runtime's record of the provider each node was assigned to). A reply is u32 magic, u32
    status (0: ok), u32 code, u32 reserved, u64 length, payload: the text, or u32 count + tensor (as above) per
    output + str record."""
    stdin = struct.pack("<IIQIIQ", 0x32424B54, 1, 0, 0x32424B54, 3, 0)  # OP_ORT_INFO, OP_DML_INFO: no payload
    stdin += b"".join(request(onnx.parser.parse_model(text), *inputs) for text, *inputs in runs)
    done = subprocess.run(["sh", "-c", WINE], input=stdin, capture_output=True)
    out, replies = done.stdout, []
    while len(out) >= 24:
        status, n = struct.unpack_from("<4xI8xQ", out)
        body, out, values, at = out[24:24 + n], out[24 + n:], [], 4
        for _ in range(0 if status or len(replies) < 2 else body[0]):  # the first two: the info ops' key=value lines
            e, rank = struct.unpack_from("<II", body, at)
            *shape, size = struct.unpack_from(f"<{rank}qQ", body, at + 8)
            at += 16 + 8 * rank + size
            values.append(np.frombuffer(body[at - size:at], onnx.helper.tensor_dtype_to_np_dtype(e)).reshape(shape))
        replies.append(([v.tolist() for v in values], body[at + 4:].decode()) if values else body.decode().strip())
    if len(replies) < len(runs) + 2 or not all(info.startswith("bridge=") for info in replies[:2]):
        sys.exit(print("CANNOT RUN: bridge.exe did not answer:", done.stderr.decode(errors="replace")[-500:]) or 2)
    print(*replies[0].split(), *replies[1].splitlines()[1:9], sep=", ")  # onnxruntime.dll, DirectML.dll, the device
    print(f"onnx {onnx.__version__}, numpy {np.__version__}, Python {platform.python_version()}", platform.platform(),
          subprocess.run(["wine", "--version"], capture_output=True, text=True).stdout.strip(), sep=", ")
    return replies[2:]
