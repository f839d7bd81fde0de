"""HM-WGPU1: ONNX Runtime Web, WebGPU provider: Hardmax has no WebGPU kernel and runs on the wasm
CPU kernels without an error or a warning (see finding.yaml).

Standalone: Python's standard library, Chromium (Debian's `chromium`, or Chrome) and the npm
package onnxruntime-web (in a node_modules folder beside this file: `npm install
onnxruntime-web@1.30.0` here). Serves this folder on 127.0.0.1, opens repro.html in headless
Chromium with WebGPU enabled (on whatever adapter it offers; without a GPU, SwiftShader), and
prints what the page reports. Any browser with WebGPU shows the same report on the page.
Last line: REPRODUCED (exit 0), NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2).
"""
import functools
import http.server
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
WAIT_S = 45
report = {}
reported = threading.Event()


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,  # noqa: RUF012
                      ".mjs": "text/javascript", ".wasm": "application/wasm"}

    def do_POST(self):
        report.update(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        self.send_response(204)
        self.end_headers()
        reported.set()

    def log_message(self, *args):
        pass


def cpu():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cannot_run(why):
    print(f"CANNOT RUN: {why}")
    sys.exit(2)


def main():
    print(f"Python {sys.version.split()[0]}; {platform.platform()}; CPU {cpu()}")
    chromium = next(filter(None, map(shutil.which, ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"])), None)
    if not chromium:
        cannot_run("no Chromium or Chrome is installed")
    package = HERE / "node_modules" / "onnxruntime-web" / "package.json"
    if not package.is_file():
        cannot_run("onnxruntime-web is not installed beside this script (npm install onnxruntime-web@1.30.0)")
    print(f"onnxruntime-web {json.loads(package.read_text()).get('version')} (node_modules/onnxruntime-web/package.json)")
    try:
        version = subprocess.run([chromium, "--version"], capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as error:
        cannot_run(f"{chromium} --version failed: {error}")
    print(f"browser: {version}")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=HERE))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        browser = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--enable-unsafe-webgpu", "--no-first-run",
             "--disable-background-networking", f"--user-data-dir={profile}",
             f"http://127.0.0.1:{server.server_address[1]}/repro.html"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        done = reported.wait(WAIT_S)
        exited = browser.poll()
        try:  # the whole browser: its GPU and renderer processes write to the profile too
            os.killpg(browser.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        browser.wait()
    server.shutdown()
    if not done:
        if exited is not None:
            cannot_run(f"Chromium exited (status {exited}) before the page reported")
        print(f"the page did not report within {WAIT_S} s: the repro itself is broken")
        sys.exit(3)
    print("\n".join(report.get("lines", [])))
    print(report.get("verdict"))
    sys.exit(report.get("code", 3))


if __name__ == "__main__":
    main()
