"""Entry points made in a test: the registry finds plugins through
importlib.metadata.entry_points, which the `entry_points` fixture (tests/conftest.py)
replaces with a list the test fills with PluginEntry objects."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass
class PluginDist:
    name: str = "vendor-plugin"
    version: str = "1.2.3"


@dataclass
class PluginEntry:
    name: str
    made: Callable[[], Any]
    value: str = "vendor_plugin:backends"
    dist: PluginDist | None = None

    def load(self) -> Callable[[], Any]:
        return self.made
