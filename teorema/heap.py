"""A server process's loaded heap, kept out of the garbage collector's full collections.

A full collection walks every object the collector tracks, and the process stops meanwhile: no
viewer gets a word. Loaded, the web and the worker each hold a great many such objects (Django,
the app and their modules), which live as long as the process, and a burst of submitted debates
sets off a full collection over all of them. Frozen, those objects are never walked again.

Full collections then run a tenth as often as CPython's default (every 100 collections of the
middle generation, not 10). What reaches the oldest generation now is mostly the running
debates' own objects, which reference counting frees as each run ends; a full collection finds
only the cycles among them, and in a burst each one stopped the process.

The URLconf is loaded first. Django imports it on the first request, and with it every view's
modules (the Telegram library's among them); left unfrozen, they were most of what each later
full collection walked. docs/benchmarks-history.md (ninth pass) has the figures.
"""

import gc

from django.urls import get_resolver

FULL_EVERY = 100  # collections of the middle generation between two full ones (CPython: 10)


def freeze_loaded() -> None:
    """Load what the first request would, freeze what is alive (after a collection, so that no
    garbage is frozen with it), and make full collections rarer."""
    get_resolver().url_patterns  # noqa: B018  (imports the URLconf and its views' modules)
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_EVERY)
