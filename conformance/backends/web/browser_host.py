"""One headless Chromium with one page, for `ort-web-webgpu`: Chromium
is started here (in a process group of its own, killed with this process), Playwright for
Python drives it over the DevTools protocol on 127.0.0.1, and the page
(conformance/backends/web/js/page.html) and ONNX Runtime Web's files are served from 127.0.0.1 too, on
ports the system picks; nothing listens anywhere else. A browser, page or GPU process that
dies raises BackendCrash; a request that gets no answer in time has Chromium killed and
raises Hung. Either closes everything; the backend starts a fresh one for the next graph."""

from __future__ import annotations

import contextlib
import http.server
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any

from conformance.backends.base import BackendCrash
from conformance.backends.web.environment import JS, WebSetup, chromium
from conformance.backends.web.hosts import Hung
from conformance.core import scratch
from conformance.core.processes import die_with_parent

START_SECONDS = 60.0
TIMEOUT = 25.0  # per request: twice that (a hang and its retry) stays under the worker's 60 s
# Without the networking switches Chromium reaches for Google's services at start, on a
# machine that may have no network; --enable-unsafe-webgpu offers WebGPU on an adapter
# Chromium does not list as supported (SwiftShader, where there is no GPU); a page nobody looks
# at is not to be slowed down (its timers throttled, its renderer deprioritised).
CHROMIUM_ARGS = (
    "--disable-background-timer-throttling", "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding", "--disable-ipc-flooding-protection", "--disable-hang-monitor",
    "--headless", "--no-sandbox", "--enable-unsafe-webgpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run", "--disable-breakpad",
    "--disable-extensions", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
)


class NoAdapter(RuntimeError):
    """Chromium runs, but offers no WebGPU adapter."""


def _handler(dist: Path) -> type[http.server.BaseHTTPRequestHandler]:
    """Serves the page and session.mjs at /, ONNX Runtime Web's dist/ files at /ort/: those
    files by name only, nothing else."""
    files = {f"/{name}": JS / name for name in ("page.html", "session.mjs")}
    kinds = {".html": "text/html", ".mjs": "text/javascript", ".wasm": "application/wasm", ".map": "application/json"}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            name = path[len("/ort/"):]
            target = files.get(path) or (dist / name if path.startswith("/ort/") and "/" not in name else None)
            if target is None or not target.is_file():
                self.send_error(404)
                return
            data = target.read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", kinds.get(target.suffix, "application/octet-stream"))
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            return None

    return Handler


_PLAYWRIGHT: list[Any] = []  # Playwright's sync API runs one instance per thread: the hosts share it


def shared_playwright() -> Any:
    """This process's Playwright, started on first use; its driver ends with the process. One
    per process: a second sync instance in the same thread refuses to start (its event loop is
    this one's), so anything else in the process that drives a browser takes this one too."""
    if not _PLAYWRIGHT:
        from playwright.sync_api import sync_playwright

        # Its driver's artefacts (playwright-artifacts-*) in a scratch folder of ours, which the
        # next start removes where this process was killed before it could.
        saved = os.environ.get("TMPDIR")
        os.environ["TMPDIR"] = str(scratch.folder("playwright"))  # read by the driver as it starts, and only by it
        try:
            _PLAYWRIGHT.append(sync_playwright().start())
        finally:
            if saved is None:
                del os.environ["TMPDIR"]
            else:
                os.environ["TMPDIR"] = saved
    return _PLAYWRIGHT[0]


def _own_group() -> None:
    """Chromium's processes in a group of their own (killed together), the browser's dying
    with this process."""
    os.setsid()
    die_with_parent()


class BrowserHost:
    def __init__(self, setup: WebSetup, timeout: float = TIMEOUT, switches: tuple[str, ...] = CHROMIUM_ARGS) -> None:
        self.setup = setup
        self.timeout = timeout
        self.switches = switches  # Chromium's command line, but for its profile folder
        self.info: dict[str, Any] = {}
        self.browser_version = ""
        self._server: http.server.ThreadingHTTPServer | None = None
        self._scratch: Path | None = None  # Chromium's profile, temporary files and configuration
        self._log: IO[bytes] | None = None
        self._chromium: subprocess.Popen[bytes] | None = None
        self._browser: Any = None
        self._page: Any = None
        self._killed = False  # by the watchdog, for a request that got no answer

    def start(self) -> None:
        from playwright.sync_api import Error

        executable = chromium()
        if executable is None:
            raise RuntimeError("no Chromium (`chromium` is not on PATH)")
        try:
            self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(self.setup.dist))
            threading.Thread(target=self._server.serve_forever, daemon=True).start()
            debugging = self._launch(executable)
            self._browser = shared_playwright().chromium.connect_over_cdp(debugging, timeout=START_SECONDS * 1000)
            browser = self._browser
            self.browser_version = str(browser.version)
            self._page = browser.contexts[0].new_page()
            self._page.goto(f"http://127.0.0.1:{self._server.server_address[1]}/page.html",
                            timeout=START_SECONDS * 1000)
            self.info = self._page.evaluate("() => window.topk.info()")
        except Error as exc:
            said = self._said()
            self.close()
            raise BackendCrash(f"Chromium did not start: {_first_line(exc)}{said}") from None
        except BaseException:
            self.close()
            raise
        if not self.info.get("adapter"):
            failure = self.info.get("failure")
            self.close()
            raise NoAdapter("Chromium offers no WebGPU adapter (navigator.gpu.requestAdapter() gave none"
                            + (f": {failure})" if failure else ")"))

    def _launch(self, executable: str) -> str:
        """Start Chromium; its DevTools address (on 127.0.0.1, a port it chose). Everything it
        writes goes into one folder of ours, removed when it stops: its profile, its temporary
        files (a killed Chromium never removes its org.chromium.Chromium.* folders) and its
        configuration and crash reports (Crashpad, under ~/.config/chromium otherwise). The
        folders a killed run left behind go at the next start."""
        self._scratch = scratch.folder("chromium")
        profile, config = self._scratch / "profile", self._scratch / "config"
        for folder in (profile, config):
            folder.mkdir()
        # Chromium's sockets go in its TMPDIR, and a socket's path holds at most 107 bytes: where
        # the scratch folder's path is too long for them, Chromium keeps the system's.
        temporary = {"TMPDIR": str(self._scratch)} if len(str(self._scratch)) <= SOCKET_ROOM else {}
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (Chromium's messages, kept for crash reports)
        self._chromium = subprocess.Popen(
            [executable, *self.switches, f"--user-data-dir={profile}", f"--crash-dumps-dir={config / 'crashes'}",
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log, preexec_fn=_own_group,
            env={**os.environ, **temporary, "XDG_CONFIG_HOME": str(config), "XDG_CACHE_HOME": str(config / "cache")},
        )
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline and self._chromium.poll() is None:
            with contextlib.suppress(OSError, ValueError, IndexError):
                return f"http://127.0.0.1:{int(port_file.read_text().splitlines()[0])}"
            time.sleep(0.02)
        raise BackendCrash(f"Chromium did not open its DevTools port (exit code {self._chromium.poll()}){self._said()}")

    @property
    def alive(self) -> bool:
        return self._page is not None and self._chromium is not None and self._chromium.poll() is None

    def call(self, request: dict[str, Any], seconds: float | None = None) -> tuple[dict[str, Any], list[str]]:
        """The reply to one request and the console lines the page printed while answering."""
        from playwright.sync_api import Error

        if not self.alive:
            raise BackendCrash("the browser is not running")
        # Playwright's evaluate waits without limit: a watchdog kills Chromium at the time limit,
        # which ends the wait.
        self._killed = False
        limit = seconds or self.timeout
        watchdog = threading.Timer(limit, self._kill)
        watchdog.start()
        try:
            answer = self._page.evaluate("request => window.topk.run(request)", request)
        except Error as exc:
            killed, said = self._killed, self._said()
            self.close()
            if killed:
                raise Hung(f"the page gave no answer in {limit:g} s; Chromium was killed") from None
            raise BackendCrash(f"the browser failed the request: {_first_line(exc)}{said}") from None
        finally:
            watchdog.cancel()
        if not isinstance(answer, dict):
            self.close()
            raise BackendCrash(f"the page sent {type(answer).__name__}, not a reply")
        if answer.get("lost"):
            self.close()
            raise BackendCrash(f"the page's GPU device was lost ({answer['lost']}): the GPU process died or reset")
        log = answer.pop("log", [])
        return answer, [str(line) for line in log] if isinstance(log, list) else []

    def _kill(self) -> None:
        process = self._chromium
        if process is not None:
            self._killed = True
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)

    def _said(self) -> str:
        """The tail of what Chromium printed, for a crash's message."""
        if self._log is None:
            return ""
        self._log.seek(0)
        tail = " ".join(self._log.read()[-400:].decode("utf-8", "replace").split())
        return f"; Chromium said: {tail}" if tail else ""

    def close(self) -> None:
        browser, server, process = self._browser, self._server, self._chromium
        self._page = self._browser = self._server = self._chromium = None
        if process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # the browser and its renderer and GPU processes
            process.wait()
        if browser is not None:
            with contextlib.suppress(Exception):  # the connection to the dead browser is gone
                browser.close()
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._log is not None:
            self._log.close()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
        self._log, self._scratch = None, None


# 107 bytes of a socket's path less Chromium's "/org.chromium.Chromium.XXXXXX/SingletonSocket".
SOCKET_ROOM = 107 - 45


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
