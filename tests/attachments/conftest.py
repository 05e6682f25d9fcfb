"""The attachment tests share the viewer tests' roster on the fake provider and their recorder of runs."""

from tests.viewer.conftest import clean_cache, no_runs, offline_panel, panel

__all__ = ["clean_cache", "no_runs", "offline_panel", "panel"]
