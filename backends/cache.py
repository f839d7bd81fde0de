"""The suite's cache folder, where `topk-conformance setup ...` puts what backends need."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """TOPK_CONFORMANCE_CACHE, else the XDG cache folder."""
    if os.environ.get("TOPK_CONFORMANCE_CACHE"):
        return Path(os.environ["TOPK_CONFORMANCE_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "topk-conformance"
