"""How to install one of the package's extras, in the words that fit how it was installed:
from a checkout (an editable install, the README's way) or from a wheel (a vendor's way)."""

from __future__ import annotations

from pathlib import Path

DISTRIBUTION = "topk-conformance"
# The folder above conformance/backends/: a checkout's root, or site-packages for a wheel.
_ROOT = Path(__file__).resolve().parent.parent


def from_checkout(root: Path = _ROOT) -> bool:
    """Whether this suite runs from a checkout (its pyproject.toml and constraints beside it)."""
    return (root / "pyproject.toml").is_file() and (root / "constraints.txt").is_file()


def extra_hint(extra: str, pin: str = "", root: Path = _ROOT) -> str:
    """`install the [tract] extra (pip install ...)`, the command fitting this installation;
    `pin` (as `tract==0.23.9`) names the version the suite's baselines were recorded with."""
    if from_checkout(root):
        command = f"pip install -e '.[{extra}]' -c constraints.txt, in {root}"
    else:
        command = f"pip install '{DISTRIBUTION}[{extra}]'"
    return f"install the [{extra}] extra ({command}{f'; the suite is pinned to {pin}' if pin else ''})"
