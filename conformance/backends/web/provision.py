"""`topk-conformance setup web`: what the two web backends need, each step skipped when done
(a second run takes about a second): Node.js and Chromium from Debian's packages where they
are not on PATH, then ONNX Runtime Web installed by `npm ci` from the committed lockfile into
the suite's cache."""

from __future__ import annotations

import shutil
import subprocess

from conformance.backends.record import SetupStep
from conformance.backends.setup_steps import Say, SetupError, install_packages
from conformance.backends.web.environment import COMMANDS, JS, PACKAGE, VERSION, WebSetup, default_setup, lock_digest


def install_commands(say: Say) -> None:
    """Debian's packages for the commands not on PATH (a Node.js from elsewhere is kept)."""
    missing = tuple(package for command, package in COMMANDS.items() if shutil.which(command) is None)
    if not missing:
        say(f"commands: present ({', '.join(COMMANDS)})")
        return
    install_packages(say, missing, "the web backends")


def install_package(setup: WebSetup, say: Say) -> None:
    digest = lock_digest()
    if not setup.package_missing():
        say(f"{PACKAGE} {VERSION}: present in {setup.root}")
        return
    say(f"{PACKAGE} {VERSION}: npm ci in {setup.root}")
    try:
        setup.root.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(JS / name, setup.root / name)
    except OSError as exc:
        raise SetupError(f"cannot write the web backends' folder {setup.root}: {exc.strerror or exc}") from None
    # --ignore-scripts: nothing the lockfile brings runs at install (protobufjs's postinstall
    # only prints a notice); npm's cache goes under ours, not into the user's home.
    # npm's log is kept beside the install, where the message says (the last run's only).
    logs = setup.root / "npm-logs"
    shutil.rmtree(logs, ignore_errors=True)
    command = ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error",
               "--cache", str(setup.root / "npm-cache"), "--logs-dir", str(logs)]
    completed = subprocess.run(command, cwd=setup.root, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if completed.returncode != 0 or setup.installed_version() != VERSION:
        said = _npm_error(completed.stderr or completed.stdout)
        kept = sorted(logs.glob("*.log"))
        raise SetupError(f"`npm ci` in {setup.root} failed (exit {completed.returncode}): {said}"
                         + (f"; npm's log: {kept[-1]}" if kept else ""))
    setup.update_state(lock=digest, dist=setup.dist_digest())


def provision(setup: WebSetup, say: Say = print) -> None:
    """Every step in order; raises SetupError with what to do when one cannot be done."""
    install_commands(say)
    install_package(setup, say)


# Each backend starts its Node or its Chromium page (and asks for an adapter) in a worker.
def _provision_here(say: Say) -> None:
    provision(default_setup(), say=say)


SETUP = SetupStep("web", "Chromium (Debian's), Node.js and onnxruntime-web from the npm lockfile, for the ONNX "
                  "Runtime Web backends", _provision_here)


def _npm_error(output: str) -> str:
    """What npm says went wrong, on one line: its `code` and first error line, not its stack."""
    lines = [line.removeprefix("npm error").removeprefix("npm ERR!").strip() for line in output.splitlines()]
    lines = [line for line in lines if line and not line.startswith(("at ", "A complete log"))]
    code = next((line for line in lines if line.startswith("code ")), "")
    first = next((line for line in lines if not line.startswith(("code ", "errno ", "syscall "))), "")
    return "; ".join(part for part in (code, first) if part)[:400] or "(npm printed nothing)"
