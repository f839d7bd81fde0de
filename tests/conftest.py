"""Shared pytest configuration for the suite's own tests."""

# pytester drives the suite's pytest plugin in a child pytest (tests/test_pytest_plugin.py).
pytest_plugins = ["pytester"]
