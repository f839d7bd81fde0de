"""Where ONNX Runtime Web lives for the two web backends and what they need around it: the
folder `topk-conformance setup web` fills with `npm ci` from the committed lockfile
(conformance/backends/web/js/), Node.js, Debian's Chromium, and Playwright for Python to drive it."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from conformance.backends.cache import SetupFolder, cache_root

JS = Path(__file__).parent / "js"  # package.json, package-lock.json, host.mjs, page.html, session.mjs
PACKAGE = "onnxruntime-web"
# The version package.json and package-lock.json pin (tests/test_web_backends.py keeps them equal).
VERSION = "1.30.0"
# The commands the backends run, and the Debian package that brings each one.
COMMANDS = {"node": "nodejs", "npm": "npm", "chromium": "chromium"}
HINT = "run `topk-conformance setup web`"


def lock_digest() -> str:
    """What `npm ci` installed from: the package file and its lockfile."""
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        digest.update(name.encode() + b"\0" + (JS / name).read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class WebSetup(SetupFolder):
    """The folder `setup web` fills: node_modules/ from the lockfile, and state.json."""

    @property
    def package_dir(self) -> Path:
        return self.root / "node_modules" / PACKAGE

    @property
    def dist(self) -> Path:
        return self.package_dir / "dist"

    def installed_version(self) -> str:
        try:
            version = json.loads((self.package_dir / "package.json").read_text(encoding="utf-8")).get("version")
        except (OSError, ValueError, AttributeError):
            return ""
        return version if isinstance(version, str) else ""

    def dist_digest(self) -> str:
        """The content of the package's dist/ (the .wasm and .mjs files the hosts load), as
        `setup web` recorded it after `npm ci` checked each tarball against the lockfile."""
        digest = hashlib.sha256()
        for path in sorted(self.dist.rglob("*")) if self.dist.is_dir() else []:
            if path.is_file():
                digest.update(path.relative_to(self.dist).as_posix().encode() + b"\0")
                digest.update(hashlib.sha256(path.read_bytes()).digest())
        return digest.hexdigest()

    def package_missing(self) -> str:
        """Why ONNX Runtime Web is not ready in this folder, or "": not installed from this
        lockfile, or its files no longer what was installed (a damaged or edited install would
        otherwise be charged to ONNX Runtime Web as every graph's error)."""
        state = self.state()
        if self.installed_version() != VERSION or state.get("lock") != lock_digest():
            return f"the npm package {PACKAGE} {VERSION} is not installed in {self.root}; {HINT}"
        if state.get("dist") != _dist_digest(self, _stat_signature(self.dist)):
            return (f"the npm package {PACKAGE} {VERSION} in {self.root} is damaged: its dist/ files are not what "
                    f"`setup web` installed; {HINT}")
        return ""

    def node_missing(self) -> str:
        """What keeps the Node host from starting, or ""."""
        if node() is None:
            return f"no Node.js (`node` is not on PATH); {HINT}"
        return self.package_missing()

    def browser_missing(self) -> str:
        """What keeps the Chromium page from starting (before asking it for an adapter), or ""."""
        if chromium() is None:
            return f"no Chromium (`chromium` is not on PATH); {HINT}"
        if importlib.util.find_spec("playwright") is None:
            return "the Python package playwright is missing (it drives Chromium); install the [web] extra"
        return self.package_missing()


@functools.cache
def _dist_digest(setup: WebSetup, signature: tuple[tuple[str, int, int], ...]) -> str:
    """Once a process while the files' sizes and times stay (about 0.2 s for its 136 MB)."""
    return setup.dist_digest()


def _stat_signature(folder: Path) -> tuple[tuple[str, int, int], ...]:
    if not folder.is_dir():
        return ()
    stats = ((path, path.stat()) for path in sorted(folder.rglob("*")) if path.is_file())
    return tuple((path.name, stat.st_size, stat.st_mtime_ns) for path, stat in stats)


def node() -> str | None:
    return shutil.which("node")


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def default_setup() -> WebSetup:
    return WebSetup(cache_root() / "web")
