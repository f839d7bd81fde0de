"""DirectML's TOP_K1 on INT64 compares the low 32 bits as signed when the high words are
equal: 4294967295 (0x00000000_FFFFFFFF) sorts below 5, in both directions. UINT64 and
UINT32 are right. Seen on DirectML.dll 1.15.4 under Wine 8.0 on Mesa lavapipe (a software
Vulkan adapter), so the fault may lie in DirectML's shader or in its translation; not yet
checked on a GPU. Needs `topk-conformance setup directml`; drives the suite's bridge.exe
directly (framing in backends/wine/bridge/bridge.h), no suite imports."""
import os
import struct
import subprocess

import numpy as np

root = os.path.expanduser("~/.cache/topk-conformance/directml")
xvfb = subprocess.Popen(["Xvfb", ":93", "-nolisten", "tcp"], stderr=subprocess.DEVNULL)
env = dict(os.environ, WINEPREFIX=f"{root}/prefix", WINEDEBUG="-all", DISPLAY=":93",
           WINEDLLOVERRIDES="mscoree,mshtml=;wined3d=n",  # the patched wined3d.dll beside bridge.exe
           VK_ICD_FILENAMES="/usr/share/vulkan/icd.d/lvp_icd.x86_64.json")
bridge = subprocess.Popen(["wine", f"{root}/bin/bridge.exe"], env=env, cwd=f"{root}/bin",
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


def top_k1(x, k, direction):  # DML_OPERATOR_TOP_K1 (112), axis 0, UINT32 indices (ONNX type 12)
    elem = {np.int64: 7, np.uint64: 13}[x.dtype.type]
    head = struct.pack("<5I", 112, 0, k, direction, 12)  # operator, axis, K, direction, index type
    body = head + struct.pack("<IIqQ", elem, 1, x.size, x.nbytes) + x.tobytes()
    bridge.stdin.write(struct.pack("<IIQ", 0x31424B54, 4, len(body)) + body)
    bridge.stdin.flush()
    _, status, _, _, n = struct.unpack("<IIIIQ", bridge.stdout.read(24))
    out = bridge.stdout.read(n)
    assert status == 0, out.decode()
    return np.frombuffer(out[24:24 + x.itemsize * k], x.dtype).tolist()


for dtype in (np.int64, np.uint64):
    x = np.array([5, 4294967295], dtype)
    print(dtype.__name__, x.tolist(), "smallest:", top_k1(x, 1, 0), "largest:", top_k1(x, 1, 1))
# int64 [5, 4294967295] smallest: [4294967295] largest: [5]   <- wrong
# uint64 [5, 4294967295] smallest: [5] largest: [4294967295]  <- right
bridge.stdin.close()
bridge.wait()
xvfb.terminate()
