"""A virtual environment holding only a repro's `needs` (and what they require), made from the
distributions this interpreter already has: a repro that imports something its record does not
list fails there as it would on a maintainer's machine, not here. Nothing is downloaded; each
distribution's files are linked, so making one takes well under a second. Commands among the
needs (wine, node, chromium) are the machine's, as on a maintainer's."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

from conformance.backends.cache import cache_root

_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def closure(needs: Iterable[str]) -> dict[str, metadata.Distribution]:
    """The installed distributions among `needs` and, recursively, what they require (a need not
    installed here is left out: the repro then says it cannot run, as it would without it)."""
    found: dict[str, metadata.Distribution] = {}
    waiting = [normal(need) for need in needs]
    while waiting:
        name = waiting.pop()
        if name in found:
            continue
        try:
            distribution = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        found[name] = distribution
        for requirement in distribution.requires or []:
            if "extra ==" in requirement.replace("extra==", "extra =="):
                continue  # an optional part nobody asked for
            matched = _NAME.match(requirement)
            if matched:
                waiting.append(normal(matched[1]))
    return found


def python_for(needs: Iterable[str]) -> str:
    """The interpreter of an environment holding only `needs`, made on first use and kept in the
    cache under a name that changes when any of its versions does."""
    chosen = closure(needs)
    key = "\n".join(sorted(f"{name}=={dist.version}" for name, dist in chosen.items()))
    folder = cache_root() / "repro-envs" / hashlib.sha256(f"{sys.executable}\n{key}".encode()).hexdigest()[:16]
    python = folder / "bin" / "python"
    if python.exists():
        return str(python)
    folder.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(building)], check=True,
                       capture_output=True)
        site = building / Path(sysconfig.get_path("purelib")).relative_to(sys.prefix)
        for distribution in chosen.values():
            _link(distribution, site)
        (building / "needs.txt").write_text(key + "\n", encoding="utf-8")
        try:
            building.rename(folder)  # another worker may have made the same one meanwhile
        except OSError:
            if not python.exists():
                raise
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return str(python)


def _link(distribution: metadata.Distribution, site: Path) -> None:
    """Link each top-level entry the distribution installed (its packages, its .libs folder, its
    .dist-info) into `site`; scripts and data outside site-packages are left out."""
    root = Path(str(distribution.locate_file("")))
    tops = {Path(str(path)).parts[0] for path in distribution.files or []}
    for top in sorted(tops):
        if top in ("..", "__pycache__") or top.endswith(".pth"):
            continue
        source, target = root / top, site / top
        if source.exists() and not target.exists():
            os.symlink(source, target)
