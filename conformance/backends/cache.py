"""The suite's cache folder, where `topk-conformance setup ...` puts what backends need, one
folder per setup with a state.json saying what that setup has done."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def cache_root() -> Path:
    """TOPK_CONFORMANCE_CACHE, else the XDG cache folder."""
    if os.environ.get("TOPK_CONFORMANCE_CACHE"):
        return Path(os.environ["TOPK_CONFORMANCE_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "topk-conformance"


@dataclass(frozen=True)
class SetupFolder:
    """A folder a setup fills; its state.json records the steps done (a step done is skipped)."""

    root: Path

    @property
    def state_file(self) -> Path:
        return self.root / "state.json"

    def state(self) -> dict[str, Any]:
        try:
            state: object = json.loads(self.state_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return state if isinstance(state, dict) else {}

    def update_state(self, **changes: Any) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.state_file.write_text(json.dumps({**self.state(), **changes}, indent=1) + "\n", encoding="utf-8")
