"""How long a voice's words wait for the next ones before they go out: nothing while it is quiet.

Coalescing trades a viewer's wait for the process's CPU: a broadcast costs about the same
whether it carries one word or ten, and fifty debates sending every word at once would spend
the process on broadcasts. But a fixed window held every word of a quiet machine half the window
on average (a 75 ms window: p50 40 ms) for nothing. So the window follows how busy the process
has been in the last moments: none while its CPU share is at most QUIET, the whole window from
BUSY up, in proportion between. Sending more when quiet raises the share, which widens the
window again: the two settle where the process is moderately busy.
"""

import math
import time
from collections.abc import Callable

QUIET, BUSY = 0.3, 0.8  # the process's CPU seconds per second of wall time
EVERY = 0.1  # seconds between two readings of the process's CPU time
FADE = 0.2  # seconds in which an older reading's weight falls to 1/e


class Pace:
    """The process's recent CPU share (all its threads), read at most every EVERY seconds."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, cpu: Callable[[], float] = time.process_time
    ) -> None:
        self.clock, self.cpu = clock, cpu
        self.at, self.used = clock(), cpu()
        self.share = 0.0

    def busy(self) -> float:
        """CPU seconds per second, smoothed over the last few tenths of a second: a reading that
        spans a long silence is that silence."""
        now = self.clock()
        if (span := now - self.at) >= EVERY:
            used, weight = self.cpu(), 1 - math.exp(-span / FADE)
            self.share = weight * (used - self.used) / span + (1 - weight) * self.share
            self.at, self.used = now, used
        return self.share

    def window(self, longest: float) -> float:
        """Seconds words wait after the last broadcast, at most ``longest``."""
        return longest * min(1.0, max(0.0, (self.busy() - QUIET) / (BUSY - QUIET)))


PACE = Pace()  # one per process: every sink of it shares its CPU
