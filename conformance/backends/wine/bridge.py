"""The Python end of bridge.exe (conformance/backends/wine/bridge/bridge.h has the framing): one Wine
process on an Xvfb display of its own, asked one request after another over pipes."""

from __future__ import annotations

import os
import select
import struct
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import onnx
from onnx import helper

from conformance.backends.base import BackendCrash
from conformance.backends.wine.environment import Display, WineSetup
from conformance.core.dtypes import DTYPES, element_type
from conformance.core.processes import die_with_parent

MAGIC = 0x32424B54  # "TKB2" (bridge.h's BRIDGE_MAGIC)
OP_QUIT, OP_ORT_INFO, OP_ORT_RUN, OP_DML_INFO, OP_DML_RUN = range(5)
STATUS_OK, STATUS_REFUSED, STATUS_BAD_REQUEST = range(3)
# OP_DML_RUN's member kinds (bridge.h)
MEMBER_INPUT_TENSOR, MEMBER_OUTPUT_TENSOR, MEMBER_UINT, MEMBER_INT, MEMBER_FLOAT, MEMBER_UINT_ARRAY = range(1, 7)
SENTINEL = 0xA5
START_SECONDS = 90.0


class BridgeRefused(RuntimeError):
    """The runtime behind the bridge refused or failed: code is its HRESULT or OrtErrorCode."""

    def __init__(self, code: int, text: str) -> None:
        hexcode = f"0x{code:08x}"
        super().__init__(text if hexcode in text else f"{text} (code {hexcode})")
        self.code = code
        self.text = text


def dtype_of(elem_type: int) -> np.dtype[Any]:
    """The numpy type of an ONNX TensorProto element type, as the bridge's tensors carry it."""
    if elem_type == onnx.TensorProto.BFLOAT16:
        return DTYPES["bfloat16"]
    dtype: np.dtype[Any] = np.dtype(helper.tensor_dtype_to_np_dtype(elem_type))
    return dtype


class Payload:
    """A request payload under construction."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def u32(self, value: int) -> Payload:
        self.parts.append(struct.pack("<I", value))
        return self

    def u64(self, value: int) -> Payload:
        self.parts.append(struct.pack("<Q", value))
        return self

    def i32(self, value: int) -> Payload:
        self.parts.append(struct.pack("<i", value))
        return self

    def f32(self, value: float) -> Payload:
        self.parts.append(struct.pack("<f", value))
        return self

    def blob(self, data: bytes) -> Payload:
        self.parts.append(struct.pack("<Q", len(data)))
        self.parts.append(data)
        return self

    def string(self, text: str) -> Payload:
        data = text.encode()
        self.parts.append(struct.pack("<I", len(data)))
        self.parts.append(data)
        return self

    def tensor(self, array: np.ndarray[Any, Any], elem_type: int | None = None) -> Payload:
        data = np.ascontiguousarray(array).tobytes()
        self.u32(element_type(array.dtype) if elem_type is None else elem_type).u32(array.ndim)
        self.parts.append(struct.pack(f"<{array.ndim}q", *array.shape))
        return self.blob(data)

    def spec(self, elem_type: int, shape: tuple[int, ...]) -> Payload:
        self.u32(elem_type).u32(len(shape))
        self.parts.append(struct.pack(f"<{len(shape)}q", *shape))
        return self.u64(0)

    def bytes(self) -> bytes:
        return b"".join(self.parts)


class Reply:
    """A reply payload being read."""

    def __init__(self, data: bytes) -> None:
        self.data = memoryview(data)
        self.at = 0

    def _take(self, n: int) -> memoryview:
        if self.at + n > len(self.data):
            raise BackendCrash("the bridge sent a truncated reply")
        part = self.data[self.at:self.at + n]
        self.at += n
        return part

    def u32(self) -> int:
        value: int = struct.unpack("<I", self._take(4))[0]
        return value

    def string(self) -> str:
        return bytes(self._take(self.u32())).decode("utf-8", "replace")

    def text(self) -> str:
        """The whole payload as text (the info replies)."""
        return bytes(self.data).decode("utf-8", "replace")

    def tensor(self, index_dtype: np.dtype[Any] | None = None) -> np.ndarray[Any, Any]:
        elem_type, rank = self.u32(), self.u32()
        shape = struct.unpack(f"<{rank}q", self._take(8 * rank))
        nbytes = struct.unpack("<Q", self._take(8))[0]
        dtype = index_dtype if index_dtype is not None else dtype_of(elem_type)
        return np.frombuffer(bytes(self._take(nbytes)), dtype=dtype).reshape(shape)

    def named_tensors(self) -> dict[str, np.ndarray[Any, Any]]:
        """u32 count, then (str name, tensor) each: OP_DML_RUN's outputs."""
        return {self.string(): self.tensor() for _ in range(self.u32())}


def parse_info(text: str) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in text.splitlines() if "=" in line)
    return {key.strip(): value.strip() for key, value in pairs}


@dataclass
class Bridge:
    """One bridge.exe under Wine. A dead or hung bridge raises BackendCrash (a `crash`
    verdict) and is closed; the owner starts a fresh one for the next request."""

    setup: WineSetup
    timeout: float = 50.0  # per request: under the worker's own limit, so the crash is ours
    _display: Display | None = None
    _process: subprocess.Popen[bytes] | None = None
    _log: Any = None

    def start(self) -> None:
        self._display = Display()
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (Wine's messages, kept for crash reports)
        try:
            self._process = subprocess.Popen(
                ["wine", str(self.setup.bridge_exe)], env=self.setup.environment(self._display.name),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
                cwd=self.setup.bin, preexec_fn=die_with_parent,
            )
        except OSError:
            self.close()
            raise
        # Non-blocking pipes: a bridge that stops reading or writing must not block us.
        assert self._process.stdin is not None and self._process.stdout is not None
        os.set_blocking(self._process.stdin.fileno(), False)
        os.set_blocking(self._process.stdout.fileno(), False)

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def call(self, op: int, payload: bytes = b"", timeout: float | None = None) -> Reply:
        if not self.alive:
            raise BackendCrash("the bridge is not running")
        process = self._process
        assert process is not None and process.stdin is not None and process.stdout is not None
        deadline = time.monotonic() + (timeout or self.timeout)
        try:
            _write_all(process.stdin.fileno(), struct.pack("<IIQ", MAGIC, op, len(payload)) + payload, deadline)
            head = _read_exact(process.stdout.fileno(), 24, deadline)
            magic, status, code, _, length = struct.unpack("<IIIIQ", head)
            if magic != MAGIC:
                raise BackendCrash(f"the bridge sent a bad frame (magic 0x{magic:08x})")
            body = _read_exact(process.stdout.fileno(), length, deadline)
        except BackendCrash as exc:
            raise BackendCrash(f"{exc}{self._wine_said()}") from None
        if status == STATUS_REFUSED:
            raise BridgeRefused(code, body.decode("utf-8", "replace"))
        if status != STATUS_OK:
            raise RuntimeError(f"the bridge could not read the request: {body.decode('utf-8', 'replace')}")
        return Reply(body)

    def _wine_said(self) -> str:
        """Why the bridge stopped answering, and the tail of what Wine printed; closes it."""
        process = self._process
        running = process is not None and process.poll() is None
        how = "hung" if running else f"exit code {process.returncode if process else '?'}"
        log = self._log
        self.close()
        tail = b""
        if log is not None:
            log.seek(0)
            tail = log.read()[-600:]
            log.close()
        text = " ".join(tail.decode("utf-8", "replace").split())
        return f" (bridge {how}{'; Wine said: ' + text if text else ''})"

    def close(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            if process.poll() is None and process.stdin is not None:
                try:
                    os.write(process.stdin.fileno(), struct.pack("<IIQ", MAGIC, OP_QUIT, 0))
                    process.stdin.close()
                    process.wait(3)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            if process.poll() is None:
                process.kill()
                process.wait()
            for stream in (process.stdin, process.stdout):
                if stream is not None and not stream.closed:
                    stream.close()
        if self._display is not None:
            self._display.close()
            self._display = None


def _write_all(fd: int, data: bytes, deadline: float) -> None:
    view = memoryview(data)
    while view:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([], [fd], [], left)[1]:
            raise BackendCrash("the bridge stopped reading its input")
        try:
            written = os.write(fd, view[: 1 << 20])
        except BlockingIOError:
            continue
        except (BrokenPipeError, ConnectionResetError):
            raise BackendCrash("the bridge process died") from None
        view = view[written:]


def _read_exact(fd: int, n: int, deadline: float) -> bytes:
    chunks: list[bytes] = []
    while n:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise BackendCrash("no answer from the bridge in time")
        try:
            chunk = os.read(fd, min(n, 1 << 20))
        except BlockingIOError:
            continue
        if not chunk:
            raise BackendCrash("the bridge process died")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)
