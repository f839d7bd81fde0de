"""Open a repro page of this folder in headless Chromium and print what it reports, without
the suite (Python's standard library and Debian's chromium).

    python3 run_page.py ort_web_webgpu.html

Serves this folder on 127.0.0.1 (a port the system picks), starts Chromium headless with
WebGPU on whatever adapter it offers, prints the text the page POSTs to /result, and stops
Chromium. Exit status 0 once the page reported, 1 if it did not within 120 s."""
import functools
import http.server
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

reported = threading.Event()


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".mjs": "text/javascript",  # noqa: RUF012
                      ".wasm": "application/wasm"}

    def do_POST(self):
        text = self.rfile.read(int(self.headers["Content-Length"])).decode()
        print(text, flush=True)
        self.send_response(204)
        self.end_headers()
        reported.set()

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=Path(__file__).parent))
threading.Thread(target=server.serve_forever, daemon=True).start()
chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
with tempfile.TemporaryDirectory() as profile:
    browser = subprocess.Popen(
        [chromium, "--headless", "--no-sandbox", "--enable-unsafe-webgpu", "--no-first-run",
         "--disable-background-networking", f"--user-data-dir={profile}",
         f"http://127.0.0.1:{server.server_address[1]}/{sys.argv[1]}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    done = reported.wait(120)
    browser.kill()
    browser.wait()
if not done:
    print(f"{sys.argv[1]} did not report within 120 s (Chromium exit code {browser.returncode})", file=sys.stderr)
sys.exit(0 if done else 1)
