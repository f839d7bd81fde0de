"""A worker talks to nothing beyond the loopback and installs nothing: a runtime's Python code
that would (MNN's converter script runs `pip install` and sends usage data to a cloud logging
endpoint) is refused where it tries, as a Python exception the backend's stage reports, before
any packet leaves or any package changes. Held by an audit hook (PEP 578), which sees every
socket connection, name lookup and process start made from Python, in the worker only: the
suite's own setup steps install on purpose, in the main process.

A runtime's native code is beyond an audit hook: what is known of it to report usage is
switched off by the runtime's own documented switch, set in the environment before it loads
(`quiet_runtimes`). ONNX Runtime from 1.29 on Linux keeps a device id, usage events and an
upload queue for Microsoft's collector (under ~/.cache/Microsoft/DeveloperTools/.onnxruntime,
and a session file in the temporary folder) unless ORT_DISABLE_TELEMETRY=1."""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
from pathlib import Path
from typing import Any

_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", ""}
_INSTALLERS = {"pip", "pip3", "ensurepip", "uv", "conda", "mamba", "npm", "npx", "apt", "apt-get", "easy_install"}


class Refused(PermissionError):
    """What the worker would not do: it names what was tried."""


def local(host: Any) -> bool:
    """Whether a host (a name or an address) is this machine's loopback."""
    if host is None:
        return True
    name = host.decode() if isinstance(host, bytes) else str(host)
    if name.lower() in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(name.split("%")[0]).is_loopback
    except ValueError:
        return False


def _address(host: Any) -> bool:
    try:
        ipaddress.ip_address((host.decode() if isinstance(host, bytes) else str(host)).split("%")[0])
    except ValueError:
        return False
    return True


def installer(args: Any) -> str:
    """The installer a process start would run ("" none): pip and its kin, directly or as
    `python -m pip`."""
    words = [os.fsdecode(word) for word in (args if isinstance(args, (list, tuple)) else [args]) if word is not None]
    if not words:
        return ""
    if len(words) == 1:  # a shell command line
        words = words[0].split()
    elif os.path.basename(words[0]) in ("sh", "bash", "dash", "zsh") and "-c" in words[1:-1]:
        words = words[words.index("-c") + 1].split()  # subprocess's shell=True: the line it runs
    if not words:
        return ""
    program = os.path.basename(words[0]).lower()
    stem = program.split("-")[0].split(".exe")[0].rstrip("0123456789.")
    if stem in _INSTALLERS or program in _INSTALLERS:
        return program
    for at, word in enumerate(words[:-1]):
        if word == "-m" and words[at + 1].split(".")[0] in _INSTALLERS:
            return f"{program} -m {words[at + 1]}"
    return ""


def _network(event: str, args: tuple[Any, ...]) -> None:
    if event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
        sock, address = args[0], args[-1]
        if getattr(sock, "family", None) in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple) \
                and not local(address[0]):
            raise Refused(f"a network connection to {address[0]} (a run talks to nothing beyond the loopback)")
    elif event == "socket.getaddrinfo" and not local(args[0]) and not _address(args[0]):
        # a name to look up asks a DNS server; an address is only parsed (its connect is judged)
        raise Refused(f"a name lookup of {args[0]} (a run talks to nothing beyond the loopback)")


def _hook(event: str, args: tuple[Any, ...]) -> None:
    _network(event, args)
    if event in ("subprocess.Popen", "os.posix_spawn", "os.exec", "os.spawn", "os.system"):
        command = {"os.system": args[0], "os.spawn": args[2] if len(args) > 2 else ""}.get(event, args[1])
        found = installer(command)
        if found:
            raise Refused(f"running the installer {found} (a run installs nothing)")


# Each runtime's own switch for what its native code reports home, as its makers document it.
QUIET_RUNTIMES = {"ORT_DISABLE_TELEMETRY": "1"}  # ONNX Runtime >= 1.29, Linux and macOS

_installed = False
_network_refused = False


def quiet_runtimes() -> None:
    """Sets the runtimes' switches in this process's environment, which the processes it starts
    inherit: before a runtime loads here, since ONNX Runtime latches the decision as it starts."""
    os.environ.update(QUIET_RUNTIMES)


def forbid_network_and_installs() -> None:
    """In this process from now on (an audit hook cannot be removed: call it in a worker)."""
    global _installed
    quiet_runtimes()
    if not _installed:
        sys.addaudithook(_hook)
        _installed = True


def refuse_network() -> None:
    """This process, and what it forks, refuse connections and name lookups beyond the loopback
    from now on; installers may still start (the suite's own tests make environments). For a
    process that imports runtimes outside a worker: `import openvino` sends a usage event to
    Google Analytics from a forked child unless CI is set or its user opted out."""
    global _network_refused
    quiet_runtimes()
    if not _network_refused:
        sys.addaudithook(_network)
        _network_refused = True


# The sitecustomize of guarded_python_path: this module, loaded by its path (the interpreter
# that runs it need not have the suite installed), guards the process before its script runs.
_SITECUSTOMIZE = """import importlib.util as _util
_spec = _util.spec_from_file_location("_topk_conformance_offline", {path!r})
_guard = _util.module_from_spec(_spec)
_spec.loader.exec_module(_guard)
_guard.forbid_network_and_installs()
"""


def guarded_python_path(folder: Path) -> str:
    """A PYTHONPATH entry, written in `folder`, under which any Python process (a finding's
    repro, in an environment without the suite; the children it starts, which inherit it)
    refuses the network and installers as a worker does, from before its script runs: a
    repro needs neither, and `import openvino` would otherwise send its usage event."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(_SITECUSTOMIZE.format(path=str(Path(__file__).resolve())),
                                             encoding="utf-8")
    return str(folder)
