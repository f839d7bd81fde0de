"""One Node.js process running conformance/backends/web/js/host.mjs for `ort-web-wasm`: requests go on
one pipe and replies come on another, one JSON object a line; ONNX Runtime's log (its
stderr) goes to a file read after each reply. A Node that dies or stops answering raises
BackendCrash and is closed; the backend starts a fresh one for the next graph."""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import tempfile
import time
from typing import IO, Any, NoReturn

from conformance.backends.base import BackendCrash
from conformance.backends.web.environment import JS, WebSetup, node
from conformance.backends.web.hosts import Hung
from conformance.core.processes import die_with_parent

START_SECONDS = 30.0
TIMEOUT = 25.0  # per request: twice that (a hang and its retry) stays under the worker's 60 s


class NodeHost:
    def __init__(self, setup: WebSetup, timeout: float = TIMEOUT) -> None:
        self.setup = setup
        self.timeout = timeout
        self.versions: dict[str, str] = {}
        self._process: subprocess.Popen[bytes] | None = None
        self._requests = self._replies = -1
        self._pending = b""
        self._log: IO[bytes] | None = None

    def start(self) -> None:
        executable = node()
        if executable is None:
            raise RuntimeError("no Node.js (`node` is not on PATH)")
        request_read, self._requests = os.pipe()
        self._replies, reply_write = os.pipe()
        # Appending: truncated before each request, Node's writes start again at 0.
        self._log = tempfile.TemporaryFile(mode="a+b")  # noqa: SIM115 (kept for the host's life)
        try:
            self._process = subprocess.Popen(
                [executable, str(JS / "host.mjs"), str(self.setup.root), str(request_read), str(reply_write)],
                stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log, pass_fds=(request_read, reply_write),
                cwd=self.setup.root, preexec_fn=die_with_parent,
            )
        except OSError:
            self.close()
            raise
        finally:
            os.close(request_read)
            os.close(reply_write)
        hello = self._read_line(time.monotonic() + START_SECONDS, START_SECONDS)
        versions = hello.get("versions") if hello.get("ready") else None
        if not isinstance(versions, dict):
            self.close()
            raise BackendCrash(f"Node sent no ready line ({hello!r})")
        self.versions = {str(key): str(value) for key, value in versions.items()}

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def call(self, request: dict[str, Any], seconds: float | None = None) -> tuple[dict[str, Any], list[str]]:
        """The reply to one request and the log lines Node wrote while answering it."""
        if not self.alive or self._log is None:
            raise BackendCrash("the Node host is not running")
        self._log.truncate(0)
        limit = seconds or self.timeout
        deadline = time.monotonic() + limit
        self._write((json.dumps(request) + "\n").encode(), deadline)
        answer = self._read_line(deadline, limit)
        self._log.seek(0)
        lines = self._log.read().decode("utf-8", "replace").splitlines()
        return answer, lines

    def _write(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        while view:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([], [self._requests], [], left)[1]:
                self._crash("stopped reading its requests and was killed", hung=True)
            try:
                view = view[os.write(self._requests, view[: 1 << 20]):]
            except (BrokenPipeError, ConnectionResetError):
                self._crash("died")

    def _read_line(self, deadline: float, limit: float) -> dict[str, Any]:
        while b"\n" not in self._pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._replies], [], [], left)[0]:
                self._crash(f"gave no answer in {limit:g} s and was killed", hung=True)
            chunk = os.read(self._replies, 1 << 20)
            if not chunk:
                self._crash("died")
            self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        try:
            answer: object = json.loads(line)
        except ValueError:
            self._crash("sent a line that is not JSON")
        if not isinstance(answer, dict):
            self._crash("sent a line that is not a JSON object")
        return {str(key): value for key, value in answer.items()}

    def _crash(self, what: str, hung: bool = False) -> NoReturn:
        """Close the host and raise BackendCrash (Hung) saying what happened and what Node printed last."""
        process = self._process
        if process is not None and what == "died":
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(2)
        code = process.poll() if process is not None else None
        how = "" if code is None else f" (exit code {code})" if code >= 0 else f" (signal {-code})"
        tail = ""
        if self._log is not None:
            self._log.seek(0)
            # Node's own words (an exception, a trap), not ONNX Runtime's verbose and info lines.
            said = [line for line in self._log.read().decode("utf-8", "replace").splitlines()
                    if not any(level in line for level in ("[V:onnxruntime", "[I:onnxruntime"))]
            tail = " ".join(" ".join(said).split())[-600:]
        self.close()
        raise (Hung if hung else BackendCrash)(f"the Node host {what}{how}{'; it printed: ' + tail if tail else ''}")

    def close(self) -> None:
        process, self._process = self._process, None
        for fd in (self._requests, self._replies):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._requests = self._replies = -1
        self._pending = b""
        if process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(3)  # its requests ended: it exits
            if process.poll() is None:
                process.kill()
                process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None
