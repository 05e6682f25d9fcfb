"""The viewer tests' fixtures: users, a roster on the fake provider server, a clean cache."""

from tests.viewer.conftest import clean_cache, make_question, no_runs, offline_panel, panel

__all__ = ["clean_cache", "make_question", "no_runs", "offline_panel", "panel"]
