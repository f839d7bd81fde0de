"""ONNX Runtime Web's WebGPU TopK, given a row that holds a NaN, returns elements that are not the
top K under any placement of NaN, and not in order: float32 [0, 0, 2, NaN, 0, 0, 1, 2], K = 3,
largest gives values [2, 0, 1] where the answer is [NaN, 2, 2] (NaN above every number) or
[2, 2, 1] (NaN below); the wasm provider of the same package gives [2, 2, 1].

Needs Python 3.10 or newer, Chromium (or Chrome), and beside this script:
repro.html, page.mjs and onnx_model.mjs, and
onnxruntime-web in a node_modules folder (`npm install onnxruntime-web@1.30.0` here).
It serves this folder on 127.0.0.1, opens repro.html in headless Chromium with WebGPU enabled (on
whatever adapter it offers; without a GPU, SwiftShader) and prints what the page reports; any
browser with WebGPU shows the same report on the page. The last line is REPRODUCED (exit 0),
NOT REPRODUCED (exit 1) or CANNOT RUN: why (exit 2)."""
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

FILES = ["repro.html", "page.mjs", "onnx_model.mjs", "node_modules/onnxruntime-web"]  # beside this script
os.chdir(os.path.dirname(os.path.abspath(__file__)))  # the folder the page is served from
report, reported = {}, threading.Event()


class Page(http.server.SimpleHTTPRequestHandler):
    def do_POST(self):  # the page's report, {lines, verdict, code}; the browser is closed next, unanswered
        report.update(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        reported.set()

    def log_message(self, *args):  # no log of each request
        pass


print(f"Python {platform.python_version()}, {platform.platform()}")
chromium = next(filter(None, map(shutil.which, ["chromium", "chromium-browser", "google-chrome"])), None)
missing = ["Chromium (or Chrome)"] if not chromium else [name for name in FILES if not os.path.exists(name)]
if missing:
    print(f"CANNOT RUN: {missing[0]} is missing" + (" beside this script" if chromium else ""))
    sys.exit(2)
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
threading.Thread(target=server.serve_forever, daemon=True).start()
with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
    browser = subprocess.Popen([chromium, "--headless", "--no-sandbox", "--enable-unsafe-webgpu", "--no-first-run",
                                f"--user-data-dir={profile}", f"http://127.0.0.1:{server.server_port}/repro.html"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    reported.wait(45)
    os.killpg(browser.pid, signal.SIGKILL)  # the whole browser: its GPU and renderer processes too
    status = browser.wait()
if not reported.is_set():  # Chromium ended by itself (it cannot run here), or the page hung (the repro is broken)
    print(f"CANNOT RUN: Chromium exited (status {status}) before the page reported" if status != -signal.SIGKILL
          else "the page did not report within 45 s: the repro itself is broken")
    sys.exit(2 if status != -signal.SIGKILL else 3)
print("\n".join([*report["lines"], report["verdict"]]))
sys.exit(report["code"])
