"""Steps every `topk-conformance setup ...` shares: Debian packages installed as root, or
the exact command printed where this process is not root."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable

Say = Callable[[str], None]


class SetupError(RuntimeError):
    """A step cannot be done here; the message says what to do instead."""


def missing_packages(packages: tuple[str, ...]) -> list[str]:
    missing = []
    for name in packages:
        status = subprocess.run(
            ["dpkg-query", "-W", "-f", "${Status}", name], capture_output=True, text=True,
            stdin=subprocess.DEVNULL, check=False,
        ).stdout
        if "install ok installed" not in status:
            missing.append(name)
    return missing


def install_packages(say: Say, packages: tuple[str, ...], who: str) -> None:
    if shutil.which("dpkg-query") is None:
        raise SetupError(f"this is not a Debian-based system (no dpkg-query); {who} need Debian's packages")
    missing = missing_packages(packages)
    if not missing:
        say(f"Debian packages: present ({', '.join(packages)})")
        return
    line = "apt-get install -y " + " ".join(missing)
    if os.geteuid() != 0:
        raise SetupError(f"missing Debian packages; as root, run:\n  apt-get update && {line}")
    say(f"Debian packages: installing {', '.join(missing)}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", *missing]):
        completed = subprocess.run(command, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if completed.returncode != 0:
            raise SetupError(f"`{' '.join(command)}` failed:\n{completed.stderr[-2000:]}")
