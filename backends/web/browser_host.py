"""One headless Chromium with one page for `ort-web-webgpu`, driven by Playwright for Python:
the page (backends/web/js/page.html) and ONNX Runtime Web's files are served from 127.0.0.1
on a port the system picks, nothing else listens, and the browser talks to Playwright over a
pipe. A browser, page or GPU process that dies, or a call Playwright gives up on, raises
BackendCrash and closes everything; the backend starts a fresh one for the next graph. If
this process is killed, Playwright's driver sees its pipe close and takes Chromium with it."""

from __future__ import annotations

import contextlib
import http.server
import threading
from pathlib import Path
from typing import Any

from backends.base import BackendCrash
from backends.web.environment import JS, WebSetup, chromium

START_MS = 60_000.0
# Without these Chromium reaches for Google's services at start, on a machine that may have
# no network; --enable-unsafe-webgpu offers WebGPU on an adapter Chromium does not list as
# supported (SwiftShader, with no GPU).
CHROMIUM_ARGS = (
    "--no-sandbox", "--enable-unsafe-webgpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--disable-quic", "--no-first-run", "--disable-breakpad", "--disable-extensions",
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


class BrowserHost:
    def __init__(self, setup: WebSetup) -> None:
        self.setup = setup
        self.info: dict[str, Any] = {}
        self.browser_version = ""
        self._server: http.server.ThreadingHTTPServer | None = None
        self._playwright: Any = None
        self._browser: Any = None
        self._page: Any = None

    def start(self) -> None:
        from playwright.sync_api import Error, sync_playwright

        executable = chromium()
        if executable is None:
            raise RuntimeError("no Chromium (`chromium` is not on PATH)")
        try:
            self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(self.setup.dist))
            threading.Thread(target=self._server.serve_forever, daemon=True).start()
            port = self._server.server_address[1]
            self._playwright = sync_playwright().start()
            self._browser = self._playwright.chromium.launch(
                executable_path=executable, args=list(CHROMIUM_ARGS), timeout=START_MS,
            )
            self.browser_version = str(self._browser.version)
            self._page = self._browser.new_page()
            self._page.goto(f"http://127.0.0.1:{port}/page.html", timeout=START_MS)
            self.info = self._page.evaluate("() => window.topk.info()")
        except Error as exc:
            self.close()
            raise BackendCrash(f"Chromium did not start: {_first_line(exc)}") from None
        except BaseException:
            self.close()
            raise
        if not self.info.get("adapter"):
            failure = self.info.get("failure")
            self.close()
            raise NoAdapter("Chromium offers no WebGPU adapter (navigator.gpu.requestAdapter() gave none"
                            + (f": {failure})" if failure else ")"))

    @property
    def alive(self) -> bool:
        return self._page is not None and self._browser is not None and self._browser.is_connected()

    def call(self, request: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """The reply to one request and the console lines the page printed while answering."""
        from playwright.sync_api import Error

        if not self.alive:
            raise BackendCrash("the browser is not running")
        try:
            answer = self._page.evaluate("request => window.topk.run(request)", request)
        except Error as exc:
            self.close()
            raise BackendCrash(f"the browser failed the request: {_first_line(exc)}") from None
        if not isinstance(answer, dict):
            self.close()
            raise BackendCrash(f"the page sent {type(answer).__name__}, not a reply")
        log = answer.pop("log", [])
        return answer, [str(line) for line in log] if isinstance(log, list) else []

    def close(self) -> None:
        browser, playwright, server = self._browser, self._playwright, self._server
        self._page = self._browser = self._playwright = self._server = None
        # A dead browser cannot be closed politely; stopping Playwright's driver ends it anyway.
        if browser is not None:
            with contextlib.suppress(Exception):
                browser.close()
        if playwright is not None:
            with contextlib.suppress(Exception):
                playwright.stop()
        if server is not None:
            server.shutdown()
            server.server_close()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
