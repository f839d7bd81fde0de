"""AM-ORTDML5: ArgMax/ArgMin on int16, uint16, bfloat16: an internal exception instead of the fall-back refusal.

ONNX Runtime's DirectML provider (the onnxruntime-directml 1.24.4 Windows wheel's onnxruntime.dll and
DirectML.dll) under Wine 8.0 on Mesa lavapipe, a software Vulkan adapter, driven through bridge.exe,
which `topk-conformance setup directml` builds into ~/.cache/topk-conformance/directml/bin (its framing
is below; no import of the suite). Each session: providers ["DmlExecutionProvider"],
session.disable_cpu_ep_fallback = 1. What shows here may lie in DirectML's shaders or in their
translation by Wine, and says nothing about a GPU driver: repro_windows.py is the same check on Windows.
Last line: REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
import os
import platform
import shutil
import signal
import struct
import subprocess
import sys


def cannot(why):
    print(f"CANNOT RUN: {why}")
    sys.exit(2)


try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper
except Exception as error:
    cannot(f"numpy and onnx are needed ({error.__class__.__name__}: {error})")

# The folder `topk-conformance setup directml` fills: bridge.exe (a small Windows program that loads
# the onnxruntime-directml 1.24.4 wheel's onnxruntime.dll and DirectML.dll), those DLLs, a patched
# wined3d.dll beside them, and a Wine prefix.
CACHE = os.environ.get("TOPK_CONFORMANCE_CACHE") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "topk-conformance")
ROOT = os.path.join(CACHE, "directml")
LAVAPIPE = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
MAGIC = 0x32424B54  # "TKB2": the bridge's frame magic
ELEM = {"float32": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6, "int64": 7, "float16": 10,
        "float64": 11, "uint32": 12, "uint64": 13, "bfloat16": 16}  # ONNX TensorProto numbers
NUMPY = {code: np.dtype(name if name != "bfloat16" else "uint16") for name, code in ELEM.items()}
SENTINEL = 0xA5A5A5A5A5A5A5A5  # the bridge fills a preallocated output with 0xA5 bytes before the run
IR = {1: 3, 10: 5, 11: 6, 12: 7, 13: 7, 24: 12}  # the lowest IR version each opset allows


class BridgeGone(Exception):
    pass


class Bridge:
    """bridge.exe under Wine on its own Xvfb display. Frames (little-endian): request u32 magic,
    u32 op, u64 length, payload; reply u32 magic, u32 status (0 ok, 1 refused), u32 code,
    u32 reserved, u64 length, payload (the error text when refused)."""

    def __init__(self):
        for tool in ("wine", "Xvfb"):
            if shutil.which(tool) is None:
                cannot(f"`{tool}` is not installed")
        for name in ("bridge.exe", "onnxruntime.dll", "DirectML.dll", "wined3d.dll"):
            if not os.path.isfile(os.path.join(ROOT, "bin", name)):
                cannot(f"{os.path.join(ROOT, 'bin', name)} is missing (run `topk-conformance setup directml`)")
        if not os.path.isfile(LAVAPIPE):
            cannot(f"{LAVAPIPE} (Mesa lavapipe, package mesa-vulkan-drivers) is missing")
        read_end, write_end = os.pipe()  # Xvfb picks a free display and writes its number here
        self.xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write_end), "-nolisten", "tcp", "-screen", "0",
                                      "640x480x24"], pass_fds=[write_end], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as announced:
            number = announced.readline().strip().decode()
        if not number:
            self.xvfb.wait()
            cannot("Xvfb did not start")
        runtime_dir = os.path.join(ROOT, "xdg-runtime")
        os.makedirs(runtime_dir, mode=0o700, exist_ok=True)
        env = dict(os.environ, WINEPREFIX=os.path.join(ROOT, "prefix"), WINEARCH="win64", WINEDEBUG="-all",
                   WINEDLLOVERRIDES="mscoree,mshtml=;wined3d=n",  # the patched wined3d.dll beside bridge.exe
                   VK_ICD_FILENAMES=LAVAPIPE, XDG_RUNTIME_DIR=runtime_dir, DISPLAY=":" + number)
        self.process = subprocess.Popen(["wine", os.path.join(ROOT, "bin", "bridge.exe")], env=env,
                                        cwd=os.path.join(ROOT, "bin"), stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def ask(self, op, body=b""):
        try:
            self.process.stdin.write(struct.pack("<IIQ", MAGIC, op, len(body)) + body)
            self.process.stdin.flush()
        except OSError as error:
            raise BridgeGone(f"bridge.exe stopped ({error})") from None
        head = self.process.stdout.read(24)
        if len(head) < 24:
            raise BridgeGone(f"bridge.exe stopped (exit status {self.process.poll()})")
        magic, status, _, _, n = struct.unpack("<IIIIQ", head)
        if magic != MAGIC:
            raise BridgeGone(f"bridge.exe answered an unknown frame (magic {magic:#x})")
        out = self.process.stdout.read(n)
        if status:
            return None, out.decode(errors="replace")
        return out, ""

    def info(self, op):  # OP_ORT_INFO (1) / OP_DML_INFO (3): "key=value" lines
        out, refused = self.ask(op)
        text = out.decode(errors="replace") if out else refused
        return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)

    def close(self):
        try:
            self.process.stdin.write(struct.pack("<IIQ", MAGIC, 0, 0))  # OP_QUIT
            self.process.stdin.close()
            self.process.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        self.xvfb.terminate()
        self.xvfb.wait()


def text(s):
    s = s.encode()
    return struct.pack("<I", len(s)) + s


def tensor(x, elem):
    return struct.pack(f"<II{x.ndim}qQ", elem, x.ndim, *x.shape, x.nbytes) + x.tobytes()


def read_tensor(out, at):
    elem, rank = struct.unpack_from("<II", out, at)
    shape = struct.unpack_from(f"<{rank}q", out, at + 8)
    size = struct.unpack_from("<Q", out, at + 8 + 8 * rank)[0]
    start = at + 16 + 8 * rank
    return np.frombuffer(out[start:start + size], NUMPY[elem]).reshape(shape), start + size


def run(bridge, model, inputs, outputs, key="", preallocate=None):
    """OP_ORT_RUN: one InferenceSession on ["DmlExecutionProvider"] with session.disable_cpu_ep_fallback=1
    (the bridge sets it), kept under `key` when not empty. inputs: name -> (array, ONNX element type);
    outputs: names; `preallocate`: name -> (element type, shape) of an output the bridge allocates and
    fills with 0xA5 bytes first. Returns (outputs, placement) or the error text."""
    model = model.SerializeToString()
    body = text(key) + struct.pack("<Q", len(model)) + model + struct.pack("<I", len(inputs))
    for name, (x, elem) in inputs.items():
        body += text(name) + tensor(x, elem)
    body += struct.pack("<I", len(outputs))
    for name in outputs:
        if preallocate and name in preallocate:
            elem, shape = preallocate[name]
            body += text(name) + struct.pack(f"<III{len(shape)}qQ", 1, elem, len(shape), *shape, 0)
        else:
            body += text(name) + struct.pack("<IIIQ", 0, 0, 0, 0)
    out, refused = bridge.ask(2, body)
    if refused:
        return refused.strip()
    results, at = [], 4
    for _ in range(struct.unpack_from("<I", out)[0]):
        value, at = read_tensor(out, at)
        results.append(value)
    n = struct.unpack_from("<I", out, at)[0]
    return results, out[at + 4:at + 4 + n].decode()  # ONNX Runtime's own record of the node's provider


def first_line(command):
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return (done.stdout.strip().splitlines() or ["unknown"])[0]


def cpu_name():
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def start():
    """Starts the bridge and prints the versions of everything involved."""
    print("Python", sys.version.split()[0], "|", platform.platform(), "|", cpu_name())
    print("numpy", np.__version__, "| onnx", onnx.__version__, "(only to build the model)")
    print("Wine", first_line(["wine", "--version"]), "| Mesa lavapipe (mesa-vulkan-drivers)",
          first_line(["dpkg-query", "-W", "-f", "${Version}", "mesa-vulkan-drivers"]))
    bridge = Bridge()
    ort = bridge.info(1)
    if "onnxruntime" not in ort:
        bridge.close()
        cannot("bridge.exe could not load onnxruntime.dll: " + " ".join(f"{k}={v}" for k, v in ort.items()))
    dml = bridge.info(3)
    print("onnxruntime.dll", ort.get("onnxruntime"), "(the onnxruntime-directml wheel), providers",
          ort.get("providers"))
    print("DirectML.dll", dml.get("directml_dll", "unknown"), "| adapter", dml.get("adapter", "unknown"),
          "(Wine's name for Mesa lavapipe, a software Vulkan device) | DirectML feature level",
          dml.get("dml_feature_level", "unknown"))
    print("(each session: providers ['DmlExecutionProvider'], session.disable_cpu_ep_fallback = 1)")
    return bridge


def _timeout(*_):
    raise BridgeGone("no answer from bridge.exe within 50 s")


def main(body):
    """Runs body(bridge) -> True (reproduced) / False; prints the protocol's last line."""
    signal.signal(signal.SIGALRM, _timeout)
    signal.alarm(50)
    bridge = None
    try:
        bridge = start()
        reproduced = body(bridge)
    except BridgeGone as error:
        print(f"CANNOT RUN: {error}")
        sys.exit(2)
    finally:
        signal.alarm(0)
        if bridge is not None:
            bridge.close()
    print("REPRODUCED" if reproduced else "NOT REPRODUCED")
    sys.exit(0 if reproduced else 1)


def topk_model(opset, elem, shape, k, largest=1, k_input=False, dims=None):
    """One TopK node on axis 0: K the attribute (opset 1), else an int64 initializer, or a graph
    input with k_input; `dims` gives X symbolic dimensions."""
    inputs = [helper.make_tensor_value_info("X", elem, dims or list(shape))]
    initializers, attrs = [], {"axis": 0}
    if opset == 1:
        attrs["k"] = k
    elif k_input:
        inputs.append(helper.make_tensor_value_info("K", TensorProto.INT64, [1]))
    else:
        initializers.append(helper.make_tensor("K", TensorProto.INT64, [1], [k]))
    if opset >= 11:
        attrs["largest"] = largest
    node = helper.make_node("TopK", ["X"] + ([] if opset == 1 else ["K"]), ["V", "I"], name="topk", **attrs)
    graph = helper.make_graph([node], "topk", inputs, [helper.make_tensor_value_info("V", elem, None),
                                                        helper.make_tensor_value_info("I", TensorProto.INT64, None)],
                              initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="repro")
    model.ir_version = IR[opset]
    return model


def arg_model(op, opset, elem, shape, axis=0, last=0, dims=None):
    """One ArgMax/ArgMin node, keepdims=1 (select_last_index from opset 12)."""
    attrs = {"axis": axis, "keepdims": 1}
    if opset >= 12:
        attrs["select_last_index"] = last
    node = helper.make_node(op, ["X"], ["I"], name=op.lower(), **attrs)
    graph = helper.make_graph([node], op.lower(), [helper.make_tensor_value_info("X", elem, dims or list(shape))],
                              [helper.make_tensor_value_info("I", TensorProto.INT64, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="repro")
    model.ir_version = IR[opset]
    return model


def show(result):
    """Outputs as lists with ONNX Runtime's placement record, or the first line of the error."""
    if isinstance(result, str):
        return "error: " + result.splitlines()[0][:400]
    outputs, placement = result
    return " ".join(str(o.tolist()) for o in outputs) + f"  [{placement.strip()}]"


def body(bridge):
    internal = False
    print("\nONNX ArgMax / ArgMin, axis 0, keepdims 1, on [1, 3, 2]; documents: [1] (ArgMax-13's T includes int16, "
          "uint16, bfloat16). Where the provider declines a type, ONNX Runtime's documented answer with CPU fall-back"
          " disabled is the refusal 'This session contains graph nodes that are assigned to the default CPU EP, but"
          " fallback to CPU EP has been explicitly disabled by the user.'")
    for op, opset, name in (("ArgMax", 13, "int16"), ("ArgMin", 11, "uint16"), ("ArgMax", 13, "bfloat16"),
                            ("ArgMax", 13, "float64")):
        elem = ELEM[name]
        data = [0x3F80, 0x4040, 0x4000] if name == "bfloat16" else ([1, 3, 2] if op == "ArgMax" else [3, 1, 2])
        x = np.array(data, NUMPY[elem])
        result = run(bridge, arg_model(op, opset, elem, x.shape), {"X": (x, elem)}, ["I"])
        print(f"  {op}-{opset} {name} {'[1, 3, 2]' if name == 'bfloat16' else x.tolist()}: {show(result)}")
        if isinstance(result, str) and "!node_provider_type.empty()" in result:
            internal = True
            print("    ^ an internal exception, not the fall-back refusal")
    return internal

if __name__ == "__main__":
    main(body)
