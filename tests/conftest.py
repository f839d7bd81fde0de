"""Shared pytest configuration for the suite's own tests."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import metadata

import pytest
from plugin_entries import PluginEntry

from conformance.backends import registry
from conformance.core.offline import refuse_network

# The tests load ONNX Runtime and OpenVINO in this process too, and both report usage where CI is
# not set (a developer's shell): ONNX Runtime's reports off, as in a run, and nothing beyond the
# loopback from here (`import openvino` sends an event from a forked child).
refuse_network()

# pytester drives the suite's pytest plugin in a child pytest (tests/test_pytest_plugin.py).
pytest_plugins = ["pytester"]


@pytest.fixture
def entry_points(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[PluginEntry]]:
    """The plugins the registry finds: this list, which the test fills."""
    entries: list[PluginEntry] = []

    def fake(group: str) -> list[PluginEntry]:
        assert group == registry.ENTRY_POINT_GROUP
        return entries

    monkeypatch.setattr(metadata, "entry_points", fake)
    yield entries
