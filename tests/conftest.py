"""Shared test setup; fixtures live next to what they fake."""

pytest_plugins = ["tests.fakes.fixtures"]
