"""A server process's loaded heap, kept out of the garbage collector's full collections.

A full collection walks every object the collector tracks, and the process stops meanwhile.
Loaded, the web and the worker each hold 110-150 thousand such objects (Django, the app and
their modules), which live as long as the process; with 50 debates submitted at once, each
process ran a full collection in the first two seconds, 78-112 ms in which no viewer got a word.
Frozen, those objects are never walked again. Interleaved pairs at 50 debates, first-token p95
(medians): web + worker 33.6 -> 15.9 ms (8 pairs), single process 28.1 -> 19.8 ms (5 pairs),
better in every pair (docs/benchmarks.md, ninth pass).

Full collections then run a tenth as often as CPython's default (every 100 collections of the
middle generation, not 10). What reaches the oldest generation now is mostly the running
debates' own objects, which reference counting frees as each run ends; a full collection finds
only the cycles among them, and in a burst each one stopped the single process for 30-220 ms.
4 interleaved runs at 50 debates, single process: longest collection in a batch 65-156 -> 19-45
ms, first-token p95 median 25.4 -> 16.7 ms; the web + worker setup and memory per debate alike.

The URLconf is loaded first. Django imports it on the first request, and with it every view's
modules (277, the Telegram library's among them); left unfrozen, they were 20 of the 32
thousand objects each later full collection walked.
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
